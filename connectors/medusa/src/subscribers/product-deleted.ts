import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { Modules, ProductWorkflowEvents } from "@medusajs/framework/utils"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"

/** A deleted product's models go too: running Fitroom jobs are cancelled and stored files deleted. */
export default async function productDeleted({ event: { data }, container }: SubscriberArgs<{ id: string }>) {
  const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
  const models = await fitroom.listFitroomProductModels({ product_id: data.id }, { withDeleted: true })
  if (!models.length) return
  for (const m of models) if (m.status === "processing" && m.job_id) await fitroom.client.cancel(m.job_id).catch(() => undefined)
  const fileIds = models.flatMap((m) => [m.glb_file_id, m.usdz_file_id, m.preview_file_id].filter((f): f is string => !!f))
  if (fileIds.length) await container.resolve(Modules.FILE).deleteFiles(fileIds)
  // the product link's cascade has usually soft-deleted them already
  const live = models.filter((m) => !m.deleted_at)
  if (live.length) await fitroom.softDeleteFitroomProductModels(live.map((m) => m.id))
}

export const config: SubscriberConfig = { event: ProductWorkflowEvents.DELETED }
