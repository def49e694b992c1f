import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"
import { FitroomApiError } from "../modules/fitroom/client"

export function fitroomOf(req: MedusaRequest): FitroomModuleService {
  return req.scope.resolve<FitroomModuleService>(FITROOM_MODULE)
}

type Handler = (req: MedusaRequest, res: MedusaResponse) => Promise<void>

/**
 * A route whose Fitroom failures become clear answers in Medusa's error shape (`type`, `message`,
 * plus `code` and `details`): Fitroom unreachable → 503, the store's key refused → 502 (a setting to
 * fix, not the caller's fault), Fitroom's own refusals (invalid input, bot verification, not found,
 * rate limit) with their status and code. Medusa's own errors pass through to its handler.
 */
export function fitroomRoute(fn: Handler): Handler {
  return async (req, res) => {
    try {
      await fn(req, res)
    } catch (caught) {
      const e = FitroomApiError.from(caught)
      if (!e) throw caught
      const [status, type, message] = describe(e)
      res.status(status).json({ type, code: e.code, message, ...(e.details ? { details: e.details } : {}) })
    }
  }
}

function describe(e: FitroomApiError): [number, string, string] {
  if (e.status === 0) return [503, "unexpected_state", `${e.message}. Try again in a moment.`]
  if (e.status === 401) return [502, "unexpected_state", `The store's Fitroom key was refused (${e.code}: ${e.message}). The store owner must set a valid apiKey in the @fitroom/medusa options.`]
  if (e.status === 400 || e.status === 422) return [e.status, "invalid_data", e.message]
  if (e.status === 403) return [403, "not_allowed", e.message]
  if (e.status === 404) return [404, "not_found", e.message]
  if (e.status === 409) return [409, "conflict", e.message]
  if (e.status === 429) return [429, "not_allowed", e.message]
  return [502, "unexpected_state", `Fitroom failed (${e.code}): ${e.message}`]
}

/** A JSON object body, or a 400 saying so. Prototype keys are refused outright. */
export function bodyOf(req: MedusaRequest): Record<string, unknown> {
  const b = req.body
  if (!b || typeof b !== "object" || Array.isArray(b)) throw new MedusaError(MedusaError.Types.INVALID_DATA, "The request body must be a JSON object")
  if (Object.keys(b).some((k) => k === "__proto__" || k === "constructor" || k === "prototype")) throw new MedusaError(MedusaError.Types.INVALID_DATA, "The request body has a forbidden key")
  return b as Record<string, unknown>
}

const IMAGE = /^(https?:\/\/\S+|data:image\/(png|jpeg|jpg|gif|webp);base64,[A-Za-z0-9+/=]+)$/

/** A person photo as Fitroom takes it: an http(s) URL or an image data URL. */
export function isImageInput(v: unknown): v is string {
  return typeof v === "string" && v.length <= 15 * 1024 * 1024 && IMAGE.test(v)
}

export function header(req: MedusaRequest, name: string): string | undefined {
  const v = req.headers[name]
  return typeof v === "string" && v.length > 0 && v.length <= 8192 ? v : undefined
}
