import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import type { ShopperVerification } from "../../../modules/fitroom/client"
import { header } from "../../fitroom-http"

/** Who a shopper's try-on belongs to: the signed-in customer, else the cart the request names. */
export interface Shopper {
  customer_id: string | null
  cart_id: string | null
}

export async function shopperOf(req: MedusaRequest, cartId: unknown): Promise<Shopper> {
  const customer = (req as MedusaRequest & { auth_context?: { actor_id?: string } }).auth_context?.actor_id
  if (customer) return { customer_id: customer, cart_id: null }
  if (typeof cartId !== "string" || !/^cart_[A-Za-z0-9]{10,40}$/.test(cartId)) {
    throw new MedusaError(MedusaError.Types.UNAUTHORIZED, "Sign in as a customer, or name your cart (cart_id), to try products on")
  }
  const { data } = await req.scope.resolve("query").graph({ entity: "cart", fields: ["id"], filters: { id: cartId } })
  if (!data.length) throw new MedusaError(MedusaError.Types.UNAUTHORIZED, "The cart_id does not name a cart of this store")
  return { customer_id: null, cart_id: cartId }
}

export function ownedBy(record: { customer_id: string | null; cart_id: string | null }, s: Shopper): boolean {
  return record.customer_id ? record.customer_id === s.customer_id : record.cart_id !== null && record.cart_id === s.cart_id
}

/** The shopper's bot verification: a solved challenge (X-Challenge-Token) or the pass from an earlier answer (X-Fitroom-Pass). */
export function verificationOf(req: MedusaRequest): ShopperVerification {
  return { challengeToken: header(req, "x-challenge-token"), pass: header(req, "x-fitroom-pass") }
}

/** Hands a fresh pass and its remaining seconds to the page, readable across origins. */
export function passOn(res: MedusaResponse, a: { pass?: string; ttlSeconds?: number }) {
  res.setHeader("Access-Control-Expose-Headers", "X-Fitroom-Pass, X-Fitroom-Verification-TTL")
  if (a.pass) res.setHeader("X-Fitroom-Pass", a.pass)
  if (a.ttlSeconds !== undefined && Number.isFinite(a.ttlSeconds)) res.setHeader("X-Fitroom-Verification-TTL", String(a.ttlSeconds))
}

/** A published product with the fields the routes need, or 404. */
export async function publishedProduct(req: MedusaRequest, fields: string[]) {
  const { data } = await req.scope.resolve("query").graph({ entity: "product", fields: ["id", "status", ...fields], filters: { id: req.params.id } })
  const p = data[0] as Record<string, any> | undefined
  if (!p || p.status !== "published") throw new MedusaError(MedusaError.Types.NOT_FOUND, `Product ${req.params.id} was not found`)
  return p
}
