import { model } from "@medusajs/framework/utils"

/**
 * Who started a shopper's try-on job. Fitroom owns the job under the store's storefront namespace;
 * this record keeps each job visible only to the customer or cart that submitted it.
 */
export const FitroomTryOn = model
  .define("fitroom_tryon", {
    id: model.id({ prefix: "frto" }).primaryKey(),
    job_id: model.text(),
    product_id: model.text(),
    customer_id: model.text().nullable(),
    cart_id: model.text().nullable(),
  })
  .indexes([{ on: ["job_id"], unique: true, where: "deleted_at IS NULL" }])
