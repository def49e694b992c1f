import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { bodyOf, fitroomOf, fitroomRoute, isImageInput } from "../../../../../fitroom-http"
import { garmentOf } from "../../../../../../workflows/garment"
import { submissionView } from "../../../../../job-view"
import { GARMENT_CATEGORIES, type GarmentCategory } from "../../../../../../modules/fitroom/options"

/** A merchandiser's try-on preview of a product (published or not) on a model photo. Poll GET /admin/fitroom/jobs/:jobId. */
export const POST = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  const b = bodyOf(req)
  if (!isImageInput(b.personImage)) throw new MedusaError(MedusaError.Types.INVALID_DATA, "personImage must be an http(s) URL or an image data URL of at most 15 MB")
  const category = (b.category ?? undefined) as GarmentCategory | undefined
  if (category !== undefined && !GARMENT_CATEGORIES.includes(category)) throw new MedusaError(MedusaError.Types.INVALID_DATA, `category must be one of ${GARMENT_CATEGORIES.join(", ")}`)
  const fitroom = fitroomOf(req)
  const { data } = await req.scope.resolve("query").graph({ entity: "product", fields: ["id", "thumbnail", "images.url", "metadata"], filters: { id: req.params.id } })
  if (!data.length) throw new MedusaError(MedusaError.Types.NOT_FOUND, `Product ${req.params.id} was not found`)
  const slot = await garmentOf(data[0] as Record<string, any>, fitroom.options, category)
  const submitted = await fitroom.client.previewTryOn({ personImages: [b.personImage], ...slot })
  const view = submissionView(submitted)
  res.status(view.status).json(view.body)
})
