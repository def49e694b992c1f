import Medusa from "@medusajs/js-sdk"

// Set by the admin's build (the backend address and auth type of medusa-config.ts's admin settings).
declare const __BACKEND_URL__: string | undefined
declare const __AUTH_TYPE__: "session" | "jwt" | undefined

const backendUrl = typeof __BACKEND_URL__ === "string" && __BACKEND_URL__ && __BACKEND_URL__ !== "/" ? __BACKEND_URL__ : window.location.origin

/**
 * The admin JS SDK, as the dashboard itself sets it up: the backend's address (which may be another
 * origin than the admin's) and the admin's session or token.
 */
export const sdk = new Medusa({ baseUrl: backendUrl, auth: { type: typeof __AUTH_TYPE__ === "string" && __AUTH_TYPE__ === "jwt" ? "jwt" : "session" } })

/** The plugin's admin routes through the SDK's client (JSON bodies, the admin's credentials). */
export async function adminApi<T>(path: string, init: { method?: string; body?: unknown; query?: Record<string, string> } = {}): Promise<T> {
  try {
    return await sdk.client.fetch<T>(path, { method: init.method ?? "GET", ...(init.body === undefined ? {} : { body: init.body as Record<string, unknown> }), ...(init.query ? { query: init.query } : {}) })
  } catch (e) {
    const err = e as Error & { status?: number }
    throw new AdminApiError(err.status ?? 0, err.message)
  }
}

export class AdminApiError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

export interface ProductModel {
  id: string
  status: "processing" | "ready" | "attached" | "failed"
  progress: number
  glb_url: string | null
  preview_url: string | null
  error_code: string | null
  error_message: string | null
  created_at: string
}

export interface SizeChartRecord {
  id: string
  garment_category: "top" | "bottom" | "fullBody"
  chart: { version: 1; basis: "body"; unit: "cm" | "in"; sizes: { label: string; measurements: Record<string, { min: number; max: number }> }[] }
}
