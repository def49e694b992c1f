import { Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"

/**
 * Keeps the product's shown model (`fitroom_model`, linked to the product) equal to its attached
 * model: set on attach, removed when the attached model is detached or deleted.
 */
export async function showModel(container: MedusaContainer, m: { id: string; product_id: string; glb_url: string | null; usdz_url: string | null; preview_url: string | null }) {
  await hideModels(container, m.product_id)
  const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
  const shown = await fitroom.createFitroomModels({ product_id: m.product_id, product_model_id: m.id, glb_url: m.glb_url, usdz_url: m.usdz_url, preview_url: m.preview_url })
  await container.resolve("link").create({ [Modules.PRODUCT]: { product_id: m.product_id }, [FITROOM_MODULE]: { fitroom_model_id: shown.id } })
  return shown
}

export async function hideModels(container: MedusaContainer, productId: string, productModelId?: string) {
  const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
  const shown = await fitroom.listFitroomModels(productModelId ? { product_id: productId, product_model_id: productModelId } : { product_id: productId })
  if (!shown.length) return
  const link = container.resolve("link")
  for (const s of shown) await link.dismiss({ [Modules.PRODUCT]: { product_id: productId }, [FITROOM_MODULE]: { fitroom_model_id: s.id } })
  await fitroom.deleteFitroomModels(shown.map((s) => s.id))
}
