import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { Modules } from "@medusajs/framework/utils"
import { fitroomOf } from "../../../../fitroom-http"
import { FITROOM_MODULE } from "../../../../../modules/fitroom"

export const DELETE = async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  const chart = await fitroom.retrieveFitroomSizeChart(req.params.chartId)
  if (chart.product_id) await req.scope.resolve("link").dismiss({ [Modules.PRODUCT]: { product_id: chart.product_id }, [FITROOM_MODULE]: { fitroom_size_chart_id: chart.id } })
  await fitroom.deleteFitroomSizeCharts(chart.id)
  res.json({ id: chart.id, object: "fitroom_size_chart", deleted: true })
}
