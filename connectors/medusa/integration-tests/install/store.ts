/**
 * A fresh Medusa store in a temp folder with the packed plugin installed, as a store developer has it:
 * `npm pack` of the plugin and of Fitroom's webhook verifier (its one dependency), `npm install` of the
 * two tarballs only (offline, --no-save), `medusa db:migrate`; then `medusa user`, and `medusa start`
 * or `medusa develop` on a free port. Medusa itself comes from the plugin's installed dependencies (a
 * node_modules linked one level above the store, where Node's resolution finds it, as in a hoisted
 * monorepo), so nothing is downloaded.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process"
import { createReadStream, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import path from "node:path"
import { promisify } from "node:util"
import pg from "pg"
import { freePort } from "../../../../adapters/postgres/embedded.ts"

export const PLUGIN = path.resolve(__dirname, "../..")
const WEBHOOKS = path.resolve(PLUGIN, "../../packages/webhooks")
const MEDUSA = path.join(PLUGIN, "node_modules/.bin/medusa")
export const run = promisify(execFile)

// Any loopback origin may call the store and auth routes: the storefront example is served from a
// port chosen at start. The local file provider writes under ./static and its URLs name FILES_URL, a
// file host with CORS (as a bucket behind a CDN would be): Medusa's own /static answers without it.
const CONFIG = `import { defineConfig } from "@medusajs/framework/utils"

const loopback = "/^http:\\\\/\\\\/(127\\\\.0\\\\.0\\\\.1|localhost):\\\\d+$/"
module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: { storeCors: loopback, adminCors: loopback, authCors: loopback, jwtSecret: "install-test", cookieSecret: "install-test" },
  },
  admin: { disable: true },
  modules: [
    { resolve: "@medusajs/medusa/file", options: { providers: [{ resolve: "@medusajs/medusa/file-local", id: "local", options: { backend_url: process.env.FILES_URL } }] } },
  ],
  // inlineImages: the plugin reads the product photos itself and sends them to Fitroom as data URLs
  plugins: [{ resolve: "@fitroom/medusa", options: { url: process.env.FITROOM_URL, apiKey: process.env.FITROOM_API_KEY, inlineImages: true } }],
})
`

export interface Store {
  app: string
  env: NodeJS.ProcessEnv
  figures: { installMs: number; migrateMs: number }
  packed: { path: string }[]
  /** Starts `medusa start` or `medusa develop`; resolves once /health answers. */
  boot(command: "start" | "develop"): Promise<Running>
  /** `medusa user`: the admin user of the store. */
  createUser(email: string, password: string): Promise<void>
  /** Runs `medusa start` with other environment variables to its end (a start that must fail): exit code and output. */
  startFails(env: Record<string, string>): Promise<{ code: number | null; output: string }>
  remove(): Promise<void>
}

export interface Running {
  base: string
  bootMs: number
  log(): string
  stop(): Promise<void>
}

