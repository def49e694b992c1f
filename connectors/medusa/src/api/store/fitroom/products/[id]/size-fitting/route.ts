import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { fitroomOf, fitroomRoute } from "../../../../../fitroom-http"
import { productInScope, shopperOf, twinOfShopper } from "../../../shopper"

/**
 * The size the shopper's digital twin should take in this product, from the product's size chart (or
 * its category's). Answers Fitroom's estimate: `available`, and when available the recommended size,
 * alternatives, per-dimension fit and the reason.
 */
export const POST = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  const shopper = await shopperOf(req)
  const product = await productInScope(req, ["categories.id"])
  const twin = await twinOfShopper(req, shopper)
  if (!twin) throw new MedusaError(MedusaError.Types.INVALID_DATA, "Make your digital twin first (POST /store/fitroom/digital-twin)", "TWIN_REQUIRED")
  if (twin.status !== "ready" || !twin.digital_twin_id) throw new MedusaError(MedusaError.Types.INVALID_DATA, `Your digital twin is ${twin.status}: try again when it is ready`, "TWIN_NOT_READY")
  const chart = await fitroom.chartFor(product.id, (product.categories ?? []).map((c: { id: string }) => c.id))
  if (!chart) throw new MedusaError(MedusaError.Types.NOT_FOUND, "This product has no size chart", "SIZE_CHART_NOT_FOUND")
  const answer = await fitroom.client.sizeFitting({
    digitalTwinId: twin.digital_twin_id,
    products: [{ id: product.id, category: chart.garment_category, sizeChart: chart.chart }],
  })
  const products = Array.isArray(answer.products) ? answer.products : []
  res.setHeader("Cache-Control", "no-store")
  res.json({ available: answer.available === true, digital_twin_id: twin.digital_twin_id, size: products[0] ?? null })
})
