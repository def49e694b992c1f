import { createStep, createWorkflow, StepResponse, transform, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { createRemoteLinkStep, useQueryGraphStep } from "@medusajs/medusa/core-flows"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"
import { productImageInputs } from "./images"

/** GLB files of up to 20 MB come back from Fitroom (spec, shoe-3d); a little headroom for the preview. */
const MAX_RESULT_BYTES = 25 * 1024 * 1024

type ProductWithImages = { id: string; thumbnail?: string | null; images?: { url: string }[] | null }

export interface GenerateProductModelInput {
  product_id: string
}

export interface StoreProductModelInput {
  model_id: string
  product_id: string
  /** Fitroom's result file URLs of the finished job. */
  glb_url: string
  preview_url?: string
  usdz_url?: string
}

/** The files stored in the File module, by kind (glb, usdz, preview). */
export type ProductModelFiles = Record<string, { id: string; url: string }>

/** The product's photos, packshot first: the thumbnail, then the gallery in its order, each once. */
export function productPhotos(p: ProductWithImages): string[] {
  const urls = [p.thumbnail, ...(p.images ?? []).map((i) => i.url)].filter((u): u is string => typeof u === "string" && u.length > 0)
  return [...new Set(urls)].slice(0, 8)
}

/**
 * Creates the record and submits the photos to Fitroom. Compensation cancels the Fitroom job and
 * removes the record, so a failure later in the workflow leaves neither behind.
 */
export const submitProductModelStep = createStep(
  "fitroom-submit-product-model",
  async (input: { product_id: string; images: string[] }, { container }) => {
    const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
    if (!input.images.length) throw new MedusaError(MedusaError.Types.INVALID_DATA, "The product has no images: add photos of the product (several angles) before generating a 3D model")
    const running = await fitroom.listFitroomProductModels({ product_id: input.product_id, status: "processing" }, { take: 1 })
    if (running.length) throw new MedusaError(MedusaError.Types.CONFLICT, `A 3D model of this product is being generated already (${running[0].id})`)
    const sent = await productImageInputs(input.images, fitroom.options)
    const submitted = await fitroom.client.shoe3d({ images: sent, options: { productType: "auto" } })
    try {
      const created = await fitroom.createFitroomProductModels({ product_id: input.product_id, status: "processing", job_id: submitted.jobId, source_images: { urls: input.images } })
      return new StepResponse(created, { id: created.id, job_id: submitted.jobId })
    } catch (e) {
      await fitroom.client.cancel(submitted.jobId).catch(() => undefined)
      throw e
    }
  },
  async (made, { container }) => {
    if (!made) return
    const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
    await fitroom.client.cancel(made.job_id).catch(() => undefined)
    await fitroom.deleteFitroomProductModels(made.id)
  }
)

/** Generate 3D: check the product, submit its photos, link the new record to it. */
export const generateProductModelWorkflow = createWorkflow("fitroom-generate-product-model", (input: GenerateProductModelInput) => {
  const { data: products } = useQueryGraphStep({
    entity: "product",
    fields: ["id", "thumbnail", "images.url"],
    filters: { id: input.product_id },
    options: { throwIfKeyNotFound: true },
  })
  const images = transform({ products }, ({ products }) => productPhotos(products[0] as ProductWithImages))
  const model = submitProductModelStep({ product_id: input.product_id, images })
  const links = transform({ model }, ({ model }) => [{ [Modules.PRODUCT]: { product_id: model.product_id }, [FITROOM_MODULE]: { fitroom_product_model_id: model.id } }])
  createRemoteLinkStep(links)
  return new WorkflowResponse(model)
})

/**
 * Copies the finished model's files into the store's File module. Compensation deletes them, so a
 * later failure (the product deleted meanwhile) leaves no orphan file.
 */
export const storeModelFilesStep = createStep(
  "fitroom-store-model-files",
  async (input: { model_id: string; glb_url: string; preview_url?: string; usdz_url?: string }, { container }) => {
    const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
    const files = container.resolve(Modules.FILE)
    const wanted = [
      { key: "glb", url: input.glb_url, filename: `${input.model_id}.glb`, mimeType: "model/gltf-binary" },
      { key: "usdz", url: input.usdz_url, filename: `${input.model_id}.usdz`, mimeType: "model/vnd.usdz+zip" },
      { key: "preview", url: input.preview_url, filename: `${input.model_id}-preview.png`, mimeType: "image/png" },
    ].filter((w): w is typeof w & { url: string } => typeof w.url === "string")
    const stored: Record<string, { id: string; url: string }> = {}
    try {
      for (const w of wanted) {
        const { bytes } = await fitroom.client.download(w.url, MAX_RESULT_BYTES)
        const [file] = await files.createFiles([{ filename: w.filename, mimeType: w.mimeType, content: bytes.toString("base64"), access: "public" }])
        stored[w.key] = { id: file.id, url: file.url }
      }
    } catch (e) {
      // the step failed, so its compensation will not run: remove what this attempt stored
      const ids = Object.values(stored).map((f) => f.id)
      if (ids.length) await files.deleteFiles(ids).catch(() => undefined)
      throw e
    }
    return new StepResponse(stored, Object.values(stored).map((f) => f.id))
  },
  async (ids, { container }) => {
    if (ids?.length) await container.resolve(Modules.FILE).deleteFiles(ids)
  }
)

/** The product must still exist when its model is ready; a product deleted mid-job fails here. */
export const confirmProductStep = createStep("fitroom-confirm-product", async (input: { product_id: string }, { container }) => {
  const query = container.resolve("query")
  const { data } = await query.graph({ entity: "product", fields: ["id"], filters: { id: input.product_id } })
  if (!data.length) throw new MedusaError(MedusaError.Types.NOT_FOUND, `Product ${input.product_id} was deleted while its 3D model was being made`)
  return new StepResponse(true)
})

export const markModelReadyStep = createStep(
  "fitroom-mark-model-ready",
  async (input: { model_id: string; files: Record<string, { id: string; url: string }> }, { container }) => {
    const fitroom = container.resolve<FitroomModuleService>(FITROOM_MODULE)
    const before = await fitroom.retrieveFitroomProductModel(input.model_id)
    const f = input.files
    const updated = await fitroom.updateFitroomProductModels({
      id: input.model_id,
      status: "ready",
      progress: 100,
      glb_file_id: f.glb?.id ?? null,
      glb_url: f.glb?.url ?? null,
      usdz_file_id: f.usdz?.id ?? null,
      usdz_url: f.usdz?.url ?? null,
      preview_file_id: f.preview?.id ?? null,
      preview_url: f.preview?.url ?? null,
      error_code: null,
      error_message: null,
    })
    return new StepResponse(updated, before)
  },
  async (before, { container }) => {
    if (!before) return
    const { id, status, progress, glb_file_id, glb_url, usdz_file_id, usdz_url, preview_file_id, preview_url, error_code, error_message } = before
    await container.resolve<FitroomModuleService>(FITROOM_MODULE).updateFitroomProductModels({ id, status, progress, glb_file_id, glb_url, usdz_file_id, usdz_url, preview_file_id, preview_url, error_code, error_message })
  }
)

/** A finished Fitroom job becomes a ready model: files stored, product checked, record updated. */
export const storeProductModelWorkflow = createWorkflow(
  "fitroom-store-product-model",
  (input: StoreProductModelInput) => {
    const files = storeModelFilesStep({ model_id: input.model_id, glb_url: input.glb_url, preview_url: input.preview_url, usdz_url: input.usdz_url })
    confirmProductStep({ product_id: input.product_id })
    const model = markModelReadyStep({ model_id: input.model_id, files })
    return new WorkflowResponse(model)
  }
)
