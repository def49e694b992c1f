import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { Modules } from "@medusajs/framework/utils"
import { fitroomOf } from "../../../../fitroom-http"
import { FITROOM_MODULE } from "../../../../../modules/fitroom"
import { hideModels } from "../../../../../workflows/shown-model"

/** Deletes a model: its Fitroom job is cancelled if still running, its files and its link go with it. */
export const DELETE = async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  const model = await fitroom.retrieveFitroomProductModel(req.params.modelId)
  if (model.status === "processing" && model.job_id) await fitroom.client.cancel(model.job_id).catch(() => undefined)
  const files = [model.glb_file_id, model.usdz_file_id, model.preview_file_id].filter((f): f is string => !!f)
  if (files.length) await req.scope.resolve(Modules.FILE).deleteFiles(files)
  await req.scope.resolve("link").dismiss({ [Modules.PRODUCT]: { product_id: model.product_id }, [FITROOM_MODULE]: { fitroom_product_model_id: model.id } })
  await hideModels(req.scope, model.product_id, model.id)
  await fitroom.deleteFitroomProductModels(model.id)
  res.json({ id: model.id, object: "fitroom_product_model", deleted: true })
}
