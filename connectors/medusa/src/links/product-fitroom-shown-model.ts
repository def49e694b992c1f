import { defineLink } from "@medusajs/framework/utils"
import ProductModule from "@medusajs/medusa/product"
import FitroomModule from "../modules/fitroom"

/** The 3D model a product shows: `GET /store/products?fields=+fitroom_model.*` returns it with the product. */
export default defineLink(ProductModule.linkable.product, { linkable: FitroomModule.linkable.fitroomModel, deleteCascade: true })
