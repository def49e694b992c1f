import { defineLink } from "@medusajs/framework/utils"
import CustomerModule from "@medusajs/medusa/customer"
import FitroomModule from "../modules/fitroom"

/** A customer's digital twin; deleting the customer deletes it (the customer-deleted subscriber also removes it). */
export default defineLink(CustomerModule.linkable.customer, { linkable: FitroomModule.linkable.fitroomDigitalTwin, deleteCascade: true })
