/**
 * The path every store takes, then a shopper's: the packed plugin installed into a fresh Medusa store
 * (store.ts) under `plugins`, its tables migrated, a `medusa start` with a wrong option refused; then
 * the store under `medusa develop` (which runs `medusa start` in a child, watching the folder) serving
 * the admin and store routes, with the storefront example (as shipped, served by its serve.mjs) in Chromium: a
 * guest's try-on and size, a signed-in customer's twin and size (linked to the customer, deleted with
 * them), and the 3D view of a model Fitroom made from the product's photos, stored by the file module.
 */
import { mkdirSync, existsSync, readFileSync, readdirSync } from "node:fs"
import type { Server } from "node:http"
import { tmpdir } from "node:os"
import path from "node:path"
import pg from "pg"
import { chromium, type Browser } from "playwright-core"
// @ts-expect-error the example's server is plain JavaScript, as shipped
import { startServer } from "../../examples/storefront/serve.mjs"
import { photo, SHOE_VIEWS, until } from "../http/helpers"
import { installStore, type Running, type Store } from "./store"

const SHOTS = process.env.FITROOM_SCREENSHOTS ?? path.join(tmpdir(), "fitroom-medusa-storefront")
const PERSON = path.resolve(__dirname, "../../../../test/fixtures/real-photos/persons/model_1.jpg")
const GARMENT = photo("test/fixtures/real-photos/garments/00055_00.jpg")
const CHART = { version: 1, basis: "body", unit: "cm", sizes: [
  { label: "S", measurements: { chest: { min: 80, max: 92 }, waist: { min: 64, max: 76 } } },
  { label: "M", measurements: { chest: { min: 92, max: 104 }, waist: { min: 76, max: 88 } } },
  { label: "L", measurements: { chest: { min: 104, max: 116 }, waist: { min: 88, max: 100 } } },
] }

/** The Chromium the browser tests use: FITROOM_CHROMIUM, else playwright-core's download, else one on PATH. */
function chromiumPath(): string {
  let downloaded: string | undefined
  try {
    downloaded = chromium.executablePath()
  } catch {
    /* none downloaded */
  }
  const onPath = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"].flatMap((n) => (process.env.PATH ?? "").split(path.delimiter).filter(Boolean).map((d) => path.join(d, n)))
  const found = [process.env.FITROOM_CHROMIUM, downloaded, ...onPath].find((f) => f && existsSync(f))
  if (!found) throw new Error("The storefront test needs Chromium: apt-get install chromium, npx playwright-core install chromium, or FITROOM_CHROMIUM")
  return found
}

