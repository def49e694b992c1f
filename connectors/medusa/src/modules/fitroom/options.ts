/** The plugin's options, as a store writes them in medusa-config.ts. */
export interface FitroomPluginOptions {
  /** Base address of the Fitroom service, e.g. https://fitroom.example.com */
  url: string
  /** A Fitroom API key of the store's account: a user key (fr_live_) or a service key (fr_svc_). */
  apiKey: string
  /** Digitize a product's images into a 3D model when it is created or updated. */
  autoDigitize?: boolean
  /** Product categories for try-on when a product has no `fitroom_category` metadata. */
  defaultCategory?: GarmentCategory
  /** Send product images to Fitroom inline (data URLs) instead of as URLs: for stores whose image URLs Fitroom cannot reach. */
  inlineImages?: boolean
  /** Timeout of one call to Fitroom, milliseconds. */
  requestTimeoutMs?: number
  /** How long a 3D generation may run before the asset is marked failed, minutes. */
  generationTimeoutMinutes?: number
  /** The backend's public https address (as Fitroom reaches it): jobs are submitted with a webhook to it. */
  publicUrl?: string
  /** A random secret of at least 32 characters, with publicUrl: proves a webhook delivery came from the URL only Fitroom was given. */
  webhookSecret?: string
}

export type GarmentCategory = "top" | "bottom" | "fullBody" | "shoes"
export const GARMENT_CATEGORIES: readonly GarmentCategory[] = ["top", "bottom", "fullBody", "shoes"]

export interface ResolvedOptions {
  url: string
  apiKey: string
  autoDigitize: boolean
  defaultCategory: GarmentCategory
  inlineImages: boolean
  requestTimeoutMs: number
  generationTimeoutMinutes: number
  /** The webhook settings, when publicUrl and webhookSecret are set. */
  webhooks: { publicUrl: string; secret: string } | null
}

const KNOWN = new Set(["url", "apiKey", "autoDigitize", "defaultCategory", "inlineImages", "requestTimeoutMs", "generationTimeoutMinutes", "publicUrl", "webhookSecret"])

/** Checks the options once, at load, and says exactly which one is wrong and how to fix it. */
export function resolveOptions(raw: unknown): ResolvedOptions {
  const o = (raw ?? {}) as Record<string, unknown>
  const problems: string[] = []
  // Medusa adds its own keys (e.g. `database`) to module options; only a misspelt option of ours is an error.
  for (const k of Object.keys(o)) {
    const meant = [...KNOWN].find((known) => known !== k && known.toLowerCase() === k.toLowerCase())
    if (meant) problems.push(`unknown option "${k}": did you mean "${meant}"?`)
  }

  let url = ""
  if (typeof o.url !== "string" || !o.url) problems.push('"url" is required: the address of your Fitroom service, e.g. https://fitroom.example.com')
  else {
    try {
      const u = new URL(o.url)
      if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error()
      url = u.toString().replace(/\/+$/, "")
    } catch {
      problems.push(`"url" must be an http or https address, got "${o.url}"`)
    }
  }
  if (typeof o.apiKey !== "string" || !/^fr_(live|svc|dev)_[A-Za-z0-9_-]{16,}$/.test(o.apiKey)) {
    problems.push('"apiKey" must be a Fitroom API key (fr_live_…, fr_svc_… or fr_dev_…): create one with `fitroom keys create --name my-store --kind service --account my-store`')
  }
  const bool = (k: string, d: boolean) => {
    if (o[k] === undefined) return d
    if (typeof o[k] !== "boolean") problems.push(`"${k}" must be true or false`)
    return o[k] === true
  }
  const int = (k: string, d: number, min: number, max: number) => {
    if (o[k] === undefined) return d
    const v = o[k]
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) problems.push(`"${k}" must be a whole number from ${min} to ${max}`)
    return typeof v === "number" ? v : d
  }
  const defaultCategory = (o.defaultCategory ?? "top") as GarmentCategory
  if (!GARMENT_CATEGORIES.includes(defaultCategory)) problems.push(`"defaultCategory" must be one of ${GARMENT_CATEGORIES.join(", ")}`)
  let webhooks: ResolvedOptions["webhooks"] = null
  if (o.publicUrl !== undefined || o.webhookSecret !== undefined) {
    let publicUrl = ""
    try {
      const u = new URL(String(o.publicUrl))
      if (u.protocol !== "https:") throw new Error()
      publicUrl = u.toString().replace(/\/+$/, "")
    } catch {
      problems.push(`"publicUrl" must be the https address of this Medusa backend as Fitroom reaches it (Fitroom sends webhooks over https only), got "${String(o.publicUrl ?? "")}"`)
    }
    if (typeof o.webhookSecret !== "string" || o.webhookSecret.length < 32) problems.push('"webhookSecret" must be a random string of at least 32 characters (e.g. `openssl rand -hex 32`), set together with "publicUrl"')
    else webhooks = { publicUrl, secret: o.webhookSecret }
  }
  const resolved: ResolvedOptions = {
    url,
    apiKey: typeof o.apiKey === "string" ? o.apiKey : "",
    autoDigitize: bool("autoDigitize", false),
    defaultCategory,
    inlineImages: bool("inlineImages", false),
    requestTimeoutMs: int("requestTimeoutMs", 20_000, 1_000, 300_000),
    generationTimeoutMinutes: int("generationTimeoutMinutes", 30, 1, 24 * 60),
    webhooks,
  }
  if (problems.length) throw new Error(`@fitroom/medusa: invalid plugin options in medusa-config.ts:\n  - ${problems.join("\n  - ")}`)
  return resolved
}
