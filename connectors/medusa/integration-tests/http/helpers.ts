import { execFileSync } from "node:child_process"
import { EventEmitter } from "node:events"
import { readFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import path from "node:path"
import type { MedusaContainer } from "@medusajs/framework/types"
import { generateJwtToken, Modules } from "@medusajs/framework/utils"
import { solveChallenge } from "altcha-lib/v1"

export const FITROOM_URL = process.env.FITROOM_URL!
export const FITROOM_KEY = process.env.FITROOM_API_KEY!
export const PHOTOS = process.env.PHOTOS_URL!
export const photo = (p: string) => `${PHOTOS}/${p}`
export const SHOE_VIEWS = ["shoe-0", "shoe-45", "shoe-90", "shoe-135"].map((v) => photo(`examples/assets/${v}.png`))
export const JWT_SECRET = "supersecret" // medusa-config.ts default

export interface Answer {
  status: number
  data: any
  headers: Record<string, string>
}

/** Calls the Medusa app the runner started; any status comes back (axios would throw on 4xx). */
export function caller(api: any) {
  return async (method: "get" | "post" | "delete", url: string, o: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> => {
    // a fresh connection per call: a kept-alive socket the app closed between tests resets (ECONNRESET)
    const config = { headers: { connection: "close", ...o.headers }, validateStatus: () => true }
    const r = method === "post" ? await api.post(url, o.body ?? {}, config) : await api[method](url, config)
    return { status: r.status, data: r.data, headers: r.headers }
  }
}

/** An admin user and the bearer header Medusa's admin routes accept. */
export async function adminHeaders(container: MedusaContainer): Promise<Record<string, string>> {
  const user = await container.resolve(Modules.USER).createUsers({ email: "merchant@shop.test", first_name: "Mia" })
  const identity = await container.resolve(Modules.AUTH).createAuthIdentities({ provider_identities: [{ provider: "emailpass", entity_id: "merchant@shop.test" }], app_metadata: { user_id: user.id } })
  const token = generateJwtToken({ actor_id: user.id, actor_type: "user", auth_identity_id: identity.id, app_metadata: { user_id: user.id } }, { secret: JWT_SECRET, expiresIn: "1d" })
  return { authorization: `Bearer ${token}` }
}

/** A customer and the bearer header of their session. */
export async function customerHeaders(container: MedusaContainer, email: string): Promise<{ id: string; headers: Record<string, string> }> {
  const customer = await container.resolve(Modules.CUSTOMER).createCustomers({ email })
  const identity = await container.resolve(Modules.AUTH).createAuthIdentities({ provider_identities: [{ provider: "emailpass", entity_id: email }], app_metadata: { customer_id: customer.id } })
  const token = generateJwtToken({ actor_id: customer.id, actor_type: "customer", auth_identity_id: identity.id, app_metadata: { customer_id: customer.id } }, { secret: JWT_SECRET, expiresIn: "1d" })
  return { id: customer.id, headers: { authorization: `Bearer ${token}` } }
}

/** The sales channel of the last publishable key made: products are created in it unless told otherwise. */
let currentChannel: string | null = null

/** A publishable key in a sales channel of its own (as a store's storefront key is). */
export async function publishableKey(container: MedusaContainer, channel?: string): Promise<string> {
  const key = await container.resolve(Modules.API_KEY).createApiKeys({ title: "storefront", type: "publishable", created_by: "test" })
  const sc = channel ?? (await container.resolve(Modules.SALES_CHANNEL).createSalesChannels({ name: `Web ${key.id.slice(-6)}` })).id
  await container.resolve("link").create({ [Modules.API_KEY]: { publishable_key_id: key.id }, [Modules.SALES_CHANNEL]: { sales_channel_id: sc } })
  currentChannel = sc
  return key.token
}

export function salesChannelOfLastKey(): string {
  return currentChannel!
}

export async function newCart(container: MedusaContainer): Promise<string> {
  const cart = await container.resolve(Modules.CART).createCarts({ currency_code: "usd" })
  return cart.id
}

/** A product through the admin API (so the product workflows and their events run). */
export async function createProduct(call: ReturnType<typeof caller>, admin: Record<string, string>, p: { title: string; images: string[]; metadata?: Record<string, unknown>; status?: string; sales_channel?: string }) {
  const r = await call("post", "/admin/products", {
    headers: admin,
    body: {
      title: p.title,
      status: p.status ?? "published",
      thumbnail: p.images[0],
      images: p.images.map((url) => ({ url })),
      metadata: p.metadata ?? {},
      sales_channels: [{ id: p.sales_channel ?? currentChannel }].filter((c) => c.id),
      options: [{ title: "Size", values: ["M"] }],
      variants: [{ title: "M", options: { Size: "M" }, prices: [{ currency_code: "usd", amount: 40 }] }],
    },
  })
  if (r.status !== 200) throw new Error(`product not created: ${r.status} ${JSON.stringify(r.data)}`)
  return r.data.product as { id: string }
}

/** A solved bot-verification challenge from the plugin's challenge route (what the widget does in the browser). */
export async function solvedChallenge(call: ReturnType<typeof caller>, store: Record<string, string>): Promise<string> {
  const r = await call("get", "/store/fitroom/challenge", { headers: store })
  if (r.status !== 200) throw new Error(`no challenge: ${r.status} ${JSON.stringify(r.data)}`)
  const c = r.data.challenge
  const s = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise
  return Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: s!.number, salt: c.salt, signature: c.signature })).toString("base64")
}

