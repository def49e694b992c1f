/** The plugin's admin routes, called from the admin with its session cookie. */
export async function adminApi<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? "GET",
    credentials: "include",
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const data = await res.json().catch(() => ({}))
  if (!res.ok) throw new AdminApiError(res.status, data.message ?? `HTTP ${res.status}`, data.details)
  return data as T
}

export class AdminApiError extends Error {
  constructor(readonly status: number, message: string, readonly details?: { field: string; message: string }[]) {
    super(message)
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
