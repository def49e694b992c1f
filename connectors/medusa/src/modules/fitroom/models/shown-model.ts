import { model } from "@medusajs/framework/utils"

/**
 * The 3D model a product shows to shoppers: a copy of the attached model's file URLs, linked to the
 * product, so the store's product API returns it (`GET /store/products?fields=+fitroom_model.*`).
 */
export const FitroomModel = model
  .define("fitroom_model", {
    id: model.id({ prefix: "frm" }).primaryKey(),
    product_id: model.text(),
    product_model_id: model.text(),
    glb_url: model.text().nullable(),
    usdz_url: model.text().nullable(),
    preview_url: model.text().nullable(),
  })
  .indexes([{ on: ["product_id"], unique: true, where: "deleted_at IS NULL" }])
