import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { fitroomOf } from "../../../../../fitroom-http"
import { productInScope } from "../../../shopper"

/** The product's 3D model as the merchant attached it (GLB, USDZ when there is one, preview image). */
export const GET = async (req: MedusaRequest, res: MedusaResponse) => {
  const product = await productInScope(req, [])
  const [model] = await fitroomOf(req).listFitroomModels({ product_id: product.id }, { take: 1 })
  if (!model) throw new MedusaError(MedusaError.Types.NOT_FOUND, "This product has no 3D model", "MODEL_NOT_FOUND")
  res.json({ model: { id: model.product_model_id, glb_url: model.glb_url, usdz_url: model.usdz_url, preview_url: model.preview_url, updated_at: model.updated_at } })
}
