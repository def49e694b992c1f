import { MedusaError } from "@medusajs/framework/utils"
import type { ResolvedOptions } from "../modules/fitroom/options"

const MAX_IMAGE_BYTES = 10 * 1024 * 1024

/**
 * Product image URLs as Fitroom should receive them: the URLs themselves, or with `inlineImages`
 * (a store whose files Fitroom cannot reach, e.g. the local file provider) data URLs read here.
 */
export async function productImageInputs(urls: string[], opts: ResolvedOptions): Promise<string[]> {
  if (!opts.inlineImages) return urls
  return Promise.all(urls.map((u) => (u.startsWith("data:") ? u : inline(u, opts.requestTimeoutMs))))
}

async function inline(url: string, timeoutMs: number): Promise<string> {
  let res: Response
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
  } catch (e) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, `The product image ${url} could not be read: ${(e as Error).message}`)
  }
  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim()
  if (!res.ok || !/^image\/(png|jpeg|jpg|gif|webp)$/.test(type)) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, `The product image ${url} is not a PNG, JPEG, GIF or WebP image (HTTP ${res.status}, ${type || "no content type"})`)
  }
  const bytes = Buffer.from(await res.arrayBuffer())
  if (bytes.length > MAX_IMAGE_BYTES) throw new MedusaError(MedusaError.Types.INVALID_DATA, `The product image ${url} is larger than 10 MB`)
  return `data:${type};base64,${bytes.toString("base64")}`
}
