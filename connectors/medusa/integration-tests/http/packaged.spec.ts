import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import path from "node:path"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { adminHeaders, caller, createProduct, publishableKey, SHOE_VIEWS, until } from "./helpers"

// A store with the plugin as the build (medusa plugin:build, run by the global setup) publishes it:
// registered under `plugins`, its module, links, routes, subscribers and jobs loaded from .medusa/server.
const STORE = path.join(__dirname, "../store")
const PLUGIN = path.resolve(__dirname, "../..")

medusaIntegrationTestRunner({
  medusaConfigFile: STORE,
  testSuite: ({ api, getContainer, dbConfig }) => {
    const call = caller(api)

    it("migrates the module's tables and serves the store and admin routes from the build", async () => {
      const admin = await adminHeaders(getContainer())
      const store = { "x-publishable-api-key": await publishableKey(getContainer()) }
      const tables = await getContainer().resolve("__pg_connection__").raw("select table_name from information_schema.tables where table_name like 'fitroom_%' order by 1")
      expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(["fitroom_digital_twin", "fitroom_model", "fitroom_product_model", "fitroom_size_chart", "fitroom_tryon", "fitroom_webhook_delivery"])

      expect((await call("get", "/admin/fitroom/status", { headers: admin })).data.status.ok).toBe(true)
      const challenge = await call("get", "/store/fitroom/challenge", { headers: store })
      expect(challenge.status).toBe(200)
      expect(challenge.data.challenge.algorithm).toBe("SHA-256")

      // inlineImages: the plugin reads the product photos itself and sends them as data URLs
      const product = await createProduct(call, admin, { title: "Trail shoe", images: SHOE_VIEWS, metadata: { fitroom_3d: false } })
      expect((await call("post", `/admin/fitroom/products/${product.id}/models`, { headers: admin })).status).toBe(202)
      const ready = await until(async () => {
        const m = (await call("get", `/admin/fitroom/products/${product.id}/models`, { headers: admin })).data.models[0]
        if (m.status === "failed") throw new Error(`${m.error_code}: ${m.error_message}`)
        return m.status === "ready" && m
      }, 240_000, "the model")
      expect((await call("post", `/admin/fitroom/models/${ready.id}/attach`, { headers: admin })).status).toBe(200)
      const shown = await call("get", `/store/fitroom/products/${product.id}/model`, { headers: store })
      expect(shown.data.model.glb_url).toBe(ready.glb_url)
      const glb = readFileSync(path.join(process.cwd(), "static", path.basename(ready.glb_url))) // the local file provider writes under the working directory
      expect(glb.subarray(0, 4).toString()).toBe("glTF")
    })

    it("the admin bundle carries the product and category widgets", () => {
      const bundle = readFileSync(path.join(PLUGIN, ".medusa/server/src/admin/index.mjs"), "utf8")
      expect(bundle).toContain("product.details.after")
      expect(bundle).toContain("product_category.details.after")
      expect(bundle).toContain("Generate 3D")
    })

    it("a store with wrong options does not start, and says which option is wrong", async () => {
      // `medusa exec` boots the store as `medusa start` does (modules and their loaders), then runs a script
      const child = spawn(path.join(PLUGIN, "node_modules/.bin/medusa"), ["exec", "./boot.ts"], {
        cwd: STORE,
        env: { ...process.env, DATABASE_URL: dbConfig.clientUrl, FITROOM_API_KEY: "my-secret" },
        stdio: ["ignore", "pipe", "pipe"],
      })
      let output = ""
      child.stdout!.on("data", (c: Buffer) => (output += c.toString()))
      child.stderr!.on("data", (c: Buffer) => (output += c.toString()))
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
      const code = await new Promise((r) => child.once("exit", r))
      clearTimeout(timer)
      expect(code).toBe(1)
      expect(output).toContain('@fitroom/medusa: invalid plugin options in medusa-config.ts')
      expect(output).toContain('"apiKey" must be a Fitroom API key')
      expect(output).not.toContain("fitroom-test-store booted")
    })
  },
})
