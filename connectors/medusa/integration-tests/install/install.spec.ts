/**
 * The path every store takes: `npm pack` the built plugin, install the tarball into a fresh minimal Medusa
 * app in a temp folder, `medusa db:migrate`, `medusa start`, then a store and an admin route over HTTP.
 * Medusa itself comes from the plugin's installed dependencies (a node_modules linked one level above the
 * app, where Node's resolution finds it, as in a hoisted monorepo); npm installs only the tarball, offline.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process"
import { promisify } from "node:util"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import pg from "pg"
import { freePort } from "../../../../adapters/postgres/embedded.ts"

const PLUGIN = path.resolve(__dirname, "../..")
const MEDUSA = path.join(PLUGIN, "node_modules/.bin/medusa")
const run = promisify(execFile)

const CONFIG = `import { defineConfig } from "@medusajs/framework/utils"

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: { storeCors: "*", adminCors: "*", authCors: "*", jwtSecret: "install-test", cookieSecret: "install-test" },
  },
  admin: { disable: true },
  plugins: [{ resolve: "@fitroom/medusa", options: { url: process.env.FITROOM_URL, apiKey: process.env.FITROOM_API_KEY } }],
})
`

describe("installing the packed plugin into a fresh Medusa app", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "fitroom-medusa-install-"))
  const app = path.join(dir, "store")
  const database = `install_${process.pid}`
  const dbUrl = `postgres://${process.env.DB_USERNAME}:${process.env.DB_PASSWORD}@${process.env.DB_HOST}:${process.env.DB_PORT}`
  let server: ChildProcess | undefined

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill("SIGTERM")
      await new Promise((r) => server!.once("exit", r))
    }
    rmSync(dir, { recursive: true, force: true })
    const db = new pg.Client(`${dbUrl}/postgres`)
    await db.connect()
    await db.query(`drop database if exists ${database} with (force)`)
    await db.end()
  })

  it("packs, installs, migrates, starts and serves a store and an admin route", async () => {
    // the tarball exactly as published (the global setup ran `medusa plugin:build`)
    const packed = JSON.parse((await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd: PLUGIN })).stdout)[0]
    const tarball = path.join(dir, packed.filename)
    expect(packed.files.map((f: { path: string }) => f.path)).toContain(".medusa/server/src/admin/index.mjs")
    expect(packed.files.some((f: { path: string }) => f.path.startsWith("src/"))).toBe(false)

    symlinkSync(path.join(PLUGIN, "node_modules"), path.join(dir, "node_modules"))
    mkdirSync(app)
    writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "install-test-store", private: true }))
    writeFileSync(path.join(app, "medusa-config.ts"), CONFIG)
    const started = performance.now()
    await run("npm", ["install", "--no-save", "--offline", "--legacy-peer-deps", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", tarball], { cwd: app })
    const installMs = performance.now() - started
    expect(readdirSync(path.join(app, "node_modules/@fitroom/medusa"))).toEqual(expect.arrayContaining([".medusa", "package.json", "README.md"]))
    expect(existsSync(path.join(app, "node_modules/@medusajs"))).toBe(false) // Medusa is the store's, not the plugin's
    // the store's manifest as a store has it (the medusa CLI looks for @medusajs/medusa there); written after
    // the install so npm fetches nothing but the tarball
    writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "install-test-store", private: true, dependencies: { "@medusajs/framework": "2.21.2", "@medusajs/medusa": "2.21.2", "@fitroom/medusa": `file:${tarball}` } }))
    writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2021", module: "Node16", moduleResolution: "Node16", esModuleInterop: true, skipLibCheck: true, strict: true } }))

    const db = new pg.Client(`${dbUrl}/postgres`)
    await db.connect()
    await db.query(`create database ${database}`)
    await db.end()
    const env = { ...process.env, DATABASE_URL: `${dbUrl}/${database}`, NODE_ENV: "production" }
    const migrating = performance.now()
    await run(MEDUSA, ["db:migrate"], { cwd: app, env })
    const migrateMs = performance.now() - migrating
    await run(MEDUSA, ["user", "-e", "owner@store.test", "-p", "install-test-password"], { cwd: app, env })

    const port = await freePort()
    const base = `http://localhost:${port}`
    const booting = performance.now()
    server = spawn(MEDUSA, ["start"], { cwd: app, env: { ...env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] })
    let log = ""
    server.stdout!.on("data", (c: Buffer) => (log += c.toString()))
    server.stderr!.on("data", (c: Buffer) => (log += c.toString()))
    await new Promise<void>((resolve, reject) => {
      const exited = () => reject(new Error(`medusa start exited:\n${log}`))
      server!.once("exit", exited)
      const poll = async () => {
        const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false)
        if (performance.now() - booting > 200_000) return reject(new Error(`medusa start: no /health after 200 s:\n${log}`))
        if (ok) {
          server!.off("exit", exited)
          resolve()
        } else setTimeout(poll, 250)
      }
      poll()
    })
    const bootMs = performance.now() - booting
    console.log(`install test: npm install of the tarball ${Math.round(installMs)} ms, db:migrate ${Math.round(migrateMs)} ms, medusa start to /health ${Math.round(bootMs)} ms`)

    const login = await fetch(`${base}/auth/user/emailpass`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "owner@store.test", password: "install-test-password" }) })
    expect(login.status).toBe(200)
    const admin = { authorization: `Bearer ${(await login.json()).token}`, "content-type": "application/json" }
    const status = await fetch(`${base}/admin/fitroom/status`, { headers: admin })
    expect(status.status).toBe(200)
    expect((await status.json()).status.ok).toBe(true)

    const created = await fetch(`${base}/admin/api-keys`, { method: "POST", headers: admin, body: JSON.stringify({ title: "Storefront", type: "publishable" }) })
    expect(created.status).toBe(200)
    const key = (await created.json()).api_key.token
    const challenge = await fetch(`${base}/store/fitroom/challenge`, { headers: { "x-publishable-api-key": key } })
    expect(challenge.status).toBe(200)
    expect((await challenge.json()).challenge.algorithm).toBe("SHA-256")
    const missing = await fetch(`${base}/store/fitroom/products/prod_missing/model`, { headers: { "x-publishable-api-key": key } })
    expect(missing.status).toBe(404)
  })
})
