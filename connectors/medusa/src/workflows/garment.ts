import { MedusaError } from "@medusajs/framework/utils"
import type { ResolvedOptions, GarmentCategory } from "../modules/fitroom/options"
import { GARMENT_CATEGORIES } from "../modules/fitroom/options"
import { productPhotos } from "./product-model"
import { productImageInputs } from "./images"

const SLOT: Record<Exclude<GarmentCategory, "shoes">, string> = { top: "topGarment", bottom: "bottomGarment", fullBody: "fullBodyGarment" }

/**
 * The garment fields of a Fitroom virtual fitting for a product: its packshot (thumbnail or first
 * image) in the slot of its category (`metadata.fitroom_category`, else the asked or default one);
 * shoes go as the product image, as Fitroom takes them without clothing.
 */
export async function garmentOf(product: Record<string, any>, opts: ResolvedOptions, asked?: GarmentCategory): Promise<Record<string, string>> {
  const [packshot] = productPhotos(product as never)
  if (!packshot) throw new MedusaError(MedusaError.Types.INVALID_DATA, "This product has no image to try on")
  const declared = (product.metadata ?? {}).fitroom_category
  const category: GarmentCategory = asked ?? (GARMENT_CATEGORIES.includes(declared) ? declared : opts.defaultCategory)
  const [garment] = await productImageInputs([packshot], opts)
  return category === "shoes" ? { productImage: garment, productCategory: "shoe" } : { [SLOT[category]]: garment }
}
