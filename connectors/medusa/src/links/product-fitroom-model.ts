import { defineLink } from "@medusajs/framework/utils"
import ProductModule from "@medusajs/medusa/product"
import FitroomModule from "../modules/fitroom"

/** A product has 3D models; deleting the product deletes them. */
export default defineLink(ProductModule.linkable.product, { linkable: FitroomModule.linkable.fitroomProductModel, isList: true, deleteCascade: true })
