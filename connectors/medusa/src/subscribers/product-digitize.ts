import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ProductWorkflowEvents } from "@medusajs/framework/utils"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"
import { generateProductModelWorkflow, productPhotos } from "../workflows/product-model"

/**
 * With `autoDigitize`, a product that is created with photos, or whose photos change, gets a 3D model
 * generated. A product whose latest model was made from the same photos, or is being made, is left
 * alone, so ordinary edits (title, prices) do not start jobs. `metadata.fitroom_3d: false` opts out.
 */
export default async function digitizeProduct({ event: { data }, container }: SubscriberArgs<{ id: string }>) {
  const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
  if (!fitroom.options.autoDigitize) return
  const logger = container.resolve("logger")
  const query = container.resolve("query")
  const { data: [product] } = await query.graph({ entity: "product", fields: ["id", "thumbnail", "images.url", "metadata"], filters: { id: data.id } })
  if (!product || (product.metadata as Record<string, unknown> | null)?.fitroom_3d === false) return
  const photos = productPhotos(product as never)
  if (!photos.length) return
  const [latest] = await fitroom.listFitroomProductModels({ product_id: product.id }, { order: { created_at: "DESC" }, take: 1 })
  if (latest && (latest.status === "processing" || JSON.stringify((latest.source_images as { urls?: string[] } | null)?.urls) === JSON.stringify(photos))) return
  try {
    await generateProductModelWorkflow(container).run({ input: { product_id: product.id } })
  } catch (e) {
    logger.warn(`fitroom: 3D generation for product ${product.id} was not started: ${(e as Error).message}`)
  }
}

export const config: SubscriberConfig = { event: [ProductWorkflowEvents.CREATED, ProductWorkflowEvents.UPDATED] }
