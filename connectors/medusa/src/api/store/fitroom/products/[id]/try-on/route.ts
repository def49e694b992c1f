import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { fitroomOf, fitroomRoute } from "../../../../../fitroom-http"
import { passOn, productInScope, shopperOf, twinOfShopper, verificationOf } from "../../../shopper"
import { garmentOf } from "../../../../../../workflows/garment"
import { submissionView } from "../../../../../job-view"
import type { StoreTryOnType } from "../../../../../middlewares"

/**
 * Virtual fitting of a product on the shopper: the garment is the product's packshot (its thumbnail or
 * first image), the category its `metadata.fitroom_category` or the plugin's default. The person is a
 * photo (`person_image`) or, without one, the shopper's ready digital twin. Bot-verified by Fitroom:
 * send a solved challenge in X-Challenge-Token, or the X-Fitroom-Pass an earlier answer gave.
 */
export const POST = fitroomRoute(async (req: MedusaRequest<StoreTryOnType>, res: MedusaResponse) => {
  const b = req.validatedBody
  const fitroom = fitroomOf(req)
  const shopper = await shopperOf(req)
  const product = await productInScope(req, ["thumbnail", "images.url", "metadata"])
  let twinId: string | null = null
  if (!b.person_image) {
    const twin = await twinOfShopper(req, shopper)
    if (!twin) throw new MedusaError(MedusaError.Types.INVALID_DATA, "Send person_image, or make your digital twin first (POST /store/fitroom/digital-twin)", "TWIN_REQUIRED")
    if (twin.status !== "ready" || !twin.digital_twin_id) throw new MedusaError(MedusaError.Types.INVALID_DATA, `Your digital twin is ${twin.status}: try again when it is ready`, "TWIN_NOT_READY")
    twinId = twin.digital_twin_id
  }
  const garments = await garmentOf(product, fitroom.options)
  const person = twinId ? { digitalTwinId: twinId } : { personImages: [b.person_image] }
  const answer = await fitroom.client.shopperTryOn({ ...person, ...garments }, verificationOf(req, shopper))
  await fitroom.createFitroomTryOns({ job_id: answer.body.jobId, product_id: product.id, ...shopper })

  passOn(res, answer)
  res.setHeader("Cache-Control", "no-store")
  const view = submissionView(answer.body, twinId)
  res.status(view.status).json(view.body)
})
