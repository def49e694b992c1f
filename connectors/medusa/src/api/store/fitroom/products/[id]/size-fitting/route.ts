import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { bodyOf, fitroomOf, fitroomRoute } from "../../../../../fitroom-http"
import { publishedProduct } from "../../../shopper"

/**
 * The size a shopper's digital twin should take in this product, from the product's size chart (or
 * its category's). Answers Fitroom's estimate: `available`, and when available the recommended
 * size, alternatives and per-dimension fit.
 */
export const POST = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  const b = bodyOf(req)
  if (typeof b.digitalTwinId !== "string" || !/^[a-f0-9]{64}$/.test(b.digitalTwinId)) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, "digitalTwinId must be 64 lowercase hex characters (the twin made by the widget or POST /api/v1/digital-twin)")
  }
  const fitroom = fitroomOf(req)
  const product = await publishedProduct(req, ["categories.id"])
  const chart = await fitroom.chartFor(product.id, (product.categories ?? []).map((c: { id: string }) => c.id))
  if (!chart) throw new MedusaError(MedusaError.Types.NOT_FOUND, "This product has no size chart")
  const answer = await fitroom.client.sizeFitting({
    digitalTwinId: b.digitalTwinId,
    products: [{ id: product.id, category: chart.garment_category, sizeChart: chart.chart }],
  })
  const products = Array.isArray(answer.products) ? answer.products : []
  res.setHeader("Cache-Control", "no-store")
  res.json({ available: answer.available === true, size: products[0] ?? null })
})
