import { moduleIntegrationTestRunner } from "@medusajs/test-utils"
import { FITROOM_MODULE } from "../../src/modules/fitroom"
import type FitroomModuleService from "../../src/modules/fitroom/service"
import { FitroomProductModel } from "../../src/modules/fitroom/models/product-model"
import { FitroomSizeChart } from "../../src/modules/fitroom/models/size-chart"
import { FitroomTryOn } from "../../src/modules/fitroom/models/tryon"
import { FitroomDigitalTwin } from "../../src/modules/fitroom/models/digital-twin"
import { FitroomModel } from "../../src/modules/fitroom/models/shown-model"
import { FitroomWebhookDelivery } from "../../src/modules/fitroom/models/webhook-delivery"
import { resolveOptions } from "../../src/modules/fitroom/options"
import { FitroomClient, webhookToken } from "../../src/modules/fitroom/client"
// the verifier the plugin runs: Fitroom's, as its published JavaScript package
import { verifyWebhook } from "@fitroom/webhooks"
// Fitroom's own signing, which the plugin's check must agree with
import { canonicalJson, signWebhook, webhookSecretForKey } from "../../../../core/webhooks.ts"
import { sizeChartProblems } from "../../src/modules/fitroom/size-chart"

const CHART = { version: 1, basis: "body", unit: "cm", sizes: [{ label: "S", measurements: { chest: { min: 82, max: 90 } } }, { label: "M", measurements: { chest: { min: 90, max: 98 } } }] }

moduleIntegrationTestRunner<FitroomModuleService>({
  moduleName: FITROOM_MODULE,
  moduleModels: [FitroomProductModel, FitroomSizeChart, FitroomTryOn, FitroomDigitalTwin, FitroomModel, FitroomWebhookDelivery],
  resolve: "./src/modules/fitroom",
  moduleOptions: { url: "http://127.0.0.1:1", apiKey: "fr_svc_0123456789abcdefghijklmnop" },
  testSuite: ({ service }) => {
    describe("the fitroom module", () => {
      it("stores 3D models with their job and files, one job id per live model", async () => {
        const m = await service.createFitroomProductModels({ product_id: "prod_1", job_id: "job-1", source_images: { urls: ["https://cdn/a.png"] } })
        expect(m.id).toMatch(/^frpm_/)
        expect(m.status).toBe("processing")
        expect(m.progress).toBe(0)
        await expect(service.createFitroomProductModels({ product_id: "prod_2", job_id: "job-1" })).rejects.toThrow()
        const updated = await service.updateFitroomProductModels({ id: m.id, status: "ready", glb_url: "http://files/x.glb" })
        expect(updated.status).toBe("ready")
        await service.softDeleteFitroomProductModels([m.id])
        // a deleted model's job id can be used again (its index covers live rows only)
        await expect(service.createFitroomProductModels({ product_id: "prod_1", job_id: "job-1" })).resolves.toMatchObject({ job_id: "job-1" })
      })

      it("finds the chart of a product before the charts of its categories, in category order", async () => {
        await service.createFitroomSizeCharts([
          { category_id: "pcat_shirts", garment_category: "top", chart: CHART },
          { category_id: "pcat_sale", garment_category: "top", chart: { ...CHART, unit: "in" } },
        ])
        expect((await service.chartFor("prod_x", ["pcat_sale", "pcat_shirts"]))?.category_id).toBe("pcat_sale")
        expect((await service.chartFor("prod_x", ["pcat_none", "pcat_shirts"]))?.category_id).toBe("pcat_shirts")
        expect(await service.chartFor("prod_x", [])).toBeNull()
        await service.createFitroomSizeCharts({ product_id: "prod_x", garment_category: "bottom", chart: CHART })
        expect((await service.chartFor("prod_x", ["pcat_shirts"]))?.garment_category).toBe("bottom")
        // one chart per product
        await expect(service.createFitroomSizeCharts({ product_id: "prod_x", garment_category: "top", chart: CHART })).rejects.toThrow()
      })

      it("keeps one try-on record per job", async () => {
        await service.createFitroomTryOns({ job_id: "j-1", product_id: "prod_1", cart_id: "cart_1" })
        await expect(service.createFitroomTryOns({ job_id: "j-1", product_id: "prod_1", customer_id: "cus_1" })).rejects.toThrow()
        expect(await service.listFitroomTryOns({ cart_id: "cart_1" })).toHaveLength(1)
      })

      it("keeps each webhook delivery id once", async () => {
        await service.createFitroomWebhookDeliveries({ delivery_id: "d-1", event: "job.completed", job_id: "j-1" })
        await expect(service.createFitroomWebhookDeliveries({ delivery_id: "d-1", event: "job.completed", job_id: "j-1" })).rejects.toThrow()
      })

      it("has the options it was loaded with, checked", () => {
        expect(service.options).toMatchObject({ url: "http://127.0.0.1:1", autoDigitize: false, defaultCategory: "top", requestTimeoutMs: 20000 })
        expect(service.client.serviceKey).toBe(true)
      })
    })
  },
})