/** JSON over HTTP to the store; any status comes back. */
async function http(base: string, method: string, url: string, o: { body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${base}${url}`, { method, headers: { ...(o.body ? { "content-type": "application/json" } : {}), ...o.headers }, body: o.body ? JSON.stringify(o.body) : undefined })
  return { status: res.status, data: await res.json().catch(() => null) }
}

describe("a store installing the packed plugin", () => {
  let store: Store
  let server: Running | undefined
  let developing: Promise<Running> | undefined
  let browser: Browser | undefined
  let site: Server | undefined

  beforeAll(async () => {
    store = await installStore()
  }, 480_000) // db:migrate of every Medusa module: minutes on a loaded machine

  afterAll(async () => {
    await browser?.close()
    site?.close()
    await (server ?? (await developing?.catch(() => undefined)))?.stop()
    await store?.remove()
  })

  it("packs and installs the plugin as published, migrates its tables, and refuses to start with wrong options", async () => {
    console.log(`install test: npm install of the two tarballs ${Math.round(store.figures.installMs)} ms, db:migrate ${Math.round(store.figures.migrateMs)} ms`)
    // the next test's `medusa develop` boots meanwhile (the boots wait on I/O as much as on the CPU)
    developing = store.boot("develop")
    developing.catch(() => undefined) // awaited (and reported) by the next test
    const files = store.packed.map((f) => f.path)
    expect(files).toContain(".medusa/server/src/admin/index.mjs")
    expect(files.some((f) => f.startsWith("src/"))).toBe(false)
    const installed = path.join(store.app, "node_modules/@fitroom/medusa")
    expect(readdirSync(installed)).toEqual(expect.arrayContaining([".medusa", "package.json", "README.md"]))
    expect(readdirSync(path.join(store.app, "node_modules/@fitroom/webhooks/dist"))).toEqual(["webhook-signature.d.ts", "webhook-signature.js"]) // plain JS
    expect(existsSync(path.join(store.app, "node_modules/@medusajs"))).toBe(false) // Medusa is the store's, not the plugin's
    // the admin bundle carries the product and category widgets
    const bundle = readFileSync(path.join(installed, ".medusa/server/src/admin/index.mjs"), "utf8")
    expect(["product.details.after", "product_category.details.after", "Generate 3D"].filter((s) => !bundle.includes(s))).toEqual([])

    const db = new pg.Client(store.env.DATABASE_URL)
    await db.connect()
    const tables = await db.query("select table_name from information_schema.tables where table_name like 'fitroom_%' order by 1").finally(() => db.end())
    expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(["fitroom_digital_twin", "fitroom_model", "fitroom_product_model", "fitroom_size_chart", "fitroom_tryon", "fitroom_webhook_delivery"])

    // `medusa start` (production) with a wrong key: the module's loader stops it and names the option
    const [refused] = await Promise.all([store.startFails({ FITROOM_API_KEY: "my-secret" }), store.createUser("owner@store.test", "install-test-password")])
    expect(refused.code, refused.output).toBe(1)
    expect(refused.output).toContain("@fitroom/medusa: invalid plugin options in medusa-config.ts")
    expect(refused.output).toContain('"apiKey" must be a Fitroom API key')
  })

  it("under medusa develop, the storefront example in Chromium: a guest's try-on and size, a customer's twin and size, the product's GLB in the 3D view", async () => {
    mkdirSync(SHOTS, { recursive: true })
    server = await developing!
    const base = server.base
    console.log(`storefront test: medusa develop to /health ${Math.round(server.bootMs)} ms (booted beside the previous test's refused start)`)
    const call = (method: string, url: string, o: { body?: unknown; headers?: Record<string, string> } = {}) => http(base, method, url, o)
    const login = await call("POST", "/auth/user/emailpass", { body: { email: "owner@store.test", password: "install-test-password" } })
    expect(login.status).toBe(200)
    const admin = { authorization: `Bearer ${login.data.token}` }
    const status = await call("GET", "/admin/fitroom/status", { headers: admin })
    expect(status.status).toBe(200)
    expect(status.data.status.ok).toBe(true)

    // the storefront's key, in a sales channel of its own, and a region for carts
    const channel = (await call("POST", "/admin/sales-channels", { headers: admin, body: { name: "Web" } })).data.sales_channel.id
    const apiKey = (await call("POST", "/admin/api-keys", { headers: admin, body: { title: "Web storefront", type: "publishable" } })).data.api_key
    expect((await call("POST", `/admin/api-keys/${apiKey.id}/sales-channels`, { headers: admin, body: { add: [channel] } })).status).toBe(200)
    const region = (await call("POST", "/admin/regions", { headers: admin, body: { name: "Europe", currency_code: "eur" } })).data.region.id
    const product = async (title: string, images: string[], metadata: Record<string, unknown>) => {
      const r = await call("POST", "/admin/products", { headers: admin, body: { title, status: "published", thumbnail: images[0], images: images.map((url) => ({ url })), metadata, sales_channels: [{ id: channel }], options: [{ title: "Size", values: ["M"] }], variants: [{ title: "M", options: { Size: "M" }, prices: [{ currency_code: "eur", amount: 40 }] }] } })
      expect(r.status, JSON.stringify(r.data)).toBe(200)
      return r.data.product.id as string
    }
    const shirt = await product("Linen shirt", [GARMENT], { fitroom_3d: false, fitroom_category: "top" })
    const shoe = await product("Trail shoe", SHOE_VIEWS, { fitroom_3d: false })
    // Generate 3D from the shoe's photos now: it is made while the shoppers below try things on
    const generating = await call("POST", `/admin/fitroom/products/${shoe}/models`, { headers: admin })
    expect(generating.status, JSON.stringify(generating.data)).toBe(202)
    const storefront = { "x-publishable-api-key": apiKey.token }
    const cart = (await call("POST", "/store/carts", { headers: storefront, body: { region_id: region } })).data.cart.id
    const challenge = await call("GET", "/store/fitroom/challenge", { headers: storefront })
    expect(challenge.status).toBe(200)
    expect(challenge.data.challenge.algorithm).toBe("SHA-256")
    expect((await call("GET", "/store/fitroom/products/prod_missing/model", { headers: storefront })).status).toBe(404)

    site = await startServer({ backendUrl: base, publishableKey: apiKey.token })
    const pageUrl = (id: string) => `http://127.0.0.1:${(site!.address() as { port: number }).port}/?product=${id}`
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader"] })
    const page = await browser.newPage({ viewport: { width: 800, height: 1200 } })
    const errors: string[] = []
    page.on("pageerror", (e) => errors.push(e.message))
    // Chromium logs the expected 4xx answers as failed resources: only scripts' errors count
    page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text()))
    await page.addInitScript((id) => localStorage.getItem("cart_id") || localStorage.setItem("cart_id", id), cart)

    // a guest: consent gates the photo; a try-on result; a size error code, then a size
    await page.goto(pageUrl(shirt))
    await page.waitForFunction(() => document.querySelector("#model-status")!.textContent !== "Loading…")
    expect({ status: await page.textContent("#model-status"), errors }).toEqual({ status: "No 3D view for this product yet.", errors: [] })
    expect(await page.textContent("#product-title")).toBe("Linen shirt")
    expect(await page.isDisabled("#photo")).toBe(true)
    expect(await page.isDisabled("#tryon-go")).toBe(true)
    await page.screenshot({ path: path.join(SHOTS, "1-before-consent.png"), fullPage: true })
    await page.check("#consent")
    expect(await page.isDisabled("#photo")).toBe(false)
    await page.setInputFiles("#photo", PERSON)
    await page.click("#tryon-go")
    await page.waitForSelector("#tryon-result img", { timeout: 280_000 })
    await page.waitForFunction(() => (document.querySelector("#tryon-result img") as HTMLImageElement).naturalWidth > 0)
    await page.screenshot({ path: path.join(SHOTS, "2-try-on.png"), fullPage: true })
    expect(await page.evaluate(() => sessionStorage.getItem("fitroom-pass"))).toBeTruthy() // X-Fitroom-Pass read

    await page.click("#size-go") // no size chart yet: the error code reaches the page
    await page.waitForSelector("#size-status.error", { timeout: 280_000 })
    expect(await page.textContent("#size-status")).toContain("SIZE_CHART_NOT_FOUND")
    expect((await call("POST", "/admin/fitroom/size-charts", { headers: admin, body: { product_id: shirt, garment_category: "top", chart: CHART } })).status).toBe(201)
    await page.click("#size-go") // the guest's twin, made on the first click, answers now
    await page.waitForSelector("#size-answer:has-text('Your size')", { timeout: 280_000 })
    await page.screenshot({ path: path.join(SHOTS, "3-guest-size.png"), fullPage: true })
    expect(await page.textContent("#size-answer")).toMatch(/^Your size: (S|M|L) \(\d+% sure\)$/)

    // a customer signs in on the same page: their own twin (the cart's is not theirs), then a size
    const email = "ana@store.test"
    const registered = await call("POST", "/auth/customer/emailpass/register", { body: { email, password: "ana-password" } })
    expect(registered.status).toBe(200)
    const customer = (await call("POST", "/store/customers", { headers: { ...storefront, authorization: `Bearer ${registered.data.token}` }, body: { email, first_name: "Ana" } })).data.customer
    await page.fill("#email", email)
    await page.fill("#password", "ana-password")
    await page.click("#sign-in-go")
    await page.waitForSelector(`#account-status:has-text('Signed in as ${email}')`)
    await page.evaluate(() => (document.querySelector("#size-answer")!.textContent = ""))
    await page.click("#size-go")
    await page.waitForSelector("#size-answer:has-text('Your size')", { timeout: 280_000 })
    await page.screenshot({ path: path.join(SHOTS, "4-customer-size.png"), fullPage: true })
    expect(await page.textContent("#size-answer")).toMatch(/^Your size: (S|M|L) \(\d+% sure\)$/)
    // the twin is the customer's through the module link; the guest's stays on the cart
    const db = new pg.Client(store.env.DATABASE_URL)
    await db.connect()
    try {
      const linkTable = (await db.query("select table_name from information_schema.tables where table_name like 'customer_customer_fitroom%digital_twin'")).rows[0].table_name
      const linked = await db.query(`select t.id, t.status from ${linkTable} l join fitroom_digital_twin t on t.id = l.fitroom_digital_twin_id where l.customer_id = $1 and l.deleted_at is null and t.deleted_at is null`, [customer.id])
      expect(linked.rows).toEqual([{ id: expect.any(String), status: "ready" }])
      const twinId = linked.rows[0].id
      expect((await db.query("select count(*)::int as n from fitroom_digital_twin where cart_id = $1 and deleted_at is null", [cart])).rows[0].n).toBe(1)
      // the customer deleted: their twin and its link go with them
      expect((await call("DELETE", `/admin/customers/${customer.id}`, { headers: admin })).status).toBe(200)
      await until(async () => (await db.query("select 1 from fitroom_digital_twin where id = $1 and deleted_at is null", [twinId])).rowCount === 0, 30_000, "the twin deleted with the customer")
      expect((await db.query(`select 1 from ${linkTable} where customer_id = $1 and deleted_at is null`, [customer.id])).rowCount).toBe(0)
    } finally {
      await db.end()
    }

    // the shoe's model: made by Fitroom from the photos the plugin sent inline, its files stored by the
    // store's file module, attached, shown in 3D
    const ready = await until(async () => {
      const m = (await call("GET", `/admin/fitroom/products/${shoe}/models`, { headers: admin })).data.models[0]
      if (m.status === "failed") throw new Error(`${m.error_code}: ${m.error_message}`)
      return m.status === "ready" && m
    }, 280_000, "the shoe's 3D model")
    expect(ready.glb_url.startsWith(store.env.FILES_URL!)).toBe(true) // the file module's URL, not Fitroom's
    expect((await call("POST", `/admin/fitroom/models/${ready.id}/attach`, { headers: admin })).status).toBe(200)
    await page.goto(pageUrl(shoe))
    await page.waitForSelector("#model-status:has-text('3D model loaded.')", { timeout: 60_000 })
    const view = await page.evaluate(async () => {
      const viewer = document.querySelector("#model") as HTMLElement & { loaded: boolean; modelIsVisible: boolean; src: string; toDataURL(): string }
      // what the viewer's WebGL canvas drew: the share of pixels the model covers (the canvas is transparent elsewhere)
      const img = new Image()
      img.src = viewer.toDataURL()
      await img.decode()
      const canvas = Object.assign(document.createElement("canvas"), { width: img.width, height: img.height })
      const g = canvas.getContext("2d")!
      g.drawImage(img, 0, 0)
      const px = g.getImageData(0, 0, img.width, img.height).data
      let covered = 0
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) covered++
      return { loaded: viewer.loaded, visible: viewer.modelIsVisible, src: viewer.src, covered: covered / (px.length / 4) }
    })
    await page.locator("#view3d").screenshot({ path: path.join(SHOTS, "5-3d-view.png") })
    expect(view).toMatchObject({ loaded: true, visible: true, src: ready.glb_url })
    expect(view.covered).toBeGreaterThan(0.005) // drawn: an empty canvas is 0 (the share varies as the model turns)
    console.log(`storefront test: the GLB covers ${(view.covered * 100).toFixed(1)}% of the 3D view; screenshots in ${SHOTS}`)
    expect(errors).toEqual([])
  }, 600_000) // a loaded machine: the develop boot, a try-on, two twins and a 3D model
})
