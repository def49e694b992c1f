import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { FITROOM_MODULE } from "../modules/fitroom"
import type FitroomModuleService from "../modules/fitroom/service"
import { FitroomApiError } from "../modules/fitroom/client"

export function fitroomOf(req: MedusaRequest): FitroomModuleService {
  return req.scope.resolve<FitroomModuleService>(FITROOM_MODULE)
}

type Handler<B> = (req: MedusaRequest<B>, res: MedusaResponse) => Promise<void>

/**
 * A route whose Fitroom failures become Medusa errors with Fitroom's code kept: its refusals (invalid
 * input 400, bot verification 403, not found 404) are thrown as MedusaError for Medusa's error handler;
 * what Medusa's error types cannot express is answered in the same shape (`type`, `code`, `message`):
 * rate limit 429, Fitroom unreachable 503, the store's key refused 502 (a setting to fix, not the
 * caller's fault), a conflict 409 (Medusa rewrites its own conflict message).
 */
export function fitroomRoute<B = unknown>(fn: Handler<B>): Handler<B> {
  return async (req, res) => {
    try {
      await fn(req, res)
    } catch (caught) {
      const e = FitroomApiError.from(caught)
      if (!e) throw caught
      if (e.pass) res.setHeader("X-Fitroom-Pass", e.pass) // a challenge used up before the refusal still earned a pass
      const medusa = medusaErrorOf(e)
      if (medusa) throw medusa
      res.status(statusOf(e)).json({ type: typeOf(e), code: e.code, message: messageOf(e), ...(e.details ? { details: e.details } : {}) })
    }
  }
}

function medusaErrorOf(e: FitroomApiError): MedusaError | null {
  const type = e.status === 400 || e.status === 422 ? MedusaError.Types.INVALID_DATA : e.status === 403 ? MedusaError.Types.FORBIDDEN : e.status === 404 ? MedusaError.Types.NOT_FOUND : null
  if (!type) return null
  return new MedusaError(type, e.details?.length ? `${e.message}: ${e.details.map((d) => `${d.field} ${d.message}`).join("; ")}` : e.message, e.code)
}

function statusOf(e: FitroomApiError): number {
  if (e.status === 0) return 503
  if (e.status === 409 || e.status === 429) return e.status
  return 502
}

function typeOf(e: FitroomApiError): string {
  return e.status === 409 ? "conflict" : e.status === 429 ? "not_allowed" : "unexpected_state"
}

function messageOf(e: FitroomApiError): string {
  if (e.status === 0) return `${e.message}. Try again in a moment.`
  if (e.status === 401) return `The store's Fitroom key was refused (${e.code}: ${e.message}). The store owner must set a valid apiKey in the @fitroom/medusa options.`
  if (e.status === 409 || e.status === 429) return e.message
  return `Fitroom failed (${e.code}): ${e.message}`
}

export function header(req: MedusaRequest, name: string): string | undefined {
  const v = req.headers[name]
  return typeof v === "string" && v.length > 0 && v.length <= 8192 ? v : undefined
}
