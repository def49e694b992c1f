/* global process, console, URL */
// A tiny static server for the storefront example: the page, the Medusa JS SDK's ESM build (with its two
// dependencies) and model-viewer, straight from node_modules, so the example runs without a bundler.
//   MEDUSA_BACKEND_URL=http://localhost:9000 MEDUSA_PUBLISHABLE_KEY=pk_... node serve.mjs [port]
import { createServer } from "node:http"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(here, "serve.mjs"))
const sdkDist = path.dirname(require.resolve("@medusajs/js-sdk")) // …/js-sdk/dist (CommonJS); its ESM build is dist/esm
const fromSdk = createRequire(path.join(sdkDist, "index.js"))
const packageDir = (resolved, name) => resolved.slice(0, resolved.lastIndexOf(name) + name.length)

/** URL prefix → folder on disk. */
const MOUNTS = {
  "/vendor/js-sdk/": path.join(sdkDist, "esm"),
  "/vendor/fetch-event-stream/": path.join(packageDir(fromSdk.resolve("fetch-event-stream"), "fetch-event-stream"), "esm"),
  "/vendor/qs/": path.join(packageDir(fromSdk.resolve("qs"), path.join("node_modules", "qs")), "dist"),
  "/vendor/model-viewer/": path.join(packageDir(require.resolve("@google/model-viewer"), path.join("@google", "model-viewer")), "dist"),
  "/": here,
}
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".json": "application/json", ".css": "text/css" }

export function startServer({ port = 0, host = "127.0.0.1", backendUrl, publishableKey }) {
  const config = `export default ${JSON.stringify({ backendUrl, publishableKey })}\n`
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x")
    if (url.pathname === "/config.js") return send(res, 200, TYPES[".js"], config)
    const prefix = Object.keys(MOUNTS).find((p) => url.pathname.startsWith(p))
    const root = MOUNTS[prefix]
    const rel = url.pathname.slice(prefix.length) || "index.html"
    const file = path.join(root, path.normalize(decodeURIComponent(rel)))
    if (!file.startsWith(root + path.sep)) return send(res, 404, "text/plain", "not found")
    try {
      send(res, 200, TYPES[path.extname(file)] ?? "application/octet-stream", await readFile(file))
    } catch {
      send(res, 404, "text/plain", "not found")
    }
  })
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)))
}

function send(res, status, type, body) {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" })
  res.end(body)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startServer({
    port: Number(process.argv[2] ?? 8000),
    backendUrl: process.env.MEDUSA_BACKEND_URL ?? "http://localhost:9000",
    publishableKey: process.env.MEDUSA_PUBLISHABLE_KEY ?? "",
  })
  console.log(`storefront example on http://127.0.0.1:${server.address().port}/?product=<product id>`)
}
