import { defineLink } from "@medusajs/framework/utils"
import ProductModule from "@medusajs/medusa/product"
import FitroomModule from "../modules/fitroom"

/** A product's own size chart; deleting the product deletes it. */
export default defineLink(ProductModule.linkable.product, { linkable: FitroomModule.linkable.fitroomSizeChart, deleteCascade: true })