export async function installStore(): Promise<Store> {
  const dir = mkdtempSync(path.join(tmpdir(), "fitroom-medusa-install-"))
  const app = path.join(dir, "store")
  const database = `install_${process.pid}`
  const dbUrl = `postgres://${process.env.DB_USERNAME}:${process.env.DB_PASSWORD}@${process.env.DB_HOST}:${process.env.DB_PORT}`
  const files = await serveFiles(path.join(app, "static"))
  const running = new Set<ChildProcess>()

  // the tarballs exactly as published (the global setup built both)
  const pack = async (cwd: string) => JSON.parse((await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd })).stdout)[0]
  const plugin = await pack(PLUGIN)
  const webhooks = await pack(WEBHOOKS)
  symlinkSync(path.join(PLUGIN, "node_modules"), path.join(dir, "node_modules"))
  mkdirSync(app)
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "install-test-store", private: true }))
  writeFileSync(path.join(app, "medusa-config.ts"), CONFIG)
  const installing = performance.now()
  await run("npm", ["install", "--no-save", "--offline", "--legacy-peer-deps", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", path.join(dir, webhooks.filename), path.join(dir, plugin.filename)], { cwd: app })
  const installMs = performance.now() - installing
  // the store's manifest as a store has it (the medusa CLI looks for @medusajs/medusa there); written after
  // the install so npm fetches nothing but the tarballs
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "install-test-store", private: true, dependencies: { "@medusajs/framework": "2.21.2", "@medusajs/medusa": "2.21.2", "@fitroom/medusa": `file:../${plugin.filename}` } }))
  writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2021", module: "Node16", moduleResolution: "Node16", esModuleInterop: true, skipLibCheck: true, strict: true } }))

  const admin = new pg.Client(`${dbUrl}/postgres`)
  await admin.connect()
  await admin.query(`create database ${database}`)
  await admin.end()
  const env = { ...process.env, DATABASE_URL: `${dbUrl}/${database}`, FILES_URL: files.url, NODE_ENV: "production" }
  const migrating = performance.now()
  await run(MEDUSA, ["db:migrate"], { cwd: app, env })
  const migrateMs = performance.now() - migrating

  return {
    app,
    env,
    packed: plugin.files,
    figures: { installMs, migrateMs },
    async boot(command) {
      const port = await freePort()
      const base = `http://localhost:${port}`
      const started = performance.now()
      // develop forks `medusa start` (and watches the folder): its own process group, stopped as one
      const child = spawn(MEDUSA, [command], { cwd: app, env: { ...env, PORT: String(port), ...(command === "develop" ? { NODE_ENV: "development" } : {}) }, stdio: ["ignore", "pipe", "pipe"], detached: true })
      running.add(child)
      let log = ""
      child.stdout!.on("data", (c: Buffer) => (log += c.toString()))
      child.stderr!.on("data", (c: Buffer) => (log += c.toString()))
      const stop = async () => {
        if (child.exitCode !== null || child.signalCode !== null) return
        const gone = new Promise((r) => child.once("exit", r))
        process.kill(-child.pid!, "SIGTERM")
        await gone
        running.delete(child)
      }
      await new Promise<void>((resolve, reject) => {
        const exited = () => reject(new Error(`medusa ${command} exited:\n${log}`))
        child.once("exit", exited)
        const poll = async () => {
          const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false)
          if (ok) {
            child.off("exit", exited)
            return resolve()
          }
          if (performance.now() - started > 400_000) return reject(new Error(`medusa ${command}: no /health after 400 s:\n${log}`))
          setTimeout(poll, 250)
        }
        poll()
      })
      return { base, bootMs: performance.now() - started, log: () => log, stop }
    },
    async createUser(email, password) {
      await run(MEDUSA, ["user", "-e", email, "-p", password], { cwd: app, env })
    },
    async startFails(more) {
      const child = spawn(MEDUSA, ["start"], { cwd: app, env: { ...env, PORT: String(await freePort()), ...more }, stdio: ["ignore", "pipe", "pipe"], detached: true })
      running.add(child)
      let output = ""
      child.stdout!.on("data", (c: Buffer) => (output += c.toString()))
      child.stderr!.on("data", (c: Buffer) => (output += c.toString()))
      // a start that does not fail would serve: stopped after 200 s, and the test then sees no exit code 1
      const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 200_000)
      const code = await new Promise<number | null>((r) => child.once("exit", r))
      clearTimeout(timer)
      running.delete(child)
      return { code, output }
    },
    async remove() {
      for (const child of running) if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL")
      files.server.close()
      rmSync(dir, { recursive: true, force: true })
      const db = new pg.Client(`${dbUrl}/postgres`)
      await db.connect()
      await db.query(`drop database if exists ${database} with (force)`)
      await db.end()
    },
  }
}

/** The store's uploaded files over HTTP with CORS (what a bucket's CDN does for a storefront on another origin). */
async function serveFiles(root: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const file = path.join(root, path.normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)))
    if (!file.startsWith(root + path.sep)) return void res.writeHead(404).end()
    try {
      const size = statSync(file).size
      const type = file.endsWith(".glb") ? "model/gltf-binary" : file.endsWith(".png") ? "image/png" : "application/octet-stream"
      res.writeHead(200, { "content-type": type, "content-length": size, "access-control-allow-origin": "*" })
      createReadStream(file).pipe(res)
    } catch {
      res.writeHead(404, { "access-control-allow-origin": "*" }).end()
    }
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }
}
