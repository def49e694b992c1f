import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { fitroomOf, fitroomRoute } from "../../../fitroom-http"

/** A bot-verification challenge for the shopper's browser to solve before its first try-on. */
export const GET = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  res.setHeader("Cache-Control", "no-store")
  res.json(await fitroomOf(req).client.challenge())
})
