/**
 * The world the plugin's tests run in: one embedded PostgreSQL (Fitroom's own helper) holding both
 * Medusa's test databases and Fitroom's; the real Fitroom service (`main.ts all`, builtin engines) on a
 * loopback port with a service key of the account `medusa-shop`; and a loopback file server with real
 * product photos (Fitroom fetches product images by URL, as it would from a store's CDN).
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, createReadStream, existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import path from "node:path"
import pg from "pg"
import { freePort, startEmbeddedPostgres } from "../../../adapters/postgres/embedded.ts"

const ROOT = path.resolve(__dirname, "../../..")
const NODE = path.join(ROOT, "node_modules/.bin/node")
/** Served under /<dir>/<file>: the real person and garment photos, and the example shoe views. */
const SERVED = [path.join(ROOT, "test/fixtures/real-photos"), path.join(ROOT, "examples/assets")]

export default async function setup() {
  // Fitroom's webhook verifier as the plain-JS package the plugin depends on, then the plugin's build
  // (the install test packs both and installs them into a store)
  execFileSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "packages/webhooks/tsconfig.json"], { cwd: ROOT, stdio: "ignore" })
  execFileSync(path.join(__dirname, "../node_modules/.bin/medusa"), ["plugin:build"], { cwd: path.join(__dirname, ".."), stdio: "ignore" })
  const dir = mkdtempSync(path.join(tmpdir(), "fitroom-medusa-pg-"))
  chmodSync(dir, 0o755)
  const db = await startEmbeddedPostgres({ dir: path.join(dir, "db"), persistent: false })
  const admin = new pg.Client(db.adminUrl)
  await admin.connect()
  await admin.query("create database fitroom")
  await admin.end()

  const photos = await servePhotos()
  // Fitroom sends webhooks over https only: the tests put an https proxy with this certificate in
  // front of the Medusa app, and Fitroom trusts it (NODE_EXTRA_CA_CERTS)
  const tls = { key: path.join(dir, "webhook-key.pem"), cert: path.join(dir, "webhook-cert.pem") }
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", tls.key, "-out", tls.cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" })
  const webhookPort = await freePort()
  const dataDir = path.join(dir, "fitroom-data")
  const port = await freePort()
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    DATABASE_URL: db.urlFor("fitroom"),
    DATA_DIR: dataDir,
    PORT: String(port),
    AR_PORT: String(await freePort()),
    HOST: "127.0.0.1",
    ALLOWED_PRIVATE_NETWORKS: "127.0.0.0/8",
    LOG_LEVEL: "warn",
    NODE_EXTRA_CA_CERTS: tls.cert,
    // a small limit per forwarded shopper, so a test can spend one guest's (each test's shoppers are new)
    SHOPPER_SUBMISSIONS_PER_MINUTE: "6",
  }
  const fitroom = spawn(NODE, ["connectors/standalone/main.ts", "all"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
  const log: string[] = []
  fitroom.stdout!.on("data", (c: Buffer) => log.push(c.toString()))
  fitroom.stderr!.on("data", (c: Buffer) => log.push(c.toString()))
  const url = `http://127.0.0.1:${port}`
  await waitFor(async () => (await fetch(`${url}/api/v1/health`)).ok, 60_000, () => log.join(""))
  const key = execFileSync(NODE, ["connectors/standalone/cli.ts", "keys", "create", "--name", "medusa-shop", "--kind", "service", "--account", "medusa-shop"], { cwd: ROOT, env, encoding: "utf8" }).trim()

  // Medusa's test runners read these; the test workers inherit them.
  Object.assign(process.env, {
    DB_HOST: "localhost", // the runner forces SSL unless the host contains "localhost"
    DB_PORT: String(db.port),
    DB_USERNAME: "fitroom",
    DB_PASSWORD: "fitroom",
    FITROOM_URL: url,
    FITROOM_API_KEY: key,
    FITROOM_DATABASE_URL: db.urlFor("fitroom"),
    SHOPPER_SUBMISSIONS_PER_MINUTE: env.SHOPPER_SUBMISSIONS_PER_MINUTE,
    PHOTOS_URL: photos.url,
    FITROOM_PUBLIC_URL: `https://127.0.0.1:${webhookPort}`,
    FITROOM_WEBHOOK_SECRET: randomBytes(32).toString("hex"),
    WEBHOOK_TLS_KEY: tls.key,
    WEBHOOK_TLS_CERT: tls.cert,
  })

  // Medusa's local file provider writes under the working directory; what the tests stored goes with them
  const files = path.join(__dirname, "../static")
  const hadFiles = existsSync(files)
  return async () => {
    if (!hadFiles) rmSync(files, { recursive: true, force: true })
    await stop(fitroom)
    photos.server.close()
    await db.stop().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}

async function servePhotos(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").slice(1).split("?")[0])
    const file = path.join(ROOT, name)
    if (!SERVED.some((d) => file.startsWith(d + path.sep))) return void res.writeHead(404).end()
    try {
      const size = statSync(file).size
      const type = file.endsWith(".png") ? "image/png" : "image/jpeg"
      res.writeHead(200, { "content-type": type, "content-length": size })
      createReadStream(file).pipe(res)
    } catch {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const addr = server.address() as { port: number }
  return { server, url: `http://127.0.0.1:${addr.port}` } // e.g. /examples/assets/shoe-0.png
}

async function waitFor(ok: () => Promise<boolean>, ms: number, log: () => string) {
  const t0 = Date.now()
  for (;;) {
    if (await ok().catch(() => false)) return
    if (Date.now() - t0 > ms) throw new Error(`Fitroom did not start within ${ms} ms:\n${log()}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

async function stop(p: ChildProcess) {
  if (p.exitCode !== null) return
  const gone = new Promise((r) => p.once("exit", r))
  p.kill("SIGTERM")
  await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))])
  if (p.exitCode === null) p.kill("SIGKILL")
}
