import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { fitroomOf, fitroomRoute } from "../../../../../fitroom-http"
import { generateProductModelWorkflow } from "../../../../../../workflows/product-model"
import { advanceProductModel } from "../../../../../../workflows/advance"

/** The product's 3D models, newest first; models being generated are moved on first (progress, result). */
export const GET = async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  const list = () => fitroom.listFitroomProductModels({ product_id: req.params.id }, { order: { created_at: "DESC" } })
  for (const m of await list()) if (m.status === "processing") await advanceProductModel(req.scope, m.id)
  res.setHeader("Cache-Control", "no-store")
  res.json({ models: await list() })
}

/** Generate 3D: the product's photos go to Fitroom; the new model is `processing` until its files are stored. */
export const POST = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  const { result } = await generateProductModelWorkflow(req.scope).run({ input: { product_id: req.params.id } })
  res.status(202).json({ model: result })
})
