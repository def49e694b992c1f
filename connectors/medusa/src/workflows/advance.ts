import { Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"
import { FitroomApiError } from "../modules/fitroom/client"
import { storeProductModelWorkflow } from "./product-model"

/**
 * Moves a processing 3D model on by one look at its Fitroom job: progress, failure, or the files
 * stored and the model ready. Safe to call from several places at once (the admin's polling and the
 * scheduled job): one caller at a time per model, and a model that is no longer processing is left
 * alone. Fitroom being unreachable changes nothing but the note shown in the admin.
 */
export async function advanceProductModel(container: MedusaContainer, id: string): Promise<void> {
  const locking = container.resolve(Modules.LOCKING)
  await locking.execute(`fitroom:product-model:${id}`, () => advance(container, id), { timeout: 60 })
}

const nudged = new Set<string>()

/**
 * Starts one look at a model in the background unless one is already running in this process (the
 * admin's list asks every few seconds; its answer never waits for a download).
 */
export function nudgeProductModel(container: MedusaContainer, id: string): void {
  if (nudged.has(id)) return
  nudged.add(id)
  advanceProductModel(container, id)
    .catch((e) => container.resolve("logger").warn(`fitroom: model ${id}: ${(e as Error).message}`))
    .finally(() => nudged.delete(id))
}

async function advance(container: MedusaContainer, id: string) {
  const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
  const [model] = await fitroom.listFitroomProductModels({ id }, { take: 1 })
  if (!model || model.status !== "processing" || !model.job_id) return
  const ageMinutes = (Date.now() - new Date(model.created_at).getTime()) / 60_000
  let job
  try {
    job = await fitroom.client.job(model.job_id)
  } catch (caught) {
    const e = FitroomApiError.from(caught)
    if (!e) throw caught
    if (e.status === 404) return fail(fitroom, id, "FITROOM_JOB_MISSING", "Fitroom no longer knows this job (expired, or the store's key changed): generate the model again")
    if (ageMinutes > fitroom.options.generationTimeoutMinutes) return fail(fitroom, id, "FITROOM_TIMEOUT", `No result within ${fitroom.options.generationTimeoutMinutes} minutes; the last problem: ${e.message}`)
    await fitroom.updateFitroomProductModels({ id, error_code: e.code, error_message: `${e.message} (will try again)` })
    return
  }
  if (job.status === "failed" || job.status === "cancelled") return fail(fitroom, id, job.errorCode ?? "FITROOM_JOB_FAILED", job.error ?? "The 3D generation failed")
  if (job.status !== "completed") {
    if (ageMinutes > fitroom.options.generationTimeoutMinutes) {
      await fitroom.client.cancel(model.job_id).catch(() => undefined)
      return fail(fitroom, id, "FITROOM_TIMEOUT", `No result within ${fitroom.options.generationTimeoutMinutes} minutes: the job was cancelled`)
    }
    const progress = typeof job.progress === "number" ? Math.round(job.progress) : 0
    await fitroom.updateFitroomProductModels({ id, progress, error_code: null, error_message: null })
    return
  }
  const r = (job.result ?? {}) as Record<string, unknown>
  const url = (k: string) => (typeof r[k] === "string" ? (r[k] as string) : undefined)
  const glb = url("glbUrl")
  if (!glb) return fail(fitroom, id, "FITROOM_BAD_ANSWER", "The finished job has no glbUrl")
  try {
    await storeProductModelWorkflow(container).run({
      input: { model_id: id, product_id: model.product_id, glb_url: glb, preview_url: url("previewGrid"), usdz_url: url("usdzUrl") },
    })
  } catch (e) {
    // files stored by the attempt were removed by the workflow's compensation
    const gone = /was deleted/.test((e as Error).message)
    if (gone) return fail(fitroom, id, "PRODUCT_DELETED", (e as Error).message)
    await fitroom.updateFitroomProductModels({ id, error_code: FitroomApiError.from(e)?.code ?? "STORE_FAILED", error_message: `${(e as Error).message} (will try again)` })
  }
}

async function fail(fitroom: FitroomModuleService, id: string, code: string, message: string) {
  await fitroom.updateFitroomProductModels({ id, status: "failed", error_code: code, error_message: message })
}
