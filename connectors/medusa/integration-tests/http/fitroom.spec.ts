import { readdirSync, readFileSync, existsSync } from "node:fs"
import path from "node:path"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import { FITROOM_MODULE } from "../../src/modules/fitroom"
import type FitroomModuleService from "../../src/modules/fitroom/service"
import { FitroomClient } from "../../src/modules/fitroom/client"
import { storeProductModelWorkflow } from "../../src/workflows/product-model"
import { advanceProductModel } from "../../src/workflows/advance"
// Fitroom's own webhook code: to sign deliveries as Fitroom does, and to check the plugin agrees with its verifier
import { canonicalJson, signWebhook, verifyWebhook } from "../../../../core/webhooks.ts"
import { adminHeaders, caller, createProduct, customerHeaders, fitroomCli, newCart, nextDelivery, photo, publishableKey, SHOE_VIEWS, solvedChallenge, startWebhookProxy, until, type Delivery } from "./helpers"

const CHART = {
  version: 1,
  basis: "body",
  unit: "cm",
  sizes: [
    { label: "S", measurements: { chest: { min: 84, max: 92 }, waist: { min: 70, max: 78 } } },
    { label: "M", measurements: { chest: { min: 92, max: 100 }, waist: { min: 78, max: 86 } } },
    { label: "L", measurements: { chest: { min: 100, max: 108 }, waist: { min: 86, max: 94 } } },
  ],
}
const GARMENT = photo("test/fixtures/real-photos/garments/00055_00.jpg")
const PERSON = photo("test/fixtures/real-photos/persons/model_1.jpg")
const STATIC = path.join(__dirname, "../../static") // the local file provider's folder

