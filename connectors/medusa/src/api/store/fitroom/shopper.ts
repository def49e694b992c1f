import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import type { ShopperVerification } from "../../../modules/fitroom/client"
import { fitroomOf, header } from "../../fitroom-http"
import type { DigitalTwinRecord } from "../../../workflows/digital-twin"

/** Who a shopper's request is for: the signed-in customer, else the cart the request names. */
export interface Shopper {
  customer_id: string | null
  cart_id: string | null
}

type StoreRequest = MedusaRequest & {
  auth_context?: { actor_id?: string }
  publishable_key_context?: { sales_channel_ids?: string[] }
  validatedBody?: { cart_id?: string }
  validatedQuery?: { cart_id?: string }
}

/** The customer of the session or bearer token, else the cart named by `cart_id` (body or query), which must exist. */
export async function shopperOf(req: MedusaRequest): Promise<Shopper> {
  const r = req as StoreRequest
  const customer = r.auth_context?.actor_id
  if (customer) return { customer_id: customer, cart_id: null }
  const cartId = r.validatedBody?.cart_id ?? r.validatedQuery?.cart_id
  if (!cartId) throw new MedusaError(MedusaError.Types.UNAUTHORIZED, "Sign in as a customer, or name your cart (cart_id)", "SHOPPER_REQUIRED")
  const { data } = await req.scope.resolve("query").graph({ entity: "cart", fields: ["id"], filters: { id: cartId } })
  if (!data.length) throw new MedusaError(MedusaError.Types.UNAUTHORIZED, "The cart_id does not name a cart of this store", "SHOPPER_REQUIRED")
  return { customer_id: null, cart_id: cartId }
}

export function ownedBy(record: { customer_id: string | null; cart_id: string | null }, s: Shopper): boolean {
  return record.customer_id ? record.customer_id === s.customer_id : record.cart_id !== null && record.cart_id === s.cart_id
}

/**
 * The shopper as Fitroom should count them: a stable id (the customer, else the cart) and their
 * address as Express sees it under Medusa's trusted-proxy setting (`req.ip`), plus the bot-verification
 * proof the page sent: a solved challenge (X-Challenge-Token) or the pass of an earlier answer (X-Fitroom-Pass).
 */
export function verificationOf(req: MedusaRequest, s: Shopper): ShopperVerification {
  return {
    challengeToken: header(req, "x-challenge-token"),
    pass: header(req, "x-fitroom-pass"),
    shopper: { id: s.customer_id ? `customer:${s.customer_id}` : `cart:${s.cart_id}`, ip: req.ip || undefined },
  }
}

/** Hands a fresh pass and its remaining seconds to the page, readable across origins. */
export function passOn(res: MedusaResponse, a: { pass?: string; ttlSeconds?: number }) {
  res.setHeader("Access-Control-Expose-Headers", "X-Fitroom-Pass, X-Fitroom-Verification-TTL")
  if (a.pass) res.setHeader("X-Fitroom-Pass", a.pass)
  if (a.ttlSeconds !== undefined && Number.isFinite(a.ttlSeconds)) res.setHeader("X-Fitroom-Verification-TTL", String(a.ttlSeconds))
}

/**
 * The product as the store API shows it to this publishable key: published and in one of the key's
 * sales channels, or 404 (before anything reaches Fitroom), as Medusa's own GET /store/products/:id.
 */
export async function productInScope(req: MedusaRequest, fields: string[]) {
  const channels = (req as StoreRequest).publishable_key_context?.sales_channel_ids ?? []
  const notFound = () => new MedusaError(MedusaError.Types.NOT_FOUND, `Product with id: ${req.params.id} was not found`)
  if (!channels.length) throw notFound()
  const query = req.scope.resolve("query")
  const { data: inChannel } = await query.graph({ entity: "product_sales_channel", fields: ["product_id"], filters: { product_id: req.params.id, sales_channel_id: channels } })
  if (!inChannel.length) throw notFound()
  const { data } = await query.graph({ entity: "product", fields: ["id", "status", ...fields], filters: { id: req.params.id } })
  const p = data[0] as Record<string, any> | undefined
  if (!p || p.status !== "published") throw notFound()
  return p
}

export function twinView(t: DigitalTwinRecord & { created_at?: Date | string }) {
  return { id: t.id, status: t.status, digital_twin_id: t.digital_twin_id, mode: t.mode, error_code: t.error_code, error_message: t.error_message, created_at: t.created_at ?? null }
}

/** The shopper's twin record (the newest), or null. */
export async function twinOfShopper(req: MedusaRequest, s: Shopper) {
  const [twin] = await fitroomOf(req).listFitroomDigitalTwins(s.customer_id ? { customer_id: s.customer_id } : { cart_id: s.cart_id }, { order: { created_at: "DESC" }, take: 1 })
  return twin ?? null
}

