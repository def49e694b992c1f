import { model } from "@medusajs/framework/utils"

/**
 * A product's 3D model made by Fitroom from its photos. `ready` models are previewed in the admin;
 * only an `attached` one is shown to shoppers. Files live in the store's File module.
 */
export const FitroomProductModel = model
  .define("fitroom_product_model", {
    id: model.id({ prefix: "frpm" }).primaryKey(),
    product_id: model.text(),
    status: model.enum(["processing", "ready", "attached", "failed"]).default("processing"),
    job_id: model.text().nullable(),
    progress: model.number().default(0),
    glb_file_id: model.text().nullable(),
    glb_url: model.text().nullable(),
    usdz_file_id: model.text().nullable(),
    usdz_url: model.text().nullable(),
    preview_file_id: model.text().nullable(),
    preview_url: model.text().nullable(),
    error_code: model.text().nullable(),
    error_message: model.text().nullable(),
    source_images: model.json().nullable(),
  })
  .indexes([
    { on: ["product_id"] },
    { on: ["status"] },
    { on: ["job_id"], unique: true, where: "job_id IS NOT NULL AND deleted_at IS NULL" },
  ])
