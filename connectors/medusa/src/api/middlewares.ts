import { allowFields, authenticate, defineMiddlewares, validateAndTransformBody, validateAndTransformQuery, type MedusaNextFunction, type MedusaRequest, type MedusaResponse } from "@medusajs/framework/http"
import { z } from "@medusajs/framework/zod"

/** Person and face photos arrive as data URLs: those routes take bodies up to 20 MB, the others Medusa's default. */
const PHOTO_BODY = { sizeLimit: "20mb" }
const MAX_IMAGE_CHARS = 15 * 1024 * 1024
const IMAGE = /^(https?:\/\/\S+|data:image\/(png|jpeg|jpg|gif|webp);base64,[A-Za-z0-9+/=]+)$/

// zod's own messages name the field; these custom ones say it themselves
const image = (field: string) => z.string().max(MAX_IMAGE_CHARS, `${field} must be at most 15 MB`).regex(IMAGE, `${field} must be an http(s) URL or a data:image/(png|jpeg|webp|gif);base64 URL`)
const cartId = z.string().regex(/^cart_[A-Za-z0-9]{10,40}$/, "cart_id must be a cart id (cart_…)")

/** A guest names their cart; a signed-in customer needs nothing. */
export const StoreShopperQuery = z.object({ cart_id: cartId.optional() }).strict()
export const StoreShopperBody = z.object({ cart_id: cartId.optional() }).strict()

export const StoreTryOn = z
  .object({
    /** The shopper's photo; without it the shopper's ready digital twin is used. */
    person_image: image("person_image").optional(),
    cart_id: cartId.optional(),
  })
  .strict()

/** Centimetres; Fitroom's bounds (spec: BodyMeasurements), at least two. */
const measurements = z
  .object({
    height: z.number().min(140).max(210).optional(),
    chest: z.number().min(70).max(160).optional(),
    waist: z.number().min(55).max(170).optional(),
    hip: z.number().min(70).max(170).optional(),
    inseam: z.number().min(60).max(100).optional(),
  })
  .strict()
  .refine((m) => Object.values(m).filter((v) => v !== undefined).length >= 2, "body_measurements needs at least two measurements")

export const StoreCreateDigitalTwin = z
  .object({
    face_image: image("face_image"),
    body_measurements: measurements.optional(),
    clothing_size: z.object({ height: z.number().min(140).max(210), size: z.enum(["XS", "S", "M", "L", "XL", "XXL", "3XL"]) }).strict().optional(),
    gender: z.enum(["male", "female"]).optional(),
    cart_id: cartId.optional(),
  })
  .strict()
  .refine((b) => (b.body_measurements === undefined) !== (b.clothing_size === undefined), { message: "send body_measurements or clothing_size, one of them", path: ["body_measurements"] })

export const AdminTryOn = z.object({ person_image: image("person_image"), category: z.enum(["top", "bottom", "fullBody", "shoes"]).optional() }).strict()

export const AdminSizeChartQuery = z.object({ product_id: z.string().max(80).optional(), category_id: z.string().max(80).optional() }).strict()

/** The chart itself is checked field by field by sizeChartProblems (its problems come back as `details`). */
export const AdminSetSizeChart = z
  .object({
    product_id: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, "must be a Medusa id").optional(),
    category_id: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, "must be a Medusa id").optional(),
    garment_category: z.unknown(),
    chart: z.unknown(),
  })
  .strict()
  .refine((b) => (b.product_id === undefined) !== (b.category_id === undefined), { message: "name one product_id or one category_id", path: ["product_id"] })

export type StoreShopperQueryType = z.infer<typeof StoreShopperQuery>
export type StoreTryOnType = z.infer<typeof StoreTryOn>
export type StoreCreateDigitalTwinType = z.infer<typeof StoreCreateDigitalTwin>
export type AdminTryOnType = z.infer<typeof AdminTryOn>
export type AdminSetSizeChartType = z.infer<typeof AdminSetSizeChart>

/**
 * Medusa's store product routes return only allowed fields: the shown 3D model is one
 * (`fields=+fitroom_model.*`). Registered on `/store/*`, which Medusa's router orders before the product
 * routes' own query validation, so the field is allowed by the time it is checked.
 */
const allowModelField = allowFields("fitroom_model", "fitroom_model.*", ...["id", "glb_url", "usdz_url", "preview_url", "product_model_id", "updated_at"].map((f) => `fitroom_model.${f}`))
function allowFitroomModel(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  if (/^\/store\/products(\/[^/]+)?\/?$/.test(req.path)) return allowModelField(req, res, next)
  next()
}

/** Shopper routes work for guests (with their cart) and for signed-in customers. */
const shopper = authenticate("customer", ["session", "bearer"], { allowUnauthenticated: true })
const plainQuery = { defaults: [], isList: false }

export default defineMiddlewares({
  routes: [
    { matcher: "/store/*", method: ["GET"], middlewares: [allowFitroomModel] },
    { matcher: "/store/fitroom/products/:id/try-on", method: ["POST"], bodyParser: PHOTO_BODY, middlewares: [shopper, validateAndTransformBody(StoreTryOn)] },
    { matcher: "/store/fitroom/products/:id/size-fitting", method: ["POST"], middlewares: [shopper, validateAndTransformBody(StoreShopperBody)] },
    { matcher: "/store/fitroom/digital-twin", method: ["POST"], bodyParser: PHOTO_BODY, middlewares: [shopper, validateAndTransformBody(StoreCreateDigitalTwin)] },
    { matcher: "/store/fitroom/digital-twin", method: ["GET", "DELETE"], middlewares: [shopper, validateAndTransformQuery(StoreShopperQuery, plainQuery)] },
    { matcher: "/store/fitroom/jobs/:jobId", method: ["GET"], middlewares: [shopper, validateAndTransformQuery(StoreShopperQuery, plainQuery)] },
    { matcher: "/admin/fitroom/products/:id/try-on", method: ["POST"], bodyParser: PHOTO_BODY, middlewares: [validateAndTransformBody(AdminTryOn)] },
    { matcher: "/admin/fitroom/size-charts", method: ["GET"], middlewares: [validateAndTransformQuery(AdminSizeChartQuery, plainQuery)] },
    { matcher: "/admin/fitroom/size-charts", method: ["POST"], middlewares: [validateAndTransformBody(AdminSetSizeChart)] },
    // Fitroom's webhooks are signed over their bytes: the route reads the body as received
    { matcher: "/hooks/fitroom/:token", method: ["POST"], bodyParser: { preserveRawBody: true } },
  ],
})
