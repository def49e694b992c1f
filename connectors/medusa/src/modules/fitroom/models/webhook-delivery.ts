import { model } from "@medusajs/framework/utils"

/** A Fitroom webhook delivery already handled (its X-Webhook-Id): a redelivery changes nothing. */
export const FitroomWebhookDelivery = model
  .define("fitroom_webhook_delivery", {
    id: model.id({ prefix: "frwh" }).primaryKey(),
    delivery_id: model.text(),
    event: model.text(),
    job_id: model.text().nullable(),
  })
  .indexes([{ on: ["delivery_id"], unique: true }])
