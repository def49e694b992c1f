import type { MedusaContainer } from "@medusajs/framework/types"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"
import { advanceProductModel } from "../workflows/advance"
import { advanceDigitalTwin } from "../workflows/digital-twin"

/**
 * Every minute, models and twins still being made are moved on: the safety net under Fitroom's
 * webhooks (a store without publicUrl, a delivery that never arrived).
 */
export default async function advanceFitroomJobs(container: MedusaContainer) {
  const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
  const logger = container.resolve("logger")
  const models = await fitroom.listFitroomProductModels({ status: "processing" }, { take: 100, order: { updated_at: "ASC" } })
  for (const m of models) await advanceProductModel(container, m.id).catch((e) => logger.warn(`fitroom: model ${m.id}: ${(e as Error).message}`))
  const twins = await fitroom.listFitroomDigitalTwins({ status: "processing" }, { take: 100, order: { updated_at: "ASC" } })
  for (const t of twins) await advanceDigitalTwin(container, t.id).catch((e) => logger.warn(`fitroom: twin ${t.id}: ${(e as Error).message}`))
}

export const config = { name: "fitroom-advance-product-models", schedule: "* * * * *" }
