import { model } from "@medusajs/framework/utils"

/**
 * A shopper's digital twin (Fitroom's, made from a face photo and measurements or a clothing size).
 * A customer's twin is linked to the customer (and goes when the customer is deleted); a guest's is
 * kept on their cart. `digital_twin_id` is Fitroom's id once the twin job has completed.
 */
export const FitroomDigitalTwin = model
  .define("fitroom_digital_twin", {
    id: model.id({ prefix: "frdt" }).primaryKey(),
    customer_id: model.text().nullable(),
    cart_id: model.text().nullable(),
    status: model.enum(["processing", "ready", "failed"]).default("processing"),
    job_id: model.text().nullable(),
    digital_twin_id: model.text().nullable(),
    mode: model.text(),
    error_code: model.text().nullable(),
    error_message: model.text().nullable(),
  })
  .indexes([
    { on: ["customer_id"], where: "customer_id IS NOT NULL AND deleted_at IS NULL" },
    { on: ["cart_id"], where: "cart_id IS NOT NULL AND deleted_at IS NULL" },
    { on: ["job_id"], unique: true, where: "job_id IS NOT NULL AND deleted_at IS NULL" },
  ])
