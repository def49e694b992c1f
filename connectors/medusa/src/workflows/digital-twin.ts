import { createStep, createWorkflow, StepResponse, transform, when, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { createRemoteLinkStep } from "@medusajs/medusa/core-flows"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"
import { FitroomApiError } from "../modules/fitroom/client"

export interface CreateDigitalTwinInput {
  customer_id: string | null
  cart_id: string | null
  /** Fitroom's DigitalTwinRequest: faceImage plus bodyMeasurements or clothingSize, gender. */
  request: { faceImage: string; bodyMeasurements?: Record<string, number>; clothingSize?: { height: number; size: string }; gender?: "male" | "female" }
}

export interface DigitalTwinRecord {
  id: string
  customer_id: string | null
  cart_id: string | null
  status: "processing" | "ready" | "failed"
  job_id: string | null
  digital_twin_id: string | null
  mode: string
  error_code: string | null
  error_message: string | null
}

/**
 * Submits the twin to Fitroom (under the store's account, so its try-ons and size fittings can use it)
 * and records it for the shopper. Compensation removes the record; Fitroom's twin job needs no undo.
 */
export const submitDigitalTwinStep = createStep(
  "fitroom-submit-digital-twin",
  async (input: CreateDigitalTwinInput, { container }) => {
    const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
    const submitted = await fitroom.client.createTwin(input.request)
    const twinId = typeof submitted.digitalTwinId === "string" ? submitted.digitalTwinId : null
    const created = await fitroom.createFitroomDigitalTwins({
      customer_id: input.customer_id,
      cart_id: input.cart_id,
      job_id: submitted.jobId,
      status: twinId ? "ready" : "processing",
      digital_twin_id: twinId,
      mode: input.request.bodyMeasurements ? "measurements" : "clothing_size",
    })
    return new StepResponse(created as DigitalTwinRecord, created.id)
  },
  async (id, { container }) => {
    if (id) await container.resolve<FitroomModuleService>(FITROOM_MODULE).deleteFitroomDigitalTwins(id)
  }
)

/** The shopper's earlier twins go when a new one is made: one twin per customer or cart. */
export const replaceDigitalTwinsStep = createStep("fitroom-replace-digital-twins", async (input: { customer_id: string | null; cart_id: string | null; keep: string }, { container }) => {
  await removeDigitalTwins(container, input.customer_id ? { customer_id: input.customer_id } : { cart_id: input.cart_id! }, input.keep)
  return new StepResponse(true)
})

/** A shopper's twin: submitted to Fitroom, recorded, linked to the customer (a guest's stays on the cart). */
export const createDigitalTwinWorkflow = createWorkflow("fitroom-create-digital-twin", (input: CreateDigitalTwinInput) => {
  const twin = submitDigitalTwinStep(input)
  replaceDigitalTwinsStep(transform({ input, twin }, ({ input, twin }) => ({ customer_id: input.customer_id, cart_id: input.cart_id, keep: twin.id })))
  when({ input }, ({ input }) => !!input.customer_id).then(() => {
    const links = transform({ input, twin }, ({ input, twin }) => [{ [Modules.CUSTOMER]: { customer_id: input.customer_id }, [FITROOM_MODULE]: { fitroom_digital_twin_id: twin.id } }])
    createRemoteLinkStep(links)
  })
  return new WorkflowResponse(twin)
})

/** Deletes a shopper's twins (all but `keep`) with their customer links. */
export async function removeDigitalTwins(container: MedusaContainer, owner: { customer_id: string } | { cart_id: string }, keep?: string): Promise<string[]> {
  const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
  const twins = (await fitroom.listFitroomDigitalTwins(owner)).filter((t) => t.id !== keep)
  if (!twins.length) return []
  const link = container.resolve("link")
  for (const t of twins) if (t.customer_id) await link.dismiss({ [Modules.CUSTOMER]: { customer_id: t.customer_id }, [FITROOM_MODULE]: { fitroom_digital_twin_id: t.id } })
  await fitroom.deleteFitroomDigitalTwins(twins.map((t) => t.id))
  return twins.map((t) => t.id)
}

/**
 * Moves a processing twin on by one look at its Fitroom job (the webhook, the shopper's GET and the
 * scheduled job all call this; one at a time per twin).
 */
export async function advanceDigitalTwin(container: MedusaContainer, id: string): Promise<void> {
  await container.resolve(Modules.LOCKING).execute(`fitroom:digital-twin:${id}`, async () => {
    const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
    const [twin] = await fitroom.listFitroomDigitalTwins({ id }, { take: 1 })
    if (!twin || twin.status !== "processing" || !twin.job_id) return
    let job
    try {
      job = await fitroom.client.job(twin.job_id)
    } catch (caught) {
      const e = FitroomApiError.from(caught)
      if (e?.status === 404) await fitroom.updateFitroomDigitalTwins({ id, status: "failed", error_code: "FITROOM_JOB_MISSING", error_message: "Fitroom no longer knows this twin's job: make the twin again" })
      else if (!e) throw caught
      return
    }
    if (job.status === "failed" || job.status === "cancelled") {
      await fitroom.updateFitroomDigitalTwins({ id, status: "failed", error_code: job.errorCode ?? "FITROOM_JOB_FAILED", error_message: job.error ?? "The twin could not be made" })
    } else if (job.status === "completed") {
      const made = (job.result as { digitalTwinId?: unknown } | null)?.digitalTwinId ?? (job.results?.[0] as { digitalTwinId?: unknown } | undefined)?.digitalTwinId
      if (typeof made === "string") await fitroom.updateFitroomDigitalTwins({ id, status: "ready", digital_twin_id: made, error_code: null, error_message: null })
      else await fitroom.updateFitroomDigitalTwins({ id, status: "failed", error_code: "FITROOM_BAD_ANSWER", error_message: "The finished twin job has no digitalTwinId" })
    }
  }, { timeout: 30 })
}
