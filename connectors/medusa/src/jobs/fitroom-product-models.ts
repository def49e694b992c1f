import type { MedusaContainer } from "@medusajs/framework/types"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"
import { advanceProductModel } from "../workflows/advance"

/** Every minute, models being generated are moved on, so they finish without anyone watching the admin. */
export default async function advanceProductModels(container: MedusaContainer) {
  const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
  const processing = await fitroom.listFitroomProductModels({ status: "processing" }, { take: 100, order: { updated_at: "ASC" } })
  for (const m of processing) await advanceProductModel(container, m.id).catch((e) => container.resolve("logger").warn(`fitroom: model ${m.id}: ${(e as Error).message}`))
}

export const config = { name: "fitroom-advance-product-models", schedule: "* * * * *" }