describe("plugin options", () => {
  it("names every wrong option and how to fix it", () => {
    expect(() => resolveOptions({})).toThrow(/"url" is required[\s\S]*"apiKey" must be a Fitroom API key/)
    let message = ""
    try {
      resolveOptions({ url: "ftp://x", apiKey: "fr_live_0123456789abcdefghij", autoDigitize: "yes", defaultCategory: "hat", requestTimeoutMs: 5, apikey: 1, database: {} })
    } catch (e) {
      message = (e as Error).message
    }
    for (const said of ['unknown option "apikey": did you mean "apiKey"?', '"url" must be an http or https address', '"autoDigitize" must be true or false', '"requestTimeoutMs" must be a whole number from 1000', '"defaultCategory" must be one of']) {
      expect(message).toContain(said)
    }
    expect(message).not.toContain("database") // Medusa's own keys are not ours to refuse
    expect(resolveOptions({ url: "https://fitroom.example.com/", apiKey: "fr_live_0123456789abcdefghij", autoDigitize: true })).toMatchObject({ url: "https://fitroom.example.com", autoDigitize: true, inlineImages: false })
  })
})

describe("webhook settings and checks", () => {
  const base = { url: "https://fitroom.example.com", apiKey: "fr_live_0123456789abcdefghij" }
  it("publicUrl must be https and comes with a long secret; the webhook URL carries a token, not the secret", () => {
    expect(() => resolveOptions({ ...base, publicUrl: "http://shop.example.com", webhookSecret: "x".repeat(40) })).toThrow(/"publicUrl" must be the https address/)
    expect(() => resolveOptions({ ...base, publicUrl: "https://shop.example.com" })).toThrow(/"webhookSecret" must be a random string of at least 32 characters/)
    const opts = resolveOptions({ ...base, publicUrl: "https://shop.example.com/", webhookSecret: "s".repeat(40) })
    expect(opts.webhooks).toEqual({ publicUrl: "https://shop.example.com", secret: "s".repeat(40) })
    const url = new FitroomClient(opts).webhookUrl()
    expect(url).toBe(`https://shop.example.com/hooks/fitroom/${webhookToken("s".repeat(40))}`)
    expect(url).not.toContain("s".repeat(40))
    expect(new FitroomClient(resolveOptions(base)).webhookUrl()).toBeNull()
  })

  it("@fitroom/webhooks (plain JS) checks what Fitroom signs: job callbacks over the canonical JSON, batch callbacks over the bytes", () => {
    const secret = webhookSecretForKey("account:shop")
    const timestamp = new Date().toISOString()
    const job = { timestamp, status: "completed", jobId: "j-1", event: "job.completed", result: { glbUrl: "https://f/x.glb", b: 1 } }
    const sent = JSON.stringify(job) // keys not sorted: the signature is over the canonical form
    const signature = signWebhook(secret, canonicalJson(job))
    expect(verifyWebhook({ body: Buffer.from(sent), signature, timestamp, secret })).toMatchObject({ ok: true })
    expect(verifyWebhook({ body: sent.replace("j-1", "j-2"), signature, timestamp, secret })).toEqual({ ok: false, reason: "bad_signature" })
    expect(verifyWebhook({ body: sent, signature, timestamp: new Date(Date.now() + 1000).toISOString(), secret })).toEqual({ ok: false, reason: "timestamp_mismatch" })
    expect(verifyWebhook({ body: sent, signature, timestamp, secret, now: new Date(Date.now() + 301_000) })).toEqual({ ok: false, reason: "stale" })
    expect(verifyWebhook({ body: "{", signature, timestamp, secret })).toEqual({ ok: false, reason: "bad_payload" })
    expect(verifyWebhook({ body: sent, signature: undefined, timestamp, secret })).toEqual({ ok: false, reason: "missing_signature" })
    const batch = JSON.stringify({ event: "batch.completed", batchId: "b-1", timestamp, z: 1, a: 2 })
    expect(verifyWebhook({ body: batch, signature: signWebhook(secret, batch), timestamp, secret, kind: "batch" }).ok).toBe(true)
  })
})

describe("size chart checks", () => {
  it("accepts a version 1 body chart and names each problem of a bad one", () => {
    expect(sizeChartProblems(CHART, "top")).toEqual([])
    const bad = { version: 2, basis: "garment", unit: "mm", sizes: [{ label: "S", measurements: { chest: { min: 90, max: 80 } } }, { label: "S", measurements: { inseam: { min: 70, max: 80 } } }], extra: 1 }
    const fields = sizeChartProblems(bad, "top").map((p) => p.field)
    expect(fields).toEqual(expect.arrayContaining(["chart.extra", "chart.version", "chart.basis", "chart.unit", "chart.sizes[0].measurements.chest", "chart.sizes[1].label", "chart.sizes[1].measurements"]))
    expect(sizeChartProblems(CHART, "shoes").map((p) => p.field)).toContain("garment_category")
    expect(sizeChartProblems(null, "top")).toEqual([{ field: "chart", message: "must be an object" }])
  })
})
