import { mkdirSync } from "node:fs"
import type { Server } from "node:http"
import { tmpdir } from "node:os"
import path from "node:path"
import { chromium, type Browser } from "playwright-core"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { adminHeaders, caller, createProduct, newCart, photo, publishableKey } from "./helpers"
// @ts-expect-error the example's server is plain JavaScript, as shipped
import { startServer } from "../../examples/storefront/serve.mjs"

const SHOTS = process.env.FITROOM_SCREENSHOTS ?? path.join(tmpdir(), "fitroom-medusa-storefront")
const PERSON = path.resolve(__dirname, "../../../../test/fixtures/real-photos/persons/model_1.jpg")

// the page is served from a loopback port chosen at start: the store admits any loopback origin
process.env.STORE_CORS = "/^http:\\/\\/127\\.0\\.0\\.1:\\d+$/"

// The storefront example as shipped (served by its serve.mjs, the SDK from node_modules through the import
// map) in Chromium against a store with the plugin and a real Fitroom.
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const call = caller(api)
    let browser: Browser
    let site: Server

    afterAll(async () => {
      await browser?.close()
      site?.close()
    })

    it("consent gates the photo; a try-on result, a size error code and a size answer show", async () => {
      mkdirSync(SHOTS, { recursive: true })
      const admin = await adminHeaders(getContainer())
      const key = await publishableKey(getContainer())
      const product = await createProduct(call, admin, { title: "Linen shirt", images: [photo("test/fixtures/real-photos/garments/00055_00.jpg")], metadata: { fitroom_3d: false, fitroom_category: "top" } })
      const cart = await newCart(getContainer())
      site = await startServer({ backendUrl: api.defaults.baseURL, publishableKey: key })
      browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader"] })
      const page = await browser.newPage({ viewport: { width: 800, height: 1000 } })
      const errors: string[] = []
      page.on("pageerror", (e) => errors.push(e.message))
      // Chromium logs the expected 4xx answers as failed resources: only scripts' errors count
      page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text()))
      await page.addInitScript((id) => localStorage.setItem("cart_id", id), cart)
      await page.goto(`http://127.0.0.1:${(site.address() as { port: number }).port}/?product=${product.id}`)
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

      // no size chart for this product: the error code reaches the page
      await page.click("#size-go")
      await page.waitForSelector("#size-status.error", { timeout: 280_000 })
      await page.screenshot({ path: path.join(SHOTS, "3-size.png"), fullPage: true })
      expect(await page.textContent("#size-status")).toContain("SIZE_CHART_NOT_FOUND")

      // with a chart, the shopper's twin (made on the first click) answers a size
      const chart = { version: 1, basis: "body", unit: "cm", sizes: [
        { label: "S", measurements: { chest: { min: 80, max: 92 }, waist: { min: 64, max: 76 } } },
        { label: "M", measurements: { chest: { min: 92, max: 104 }, waist: { min: 76, max: 88 } } },
        { label: "L", measurements: { chest: { min: 104, max: 116 }, waist: { min: 88, max: 100 } } },
      ] }
      expect((await call("post", "/admin/fitroom/size-charts", { headers: admin, body: { product_id: product.id, garment_category: "top", chart } })).status).toBe(201)
      await page.click("#size-go")
      await page.waitForSelector("#size-answer:has-text('Your size')", { timeout: 280_000 })
      await page.screenshot({ path: path.join(SHOTS, "4-size-answer.png"), fullPage: true })
      expect(await page.textContent("#size-answer")).toMatch(/^Your size: (S|M|L) \(\d+% sure\)$/)
      expect(errors).toEqual([])
    })
  },
})
