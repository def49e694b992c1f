import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { fitroomOf, fitroomRoute } from "../../../fitroom-http"
import { passOn, shopperOf, twinOfShopper, twinView, verificationOf } from "../shopper"
import type { StoreCreateDigitalTwinType } from "../../../middlewares"
import { advanceDigitalTwin, createDigitalTwinWorkflow, removeDigitalTwins } from "../../../../workflows/digital-twin"

/**
 * Makes the shopper's digital twin from a face photo and body measurements or a clothing size. Bot-verified
 * like try-on (X-Challenge-Token or X-Fitroom-Pass); replaces the shopper's earlier twin. Answers 202 while
 * Fitroom makes it (GET this route until `status` is `ready`), 201 when Fitroom already had it.
 */
export const POST = fitroomRoute(async (req: MedusaRequest<StoreCreateDigitalTwinType>, res: MedusaResponse) => {
  const b = req.validatedBody
  const shopper = await shopperOf(req)
  const fitroom = fitroomOf(req)
  const verified = await fitroom.client.verifyShopper(verificationOf(req, shopper))
  const request = {
    faceImage: b.face_image,
    ...(b.body_measurements ? { bodyMeasurements: b.body_measurements as Record<string, number> } : {}),
    ...(b.clothing_size ? { clothingSize: b.clothing_size } : {}),
    ...(b.gender ? { gender: b.gender } : {}),
  }
  passOn(res, verified)
  const { result } = await createDigitalTwinWorkflow(req.scope).run({ input: { ...shopper, request } })
  res.setHeader("Cache-Control", "no-store")
  res.status(result.status === "ready" ? 201 : 202).json({ digital_twin: twinView(result) })
})

/** The shopper's twin, moved on first while Fitroom is making it; 404 when the shopper has none. */
export const GET = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  const shopper = await shopperOf(req)
  let twin = await twinOfShopper(req, shopper)
  if (twin?.status === "processing") {
    await advanceDigitalTwin(req.scope, twin.id)
    twin = await twinOfShopper(req, shopper)
  }
  if (!twin) throw new MedusaError(MedusaError.Types.NOT_FOUND, "You have no digital twin yet", "TWIN_NOT_FOUND")
  res.setHeader("Cache-Control", "no-store")
  res.json({ digital_twin: twinView(twin) })
})

/** Deletes the shopper's twin (the record and its customer link). */
export const DELETE = async (req: MedusaRequest, res: MedusaResponse) => {
  const shopper = await shopperOf(req)
  const removed = await removeDigitalTwins(req.scope, shopper.customer_id ? { customer_id: shopper.customer_id } : { cart_id: shopper.cart_id! })
  if (!removed.length) throw new MedusaError(MedusaError.Types.NOT_FOUND, "You have no digital twin", "TWIN_NOT_FOUND")
  res.json({ id: removed[0], object: "fitroom_digital_twin", deleted: true })
}
