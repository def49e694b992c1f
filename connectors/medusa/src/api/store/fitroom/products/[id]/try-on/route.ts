import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { bodyOf, fitroomOf, fitroomRoute, isImageInput } from "../../../../../fitroom-http"
import { passOn, publishedProduct, shopperOf, verificationOf } from "../../../shopper"
import { garmentOf } from "../../../../../../workflows/garment"
import { submissionView } from "../../../../../job-view"

/**
 * Virtual fitting of a product on the shopper: the garment is the product's packshot (its thumbnail or
 * first image), the category its `metadata.fitroom_category` or the plugin's default. The person is a
 * photo (`personImage`) or a digital twin (`digitalTwinId`). Bot-verified by Fitroom: send a solved
 * challenge in X-Challenge-Token, or the X-Fitroom-Pass an earlier answer gave.
 */
export const POST = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  const b = bodyOf(req)
  const problems: string[] = []
  if (b.personImage === undefined && b.digitalTwinId === undefined) problems.push("personImage or digitalTwinId is required")
  if (b.personImage !== undefined && b.digitalTwinId !== undefined) problems.push("send personImage or digitalTwinId, not both")
  if (b.personImage !== undefined && !isImageInput(b.personImage)) problems.push("personImage must be an http(s) URL or a data:image/(png|jpeg|webp|gif);base64 URL of at most 15 MB")
  if (b.digitalTwinId !== undefined && !(typeof b.digitalTwinId === "string" && /^[a-f0-9]{64}$/.test(b.digitalTwinId))) problems.push("digitalTwinId must be 64 lowercase hex characters")
  if (problems.length) throw new MedusaError(MedusaError.Types.INVALID_DATA, problems.join("; "))

  const fitroom = fitroomOf(req)
  const shopper = await shopperOf(req, b.cart_id)
  const product = await publishedProduct(req, ["thumbnail", "images.url", "metadata"])
  const garments = await garmentOf(product, fitroom.options)

  const person = b.digitalTwinId ? { digitalTwinId: b.digitalTwinId } : { personImages: [b.personImage] }
  const answer = await fitroom.client.shopperTryOn({ ...person, ...garments }, verificationOf(req))
  await fitroom.createFitroomTryOns({ job_id: answer.body.jobId, product_id: product.id, ...shopper })

  passOn(res, answer)
  res.setHeader("Cache-Control", "no-store")
  const view = submissionView(answer.body)
  res.status(view.status).json(view.body)
})
