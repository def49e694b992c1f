import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { fitroomOf, fitroomRoute } from "../../../../../fitroom-http"
import { generateProductModelWorkflow } from "../../../../../../workflows/product-model"
import { nudgeProductModel } from "../../../../../../workflows/advance"

/**
 * The product's 3D models, newest first, as recorded. Models being generated are moved on by Fitroom's
 * webhook and the scheduled job; a look here only nudges them in the background, so the answer never
 * waits for a download.
 */
export const GET = async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  const models = await fitroom.listFitroomProductModels({ product_id: req.params.id }, { order: { created_at: "DESC" } })
  for (const m of models) if (m.status === "processing") nudgeProductModel(req.scope, m.id)
  res.setHeader("Cache-Control", "no-store")
  res.json({ models })
}

/** Generate 3D: the product's photos go to Fitroom; the new model is `processing` until its files are stored. */
export const POST = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  const { result } = await generateProductModelWorkflow(req.scope).run({ input: { product_id: req.params.id } })
  res.status(202).json({ model: result })
})
