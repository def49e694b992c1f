import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { fitroomOf, fitroomRoute } from "../../../../../fitroom-http"
import type { AdminTryOnType } from "../../../../../middlewares"
import { garmentOf } from "../../../../../../workflows/garment"
import { submissionView } from "../../../../../job-view"

/** A merchandiser's try-on preview of a product (published or not) on a model photo. Poll GET /admin/fitroom/jobs/:jobId. */
export const POST = fitroomRoute(async (req: MedusaRequest<AdminTryOnType>, res: MedusaResponse) => {
  const b = req.validatedBody
  const fitroom = fitroomOf(req)
  const { data } = await req.scope.resolve("query").graph({ entity: "product", fields: ["id", "thumbnail", "images.url", "metadata"], filters: { id: req.params.id } })
  if (!data.length) throw new MedusaError(MedusaError.Types.NOT_FOUND, `Product ${req.params.id} was not found`)
  const slot = await garmentOf(data[0] as Record<string, any>, fitroom.options, b.category)
  const submitted = await fitroom.client.previewTryOn({ personImages: [b.person_image], ...slot })
  const view = submissionView(submitted)
  res.status(view.status).json(view.body)
})