/** Calls Fitroom directly with the store's key (what an operator would check). */
export async function fitroom(method: string, p: string, body?: unknown, key = FITROOM_KEY) {
  const headers: Record<string, string> = { "x-api-key": key }
  if (body !== undefined) headers["content-type"] = "application/json"
  const res = await fetch(`${FITROOM_URL}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, body: await res.json().catch(() => null) }
}

/** Runs Fitroom's CLI against its database (keys create / revoke). */
export function fitroomCli(...args: string[]): string {
  const root = path.resolve(__dirname, "../../../..")
  return execFileSync(path.join(root, "node_modules/.bin/node"), ["connectors/standalone/cli.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATABASE_URL: process.env.FITROOM_DATABASE_URL! },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim()
}

export async function until<T>(fn: () => Promise<T | null | undefined | false>, ms: number, what: string): Promise<T> {
  const t0 = Date.now()
  let last: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v) return v
    } catch (e) {
      last = e
    }
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

/**
 * The https address Fitroom posts webhooks to (FITROOM_PUBLIC_URL, its certificate trusted by the
 * Fitroom the global setup started), forwarding to the Medusa app of the test. Emits `delivery`
 * with the request and the app's answer once the app has answered.
 */
export function startWebhookProxy(target: () => string) {
  const events = new EventEmitter()
  const publicUrl = new URL(process.env.FITROOM_PUBLIC_URL!)
  const server = createHttpsServer({ key: readFileSync(process.env.WEBHOOK_TLS_KEY!), cert: readFileSync(process.env.WEBHOOK_TLS_CERT!) }, (req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const to = new URL(req.url ?? "/", target())
      const out = httpRequest(to, { method: req.method, headers: { ...req.headers, host: to.host, connection: "close" } }, (answer) => {
        const got: Buffer[] = []
        answer.on("data", (c: Buffer) => got.push(c))
        answer.on("end", () => {
          res.writeHead(answer.statusCode ?? 502, { "content-type": String(answer.headers["content-type"] ?? "application/json") }).end(Buffer.concat(got))
          let json: any = null
          try {
            json = JSON.parse(Buffer.concat(got).toString())
          } catch {
            /* not JSON */
          }
          events.emit("delivery", { path: req.url, headers: req.headers, body: body.toString(), status: answer.statusCode, answer: json, at: Date.now() })
        })
      })
      out.on("error", () => res.writeHead(502).end())
      out.end(body)
    })
  })
  server.listen(Number(publicUrl.port), "127.0.0.1")
  return { events, close: () => new Promise<void>((r) => server.close(() => r())) }
}

export interface Delivery {
  path: string
  headers: Record<string, string>
  body: string
  status: number
  answer: any
  at: number
}

/** The first delivery (already answered by the app) that matches. */
export function nextDelivery(events: EventEmitter, match: (d: Delivery) => boolean): Promise<Delivery> {
  return new Promise((resolve) => {
    const on = (d: Delivery) => {
      if (!match(d)) return
      events.off("delivery", on)
      resolve(d)
    }
    events.on("delivery", on)
  })
}
