import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { fitroomOf } from "../../../fitroom-http"
import type { AdminSetSizeChartType } from "../../../middlewares"
import { sizeChartProblems } from "../../../../modules/fitroom/size-chart"
import { FITROOM_MODULE } from "../../../../modules/fitroom"

/** Size charts, filtered by `product_id` or `category_id`. */
export const GET = async (req: MedusaRequest, res: MedusaResponse) => {
  const q = req.validatedQuery as { product_id?: string; category_id?: string }
  const filters: Record<string, string> = {}
  if (q.product_id) filters.product_id = q.product_id
  if (q.category_id) filters.category_id = q.category_id
  res.json({ size_charts: await fitroomOf(req).listFitroomSizeCharts(filters, { order: { created_at: "DESC" }, take: 200 }) })
}

/**
 * Sets the size chart of a product (`product_id`) or of a category (`category_id`): a Fitroom size
 * chart version 1 (`chart`) for a garment category (`garment_category`). Replaces the one it had.
 */
export const POST = async (req: MedusaRequest<AdminSetSizeChartType>, res: MedusaResponse) => {
  const b = req.validatedBody
  const problems = sizeChartProblems(b.chart, b.garment_category)
  const target = b.product_id !== undefined ? "product" : "category"
  const id = target === "product" ? b.product_id : b.category_id
  if (problems.length) {
    return void res.status(400).json({ type: "invalid_data", message: problems.map((p) => `${p.field}: ${p.message}`).join("; "), details: problems })
  }
  const query = req.scope.resolve("query")
  const { data } = await query.graph({ entity: target === "product" ? "product" : "product_category", fields: ["id"], filters: { id: id as string } })
  if (!data.length) throw new MedusaError(MedusaError.Types.NOT_FOUND, `${target === "product" ? "Product" : "Category"} ${id as string} was not found`)

  const fitroom = fitroomOf(req)
  const key = target === "product" ? { product_id: id as string } : { category_id: id as string }
  const [existing] = await fitroom.listFitroomSizeCharts(key, { take: 1 })
  const values = { garment_category: b.garment_category as "top" | "bottom" | "fullBody", chart: b.chart as Record<string, unknown> }
  const chart = existing ? await fitroom.updateFitroomSizeCharts({ id: existing.id, ...values }) : await fitroom.createFitroomSizeCharts({ ...key, ...values })
  if (!existing && target === "product") {
    await req.scope.resolve("link").create({ [Modules.PRODUCT]: { product_id: id }, [FITROOM_MODULE]: { fitroom_size_chart_id: chart.id } })
  }
  res.status(existing ? 200 : 201).json({ size_chart: chart })
}
