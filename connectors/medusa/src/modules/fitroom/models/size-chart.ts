import { model } from "@medusajs/framework/utils"

/**
 * A body-basis size chart (Fitroom size chart version 1) for one product or one product category.
 * A product's own chart wins over its categories' charts.
 */
export const FitroomSizeChart = model
  .define("fitroom_size_chart", {
    id: model.id({ prefix: "frsc" }).primaryKey(),
    product_id: model.text().nullable(),
    category_id: model.text().nullable(),
    garment_category: model.enum(["top", "bottom", "fullBody"]),
    chart: model.json(),
  })
  .indexes([
    { on: ["product_id"], unique: true, where: "product_id IS NOT NULL AND deleted_at IS NULL" },
    { on: ["category_id"], unique: true, where: "category_id IS NOT NULL AND deleted_at IS NULL" },
  ])
