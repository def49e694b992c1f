import { MedusaService } from "@medusajs/framework/utils"
import { FitroomProductModel } from "./models/product-model"
import { FitroomSizeChart } from "./models/size-chart"
import { FitroomTryOn } from "./models/tryon"
import { FitroomDigitalTwin } from "./models/digital-twin"
import { FitroomModel } from "./models/shown-model"
import { FitroomWebhookDelivery } from "./models/webhook-delivery"
import { FitroomClient } from "./client"
import { resolveOptions, type ResolvedOptions } from "./options"

/**
 * The fitroom module: the records above with Medusa's generated CRUD methods, the checked plugin
 * options and the one Fitroom client of the process. Routes, workflows and subscribers reach Fitroom
 * through this service, so the options are read and checked in one place, when Medusa loads it.
 */
class FitroomModuleService extends MedusaService({ FitroomProductModel, FitroomSizeChart, FitroomTryOn, FitroomDigitalTwin, FitroomModel, FitroomWebhookDelivery }) {
  readonly options: ResolvedOptions
  readonly client: FitroomClient

  constructor(container: Record<string, unknown>, options: unknown) {
    // eslint-disable-next-line prefer-rest-params
    super(...arguments)
    this.options = resolveOptions(options)
    this.client = new FitroomClient(this.options)
  }

  /** The chart that applies to a product: its own, else the first of its categories that has one. */
  async chartFor(productId: string, categoryIds: string[]) {
    const [own] = await this.listFitroomSizeCharts({ product_id: productId }, { take: 1 })
    if (own) return own
    if (!categoryIds.length) return null
    const byCategory = await this.listFitroomSizeCharts({ category_id: categoryIds })
    return categoryIds.map((id) => byCategory.find((c) => c.category_id === id)).find(Boolean) ?? null
  }
}

export default FitroomModuleService
