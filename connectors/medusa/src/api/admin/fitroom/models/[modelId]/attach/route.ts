import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { fitroomOf } from "../../../../../fitroom-http"
import { showModel } from "../../../../../../workflows/shown-model"

/** Shows a ready model to shoppers; the product's previously attached model goes back to ready. */
export const POST = async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  const model = await fitroom.retrieveFitroomProductModel(req.params.modelId)
  if (model.status !== "ready" && model.status !== "attached") throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Only a ready model can be attached; this one is ${model.status}`)
  const others = await fitroom.listFitroomProductModels({ product_id: model.product_id, status: "attached" })
  const detach = others.filter((o) => o.id !== model.id).map((o) => ({ id: o.id, status: "ready" as const }))
  const [attached] = await fitroom.updateFitroomProductModels([...detach, { id: model.id, status: "attached" as const }].reverse())
  await showModel(req.scope, attached)
  res.json({ model: attached })
}