// The subscriber digitizes new products: on for this application.
process.env.FITROOM_AUTO_DIGITIZE = "true"

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const call = caller(api)
    let admin: Record<string, string>
    let store: Record<string, string>
    const service = () => getContainer().resolve<FitroomModuleService>(FITROOM_MODULE)
    /** Swaps the module's Fitroom client (another address or key) for the length of fn. */
    const withClient = async (o: { url?: string; apiKey?: string }, fn: () => Promise<void>) => {
      const s = service()
      const original = s.client
      Object.defineProperty(s, "client", { value: new FitroomClient({ ...s.options, ...o, requestTimeoutMs: 3000 }), configurable: true })
      try {
        await fn()
      } finally {
        Object.defineProperty(s, "client", { value: original, configurable: true })
      }
    }

    const proxy = startWebhookProxy(() => api.defaults.baseURL)
    afterAll(() => proxy.close())

    /** Counts (and keeps the headers of) every request the plugin sends to Fitroom during fn. */
    const counting = async (fn: (sent: { url: string; headers: Record<string, string> }[]) => Promise<void>) => {
      const s = service()
      const original = s.client
      const sent: { url: string; headers: Record<string, string> }[] = []
      const fetchImpl: typeof fetch = (input, init) => {
        sent.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) } })
        return fetch(input, init)
      }
      Object.defineProperty(s, "client", { value: new FitroomClient(s.options, fetchImpl), configurable: true })
      try {
        await fn(sent)
      } finally {
        Object.defineProperty(s, "client", { value: original, configurable: true })
      }
    }

    beforeEach(async () => {
      admin = await adminHeaders(getContainer())
      store = { "x-publishable-api-key": await publishableKey(getContainer()) }
    })

    /** A sized product: its category has the chart. */
    const sizedProduct = async () => {
      const product = await createProduct(call, admin, { title: "Shirt", images: [GARMENT], metadata: { fitroom_3d: false, fitroom_category: "top" } })
      const category = await getContainer().resolve(Modules.PRODUCT).createProductCategories({ name: `Shirts ${product.id.slice(-5)}`, is_active: true })
      await getContainer().resolve(Modules.PRODUCT).updateProducts(product.id, { category_ids: [category.id] })
      expect((await call("post", "/admin/fitroom/size-charts", { headers: admin, body: { category_id: category.id, garment_category: "top", chart: CHART } })).status).toBe(201)
      return product
    }

    /** Makes the shopper's twin through the store route and waits until it is ready (its webhook or the shopper's GET). */
    const makeTwin = async (who: { headers: Record<string, string>; cart?: string }, body: Record<string, unknown>) => {
      const made = await call("post", "/store/fitroom/digital-twin", { headers: { ...store, ...who.headers, "x-challenge-token": await solvedChallenge(call, store) }, body: { face_image: PERSON, ...body, ...(who.cart ? { cart_id: who.cart } : {}) } })
      expect(made.status, JSON.stringify(made.data)).toBeLessThan(300)
      expect(made.headers["x-fitroom-pass"]).toBeTruthy()
      const query = who.cart ? `?cart_id=${who.cart}` : ""
      const twin = await until(async () => {
        const r = await call("get", `/store/fitroom/digital-twin${query}`, { headers: { ...store, ...who.headers } })
        if (r.data.digital_twin?.status === "failed") throw new Error(JSON.stringify(r.data))
        return r.data.digital_twin?.status === "ready" && r.data.digital_twin
      }, 90_000, "the twin")
      expect(twin.digital_twin_id).toMatch(/^[a-f0-9]{64}$/)
      return { twin, pass: made.headers["x-fitroom-pass"] as string, status: made.status }
    }

    describe("admin: status and size charts", () => {
      it("reports Fitroom reachable with the store's key, and says so when it is not", async () => {
        const ok = await call("get", "/admin/fitroom/status", { headers: admin })
        expect(ok.status).toBe(200)
        expect(ok.data.status).toMatchObject({ ok: true, auto_digitize: true })
        await withClient({ url: "http://127.0.0.1:9" }, async () => {
          const down = await call("get", "/admin/fitroom/status", { headers: admin })
          expect(down.data.status).toMatchObject({ ok: false, code: "FITROOM_UNREACHABLE" })
        })
        expect((await call("get", "/admin/fitroom/status")).status).toBe(401)
      })

      it("sets, replaces, lists and deletes charts, refusing bad ones field by field", async () => {
        const product = await createProduct(call, admin, { title: "Tee", images: [GARMENT], metadata: { fitroom_3d: false } })
        const bad = await call("post", "/admin/fitroom/size-charts", { headers: admin, body: { product_id: product.id, garment_category: "top", chart: { ...CHART, version: 2, sizes: [{ label: "S", measurements: { inseam: { min: 70, max: 80 } } }] } } })
        expect(bad.status).toBe(400)
        expect(bad.data.details.map((d: { field: string }) => d.field)).toEqual(["chart.version", "chart.sizes[0].measurements"])
        const missing = await call("post", "/admin/fitroom/size-charts", { headers: admin, body: { product_id: "prod_01NOPE", garment_category: "top", chart: CHART } })
        expect(missing.status).toBe(404)

        const created = await call("post", "/admin/fitroom/size-charts", { headers: admin, body: { product_id: product.id, garment_category: "top", chart: CHART } })
        expect(created.status).toBe(201)
        const replaced = await call("post", "/admin/fitroom/size-charts", { headers: admin, body: { product_id: product.id, garment_category: "fullBody", chart: { ...CHART, sizes: CHART.sizes.map((s) => ({ ...s, measurements: { ...s.measurements, hip: { min: 90, max: 110 } } })) } } })
        expect(replaced.status).toBe(200)
        expect(replaced.data.size_chart.id).toBe(created.data.size_chart.id)
        const listed = await call("get", `/admin/fitroom/size-charts?product_id=${product.id}`, { headers: admin })
        expect(listed.data.size_charts).toHaveLength(1)
        expect(listed.data.size_charts[0].garment_category).toBe("fullBody")
        // linked to the product
        const { data } = await getContainer().resolve("query").graph({ entity: "product", fields: ["id", "fitroom_size_chart.id"], filters: { id: product.id } })
        expect((data[0] as any).fitroom_size_chart?.id).toBe(created.data.size_chart.id)

        const del = await call("delete", `/admin/fitroom/size-charts/${created.data.size_chart.id}`, { headers: admin })
        expect(del.data).toMatchObject({ deleted: true })
        expect((await call("get", `/admin/fitroom/size-charts?product_id=${product.id}`, { headers: admin })).data.size_charts).toHaveLength(0)
      })
    })

    describe("store: virtual fitting", () => {
      it("a guest with a cart tries a product on: bot-verified, owned by the cart, result from the product's packshot", async () => {
        const product = await createProduct(call, admin, { title: "Striped top", images: [GARMENT], metadata: { fitroom_3d: false, fitroom_category: "top" } })
        const cart = await newCart(getContainer())
        const url = `/store/fitroom/products/${product.id}/try-on`

        const noOwner = await call("post", url, { headers: store, body: { person_image: PERSON } })
        expect(noOwner.status).toBe(401)
        const noChallenge = await call("post", url, { headers: store, body: { person_image: PERSON, cart_id: cart } })
        expect(noChallenge.status).toBe(403)
        expect(noChallenge.data.code).toBe("BOT_VERIFICATION_REQUIRED")
        const badPhoto = await call("post", url, { headers: store, body: { person_image: "javascript:alert(1)", cart_id: cart } })
        expect(badPhoto.status).toBe(400)

        const submitted = await call("post", url, { headers: { ...store, "x-challenge-token": await solvedChallenge(call, store) }, body: { person_image: PERSON, cart_id: cart } })
        expect([200, 202], JSON.stringify(submitted.data)).toContain(submitted.status) // 200: Fitroom had this try-on cached (the install test's shopper tried it on)
        const pass = submitted.headers["x-fitroom-pass"]
        expect(pass).toBeTruthy()
        expect(Number(submitted.headers["x-fitroom-verification-ttl"])).toBeGreaterThan(3500)
        const jobId = submitted.data.job.id

        // another cart, or no pass: not this shopper's job / not verified
        const otherCart = await newCart(getContainer())
        expect((await call("get", `/store/fitroom/jobs/${jobId}?cart_id=${otherCart}`, { headers: { ...store, "x-fitroom-pass": pass } })).status).toBe(404)
        expect((await call("get", `/store/fitroom/jobs/${jobId}?cart_id=${cart}`, { headers: store })).status).toBe(403)

        const done = await until(async () => {
          const r = await call("get", `/store/fitroom/jobs/${jobId}?cart_id=${cart}`, { headers: { ...store, "x-fitroom-pass": pass } })
          expect(r.status).toBe(200)
          return ["completed", "failed"].includes(r.data.job.status) && r.data.job
        }, 240_000, "the try-on")
        expect(done.error).toBeNull()
        expect(done.status).toBe("completed")
        const image = await fetch(done.results[0]?.url ?? done.result.imageUrl)
        expect(image.headers.get("content-type")).toMatch(/^image\//)
        expect((await image.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
      })

      it("a signed-in customer's job is theirs only; an unpublished product cannot be tried on", async () => {
        const product = await createProduct(call, admin, { title: "Top", images: [GARMENT], metadata: { fitroom_3d: false } })
        const draft = await createProduct(call, admin, { title: "Draft top", images: [GARMENT], status: "draft", metadata: { fitroom_3d: false } })
        const ana = await customerHeaders(getContainer(), "ana@shop.test")
        const ben = await customerHeaders(getContainer(), "ben@shop.test")
        const token = await solvedChallenge(call, store)
        expect((await call("post", `/store/fitroom/products/${draft.id}/try-on`, { headers: { ...store, ...ana.headers, "x-challenge-token": token }, body: { person_image: PERSON } })).status).toBe(404)
        const r = await call("post", `/store/fitroom/products/${product.id}/try-on`, { headers: { ...store, ...ana.headers, "x-challenge-token": token }, body: { person_image: photo("test/fixtures/real-photos/persons/model_3.jpg") } })
        expect(r.status).toBe(202)
        const pass = r.headers["x-fitroom-pass"]
        const [record] = await service().listFitroomTryOns({ job_id: r.data.job.id })
        expect(record).toMatchObject({ customer_id: ana.id, cart_id: null, product_id: product.id })
        expect((await call("get", `/store/fitroom/jobs/${r.data.job.id}`, { headers: { ...store, ...ana.headers, "x-fitroom-pass": pass } })).status).toBe(200)
        expect((await call("get", `/store/fitroom/jobs/${r.data.job.id}`, { headers: { ...store, ...ben.headers, "x-fitroom-pass": pass } })).status).toBe(404)
      })
    })

    describe("store: digital twin and size", () => {
      const BODY = { body_measurements: { height: 178, chest: 95, waist: 81 }, gender: "male" }

      it("a guest makes a twin from measurements on their cart, gets a size, tries on with it, and deletes it", async () => {
        const product = await sizedProduct()
        const cart = await newCart(getContainer())
        const noTwin = await call("post", `/store/fitroom/products/${product.id}/size-fitting`, { headers: store, body: { cart_id: cart } })
        expect(noTwin.status).toBe(400)
        expect(noTwin.data.code).toBe("TWIN_REQUIRED")

        const { twin, pass } = await makeTwin({ headers: {}, cart }, BODY)
        const [record] = await service().listFitroomDigitalTwins({ id: twin.id })
        expect(record).toMatchObject({ cart_id: cart, customer_id: null, mode: "measurements" })

        const size = await call("post", `/store/fitroom/products/${product.id}/size-fitting`, { headers: store, body: { cart_id: cart } })
        expect(size.status, JSON.stringify(size.data)).toBe(200)
        expect(size.data).toMatchObject({ available: true, digital_twin_id: twin.digital_twin_id })
        expect(size.data.size.recommendedSize).toBe("M")

        // try-on with the twin: the answer names it
        const tryOn = await call("post", `/store/fitroom/products/${product.id}/try-on`, { headers: { ...store, "x-fitroom-pass": pass }, body: { cart_id: cart } })
        expect(tryOn.status, JSON.stringify(tryOn.data)).toBeLessThan(300)
        expect(tryOn.data.job.digital_twin_id).toBe(twin.digital_twin_id)

        // another cart sees no twin; the guest deletes theirs
        const other = await newCart(getContainer())
        expect((await call("get", `/store/fitroom/digital-twin?cart_id=${other}`, { headers: store })).status).toBe(404)
        const del = await call("delete", `/store/fitroom/digital-twin?cart_id=${cart}`, { headers: store })
        expect(del.data).toMatchObject({ id: twin.id, deleted: true })
        expect((await call("get", `/store/fitroom/digital-twin?cart_id=${cart}`, { headers: store })).status).toBe(404)
        expect((await call("post", `/store/fitroom/products/${product.id}/size-fitting`, { headers: store, body: { cart_id: cart } })).data.code).toBe("TWIN_REQUIRED")
      })

      it("a customer's twin is linked to them, gives a size, and goes when the customer is deleted", async () => {
        const product = await sizedProduct()
        const ana = await customerHeaders(getContainer(), "ana.twin@shop.test")
        // the same face and body as the guest's: Fitroom answers from its twin cache at once (201)
        const { twin, status } = await makeTwin({ headers: ana.headers }, BODY)
        expect(status).toBe(201)
        const { data } = await getContainer().resolve("query").graph({ entity: "customer", fields: ["id", "fitroom_digital_twin.*"], filters: { id: ana.id } })
        expect((data[0] as any).fitroom_digital_twin).toMatchObject({ id: twin.id, digital_twin_id: twin.digital_twin_id })

        const size = await call("post", `/store/fitroom/products/${product.id}/size-fitting`, { headers: { ...store, ...ana.headers }, body: {} })
        expect(size.status, JSON.stringify(size.data)).toBe(200)
        expect(size.data.size.recommendedSize).toBe("M")

        expect((await call("delete", `/admin/customers/${ana.id}`, { headers: admin })).status).toBe(200)
        await until(async () => (await service().listFitroomDigitalTwins({ id: twin.id })).length === 0, 20_000, "the twin removed with the customer")
      })

      it("validation errors come in Medusa's shape", async () => {
        const cart = await newCart(getContainer())
        const both = await call("post", "/store/fitroom/digital-twin", { headers: store, body: { face_image: PERSON, cart_id: cart, body_measurements: { height: 170, chest: 90 }, clothing_size: { height: 170, size: "M" } } })
        expect(both.status).toBe(400)
        expect(both.data.type).toBe("invalid_data")
        expect(both.data.message).toMatch(/body_measurements or clothing_size/)
        const bad = await call("post", "/store/fitroom/digital-twin", { headers: store, body: { face_image: "javascript:1", body_measurements: { height: 300, chest: 90 }, extra: 1 } })
        expect(bad.status).toBe(400)
        expect(bad.data).toMatchObject({ type: "invalid_data" })
        expect(bad.data.message).toMatch(/face_image must be an http\(s\) URL/)
        expect(bad.data.message).toMatch(/height/)
        expect(bad.data.message).toMatch(/extra/)
        const badCart = await call("get", "/store/fitroom/digital-twin?cart_id=nope", { headers: store })
        expect(badCart.status).toBe(400)
        expect(badCart.data.type).toBe("invalid_data")
      })
    })

    describe("store: sales channels and shoppers", () => {
      it("a product outside the key's sales channels is 404 on every store route, and Fitroom is never called", async () => {
        const hidden = await createProduct(call, admin, { title: "Other channel", images: [GARMENT], metadata: { fitroom_3d: false } })
        const other = { "x-publishable-api-key": await publishableKey(getContainer()) } // a second channel; the product is not in it
        const cart = await newCart(getContainer())
        expect((await call("get", `/store/products/${hidden.id}`, { headers: other })).status).toBe(404) // Medusa's own answer
        await counting(async (sent) => {
          const routes = [
            await call("post", `/store/fitroom/products/${hidden.id}/try-on`, { headers: { ...other, "x-challenge-token": "x" }, body: { person_image: PERSON, cart_id: cart } }),
            await call("post", `/store/fitroom/products/${hidden.id}/size-fitting`, { headers: other, body: { cart_id: cart } }),
            await call("get", `/store/fitroom/products/${hidden.id}/model`, { headers: other }),
          ]
          expect(routes.map((r) => r.status)).toEqual([404, 404, 404])
          expect(sent).toEqual([])
        })
      })

      it("two guests: each is its own shopper at Fitroom (id and address), and one's pass is refused for the other", async () => {
        const product = await createProduct(call, admin, { title: "Tee", images: [GARMENT], metadata: { fitroom_3d: false, fitroom_category: "top" } })
        const [a, b] = [await newCart(getContainer()), await newCart(getContainer())]
        await counting(async (sent) => {
          const first = await call("post", `/store/fitroom/products/${product.id}/try-on`, { headers: { ...store, "x-challenge-token": await solvedChallenge(call, store), "x-forwarded-for": "198.51.100.23" }, body: { person_image: PERSON, cart_id: a } })
          expect([200, 202], JSON.stringify(first.data)).toContain(first.status) // 200: Fitroom had this try-on cached
          const pass = first.headers["x-fitroom-pass"]
          const stolen = await call("post", `/store/fitroom/products/${product.id}/try-on`, { headers: { ...store, "x-fitroom-pass": pass, "x-forwarded-for": "198.51.100.23" }, body: { person_image: PERSON, cart_id: b } })
          expect(stolen.status).toBe(403)
          expect(stolen.data.code).toBe("BOT_VERIFICATION_REQUIRED")
          const own = await call("get", `/store/fitroom/jobs/${first.data.job.id}?cart_id=${a}`, { headers: { ...store, "x-fitroom-pass": pass, "x-forwarded-for": "198.51.100.23" } })
          expect(own.status).toBe(200)
          const shoppers = sent.filter((s) => s.headers["x-fitroom-shopper"]).map((s) => [s.headers["x-fitroom-shopper"], s.headers["x-fitroom-shopper-ip"]])
          // Medusa trusts one proxy hop: the shopper's address is the forwarded one
          expect(shoppers).toEqual([[`cart:${a}`, "198.51.100.23"], [`cart:${b}`, "198.51.100.23"], [`cart:${a}`, "198.51.100.23"]])
        })
      })
    })

    describe("store: shoppers' own limits", () => {
      it("two guests: A spends its submissions at Fitroom and is refused, B (same address) is still served; A's pass is refused for B", async () => {
        const product = await createProduct(call, admin, { title: "Polo", images: [GARMENT], metadata: { fitroom_3d: false, fitroom_category: "top" } })
        const [a, b] = [await newCart(getContainer()), await newCart(getContainer())]
        const limit = Number(process.env.SHOPPER_SUBMISSIONS_PER_MINUTE) // the suite's Fitroom counts this many per shopper and minute
        const tryOn = async (cart: string, headers: Record<string, string>) => call("post", `/store/fitroom/products/${product.id}/try-on`, { headers: { ...store, "x-forwarded-for": "198.51.100.24", ...headers }, body: { person_image: PERSON, cart_id: cart } })
        const first = await tryOn(a, { "x-challenge-token": await solvedChallenge(call, store) })
        expect([200, 202], JSON.stringify(first.data)).toContain(first.status)
        const passA = first.headers["x-fitroom-pass"]
        // the rest of A's minute: unverified attempts count at Fitroom, then bot verification refuses them
        for (let i = 1; i < limit; i++) expect((await tryOn(a, {})).status).toBe(403)
        const over = await tryOn(a, { "x-fitroom-pass": passA })
        expect(over.status, JSON.stringify(over.data)).toBe(429)
        expect(over.data).toMatchObject({ type: "not_allowed", code: "RATE_LIMITED" })
        // B: A's pass is not B's; B's own challenge is served, A's spent limit notwithstanding
        const stolen = await tryOn(b, { "x-fitroom-pass": passA })
        expect(stolen.status).toBe(403)
        expect(stolen.data.code).toBe("BOT_VERIFICATION_REQUIRED")
        const served = await tryOn(b, { "x-challenge-token": await solvedChallenge(call, store) })
        expect([200, 202], JSON.stringify(served.data)).toContain(served.status)
        expect(served.headers["x-fitroom-pass"]).toBeTruthy()
      })
    })

    describe("admin: Generate 3D", () => {
      it("generates, completes by Fitroom's webhook (forged, replayed and stale deliveries refused), stores the files, attaches; the store then serves the model", async () => {
        const product = await createProduct(call, admin, { title: "Runner", images: SHOE_VIEWS, metadata: { fitroom_3d: false } })
        expect((await call("get", `/store/fitroom/products/${product.id}/model`, { headers: store })).status).toBe(404)
        const started = await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })
        expect(started.status).toBe(202)
        expect(started.data.model).toMatchObject({ product_id: product.id, status: "processing" })
        expect((await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })).status).toBe(409)

        // Fitroom's webhook completes it: no polling here (the admin GET and the scheduled job are the fallback)
        const delivery: Delivery = await nextDelivery(proxy.events, (d) => JSON.parse(d.body).jobId === started.data.model.job_id)
        expect(delivery.status, JSON.stringify(delivery.answer)).toBe(200)
        expect(delivery.answer).toMatchObject({ received: true, duplicate: false, matched: "product_model" })
        const ready = await service().retrieveFitroomProductModel(started.data.model.id)
        expect(ready.status).toBe("ready") // done by the time the delivery was answered
        console.log(`webhook: the model was ready ${delivery.at - Date.parse(JSON.parse(delivery.body).timestamp)} ms after Fitroom signed the delivery`)
        expect(ready.progress).toBe(100)
        expect(ready.glb_url).toMatch(/\.glb$/)
        const glb = readFileSync(path.join(STATIC, path.basename(ready.glb_url)))
        expect(glb.subarray(0, 4).toString()).toBe("glTF")
        expect(existsSync(path.join(STATIC, path.basename(ready.preview_url)))).toBe(true)
        // linked to the product
        const { data } = await getContainer().resolve("query").graph({ entity: "product", fields: ["fitroom_product_models.id"], filters: { id: product.id } })
        expect((data[0] as any).fitroom_product_models.map((m: { id: string }) => m.id)).toEqual([ready.id])

        expect((await call("get", `/store/fitroom/products/${product.id}/model`, { headers: store })).status).toBe(404) // ready, not attached yet
        const attached = await call("post", `/admin/fitroom/models/${ready.id}/attach`, { headers: admin })
        expect(attached.data.model.status).toBe("attached")
        const shown = await call("get", `/store/fitroom/products/${product.id}/model`, { headers: store })
        expect(shown.status).toBe(200)
        expect(shown.data.model.glb_url).toBe(ready.glb_url)
        // the product carries it through the module link
        const { data: linked } = await getContainer().resolve("query").graph({ entity: "product", fields: ["id", "fitroom_model.*"], filters: { id: product.id } })
        expect((linked[0] as any).fitroom_model).toMatchObject({ glb_url: ready.glb_url, product_model_id: ready.id })
        // and the store's own product API returns it (the plugin allows the field on Medusa's store product routes)
        const listed = await call("get", `/store/products?id=${product.id}&fields=%2Bfitroom_model.*`, { headers: store })
        expect(listed.status).toBe(200)
        expect(listed.data.products.find((p: { id: string }) => p.id === product.id).fitroom_model).toMatchObject({ glb_url: ready.glb_url, product_model_id: ready.id })
        const one = await call("get", `/store/products/${product.id}?fields=%2Bfitroom_model.*`, { headers: store })
        expect(one.data.product.fitroom_model).toMatchObject({ glb_url: ready.glb_url })

        const removed = await call("delete", `/admin/fitroom/models/${ready.id}`, { headers: admin })
        expect(removed.data.deleted).toBe(true)
        expect((await call("get", `/store/fitroom/products/${product.id}/model`, { headers: store })).status).toBe(404)
        expect(existsSync(path.join(STATIC, path.basename(ready.glb_url)))).toBe(false)
        // Fitroom's own verifier accepts what the plugin accepted
        const secret = await service().client.webhookSigningSecret()
        expect(verifyWebhook({ body: delivery.body, signature: delivery.headers["x-webhook-signature"], timestamp: delivery.headers["x-webhook-timestamp"], secret }).ok).toBe(true)
        const hook = delivery.path
        const post = (body: string, headers: Record<string, string>, to = hook) => api.post(to, body, { headers: { "content-type": "application/json", ...headers, connection: "close" }, validateStatus: () => true, transformRequest: [(d: unknown) => d] })
        const headersOf = (d: Delivery) => ({ "x-webhook-signature": d.headers["x-webhook-signature"], "x-webhook-timestamp": d.headers["x-webhook-timestamp"], "x-webhook-id": d.headers["x-webhook-id"] })
        const replayed = await post(delivery.body, headersOf(delivery))
        expect(replayed.status).toBe(200)
        expect(replayed.data).toMatchObject({ duplicate: true })
        const tampered = delivery.body.replace(/"status":"completed"/, '"status":"failed"')
        const forged = await post(tampered, { ...headersOf(delivery), "x-webhook-id": "forged-1" })
        expect(forged.status).toBe(401)
        expect(forged.data).toMatchObject({ type: "unauthorized", code: "WEBHOOK_BAD_SIGNATURE" })
        const wrongKey = signWebhook("0".repeat(64), canonicalJson(JSON.parse(delivery.body)))
        expect((await post(delivery.body, { ...headersOf(delivery), "x-webhook-signature": wrongKey, "x-webhook-id": "forged-2" })).status).toBe(401)
        expect((await post(delivery.body, { ...headersOf(delivery), "x-webhook-id": "forged-3" }, hook.replace(/[0-9a-f]{8}$/, "00000000"))).status).toBe(404) // not the registered URL
        const old = new Date(Date.now() - 10 * 60_000).toISOString()
        const stalePayload = { ...JSON.parse(delivery.body), timestamp: old }
        const stale = await post(JSON.stringify(stalePayload), { "x-webhook-signature": signWebhook(secret, canonicalJson(stalePayload)), "x-webhook-timestamp": old, "x-webhook-id": "stale-1" })
        expect(stale.status).toBe(401)
        expect(stale.data.code).toBe("WEBHOOK_STALE")
        expect(await service().listFitroomWebhookDeliveries({ delivery_id: ["forged-1", "forged-2", "forged-3", "stale-1"] })).toHaveLength(0)
      })

      it("the store workflow's compensation removes the stored files when the product is gone", async () => {
        const s = service()
        const before = existsSync(STATIC) ? readdirSync(STATIC).length : 0
        const model = await s.createFitroomProductModels({ product_id: "prod_01GONE", status: "processing", job_id: "d9b1bd3c-0000-4000-8000-000000000001" })
        const glb = `${process.env.PHOTOS_URL}/examples/assets/shoe-0.png` // any file: the step stores what it downloads
        await expect(storeProductModelWorkflow(getContainer()).run({ input: { model_id: model.id, product_id: "prod_01GONE", glb_url: glb, preview_url: glb } })).rejects.toThrow(/was deleted while its 3D model was being made/)
        expect(existsSync(STATIC) ? readdirSync(STATIC).length : 0).toBe(before)
        expect((await s.retrieveFitroomProductModel(model.id)).status).toBe("processing")
      })
    })

    describe("failure paths", () => {
      it("Fitroom unreachable: a clear 503, and no half-made model", async () => {
        const product = await createProduct(call, admin, { title: "Boot", images: SHOE_VIEWS, metadata: { fitroom_3d: false } })
        await withClient({ url: "http://127.0.0.1:9" }, async () => {
          const r = await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })
          expect(r.status).toBe(503)
          expect(r.data).toMatchObject({ code: "FITROOM_UNREACHABLE" })
          expect(r.data.message).toMatch(/could not be reached/)
        })
        expect(await service().listFitroomProductModels({ product_id: product.id })).toHaveLength(0)
        // retrying once Fitroom is back works
        expect((await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })).status).toBe(202)
      })

      it("credentials revoked: the store's routes answer 502 with what to fix, nothing is recorded", async () => {
        const created = fitroomCli("keys", "create", "--name", "revoked-shop", "--kind", "service", "--account", "revoked-shop")
        const listed = fitroomCli("keys", "list")
        const id = listed.split("\n").find((l) => l.includes("revoked-shop"))?.match(/[0-9a-f]{8}-[0-9a-f-]{27}/)?.[0]
        expect(id).toBeTruthy()
        fitroomCli("keys", "revoke", id!)
        const product = await createProduct(call, admin, { title: "Top", images: [GARMENT], metadata: { fitroom_3d: false } })
        const cart = await newCart(getContainer())
        await withClient({ apiKey: created }, async () => {
          const r = await call("post", `/store/fitroom/products/${product.id}/try-on`, { headers: { ...store, "x-challenge-token": "x" }, body: { person_image: PERSON, cart_id: cart } })
          expect(r.status).toBe(502)
          expect(r.data.message).toMatch(/key was refused/)
          const g = await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })
          expect(g.status).toBe(502)
          const st = await call("get", "/admin/fitroom/status", { headers: admin })
          expect(st.data.status).toMatchObject({ ok: false })
          expect(st.data.status.message).toMatch(/refuses the store's key/)
        })
        expect(await service().listFitroomTryOns({ product_id: product.id })).toHaveLength(0)
        expect(await service().listFitroomProductModels({ product_id: product.id })).toHaveLength(0)
      })

      it("a job that fails shows its error in the admin", async () => {
        const product = await createProduct(call, admin, { title: "Ghost", images: [photo("examples/assets/missing.png")], metadata: { fitroom_3d: false } })
        const r = await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })
        expect(r.status).toBe(202) // Fitroom reads the images in the job, not at submission
        const failed = await until(async () => {
          const m = (await call("get", `/admin/fitroom/products/${product.id}/models`, { headers: admin })).data.models[0]
          return m.status === "failed" && m
        }, 120_000, "the failure")
        expect(failed.error_code).toMatch(/^[A-Z_]+$/)
        expect(failed.error_message).toMatch(/missing\.png|404|image/i)
        expect(failed.glb_file_id).toBeNull()
        // a failed model can be generated again once the photos are fixed
        expect((await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })).status).toBe(202)
      })

      it("a product deleted mid-job: the Fitroom job is cancelled and the model removed", async () => {
        const product = await createProduct(call, admin, { title: "Loafer", images: SHOE_VIEWS, metadata: { fitroom_3d: false } })
        const started = await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })
        expect(started.status).toBe(202)
        const model = started.data.model
        expect((await call("delete", `/admin/products/${product.id}`, { headers: admin })).status).toBe(200)
        // the builtin engine may finish first: then the job is completed, else the subscriber cancelled it
        const job = await until(async () => {
          const j = await service().client.job(model.job_id) // the store's credential owns the job
          return ["completed", "failed", "cancelled"].includes(j?.status) && j
        }, 30_000, "the job to end")
        const [gone] = await until(async () => {
          const all = await service().listFitroomProductModels({ id: model.id }, { withDeleted: true })
          return all.every((m) => m.deleted_at) && all
        }, 10_000, "the model removed")
        expect(gone.glb_file_id).toBeNull() // nothing was stored for a deleted product
        await advanceProductModel(getContainer(), model.id) // the scheduled job finds nothing to do
        expect((await service().listFitroomProductModels({ id: model.id }, { withDeleted: true }))[0].glb_file_id).toBeNull()
        if (job.status !== "completed") expect(job.errorCode).toBe("CANCELLED")
        expect(await service().listFitroomProductModels({ product_id: product.id })).toHaveLength(0)
      })
    })

    describe("subscriber: autoDigitize", () => {
      it("a new product with photos gets a model started; an edit that keeps the photos starts none", async () => {
        const product = await createProduct(call, admin, { title: "Sneaker", images: SHOE_VIEWS })
        const [model] = await until(async () => {
          const m = await service().listFitroomProductModels({ product_id: product.id })
          return m.length > 0 && m
        }, 20_000, "the model the subscriber starts")
        expect(model.status).toBe("processing")
        expect((model.source_images as { urls: string[] }).urls).toEqual(SHOE_VIEWS)
        expect((await call("post", `/admin/products/${product.id}`, { headers: admin, body: { title: "Sneaker 2" } })).status).toBe(200)
        await new Promise((r) => setTimeout(r, 1500))
        expect(await service().listFitroomProductModels({ product_id: product.id })).toHaveLength(1)
        const opted = await createProduct(call, admin, { title: "No 3D", images: SHOE_VIEWS, metadata: { fitroom_3d: false } })
        await new Promise((r) => setTimeout(r, 1500))
        expect(await service().listFitroomProductModels({ product_id: opted.id })).toHaveLength(0)
      })
    })
  },
})
