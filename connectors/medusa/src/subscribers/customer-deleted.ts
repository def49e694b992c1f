import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { CustomerWorkflowEvents } from "@medusajs/framework/utils"
import { removeDigitalTwins } from "../workflows/digital-twin"

/** A deleted customer's digital twin goes with them. */
export default async function customerDeleted({ event: { data }, container }: SubscriberArgs<{ id: string }>) {
  await removeDigitalTwins(container, { customer_id: data.id })
}

export const config: SubscriberConfig = { event: CustomerWorkflowEvents.DELETED }
