import { createHash, createHmac } from "node:crypto"
import type { ResolvedOptions } from "./options"

/** An answer from Fitroom that is not a success, or Fitroom not answering at all. */
export class FitroomApiError extends Error {
  constructor(
    /** Fitroom's HTTP status, or 0 when no answer came. */
    readonly status: number,
    /** Fitroom's `error.code`, or FITROOM_UNREACHABLE / FITROOM_BAD_ANSWER. */
    readonly code: string,
    message: string,
    readonly details?: { field: string; message: string }[]
  ) {
    super(message)
    this.name = "FitroomApiError"
  }

  /** A verification pass Fitroom minted on the refused call (a used challenge), for the shopper's page. */
  pass?: string
  ttlSeconds?: number

  /**
   * The error as this copy of the class, also when it crossed a boundary that keeps only its fields
   * (a workflow's error handling, another copy of this module).
   */
  static from(e: unknown): FitroomApiError | null {
    if (e instanceof FitroomApiError) return e
    const o = e as { name?: unknown; status?: unknown; code?: unknown; message?: unknown; details?: unknown } | null
    if (!o || typeof o !== "object" || o.name !== "FitroomApiError" || typeof o.status !== "number" || typeof o.code !== "string") return null
    return new FitroomApiError(o.status, o.code, String(o.message ?? ""), Array.isArray(o.details) ? o.details : undefined)
  }
}

export interface FitroomJob {
  jobId: string
  status: "queued" | "validating" | "processing" | "uploading" | "completed" | "failed" | string
  /** Shoe-3d: a number 0-100; try-on: `{stage, percentage?}`. */
  progress?: number | { stage?: string; percentage?: number }
  result?: Record<string, unknown> | null
  results?: { url: string; expiresAt?: string }[]
  error?: string | null
  errorCode?: string | null
}

export interface Submission {
  jobId: string
  status: string
  results?: { url: string; expiresAt?: string }[]
  statusUrl?: string
  estimatedProcessingTime?: number
  [k: string]: unknown
}

/** Who a storefront call is for, and the browser facts it carries to Fitroom's bot verification. */
export interface ShopperVerification {
  challengeToken?: string
  pass?: string
  /** The shopper's stable id (`customer:<id>` or `cart:<id>`) and address, forwarded to Fitroom. */
  shopper: { id: string; ip?: string }
}

export interface VerifiedAnswer<T> {
  body: T
  /** A fresh pass the shopper's page should send back in X-Fitroom-Pass, when Fitroom minted one. */
  pass?: string
  ttlSeconds?: number
}

interface Minted {
  token: string
  expiresAtMs: number
  accountId: string
}

/** A job id that never exists: asking for it runs Fitroom's checks (bot verification) and answers 404. */
const NO_JOB = "00000000-0000-4000-8000-000000000000"

type Credential = "server" | "storefront"

/**
 * Fitroom's HTTP API as the plugin uses it. Server calls use the store's key; with a service key the
 * client mints an account token of the key's own account and sends it in X-Service-Account, so the
 * account's AI quota is counted and jobs stay reachable after re-minting (spec, Authentication 2-4).
 * Shopper calls (try-on, its job) use a storefront token, so Fitroom's bot verification applies to
 * them; the pass travels in headers because it is bound to this server's calls, not a browser cookie.
 */
export class FitroomClient {
  readonly #opts: ResolvedOptions
  readonly #tokens = new Map<string, Promise<Minted>>()
  readonly #fetch: typeof fetch

  constructor(opts: ResolvedOptions, fetchImpl: typeof fetch = fetch) {
    this.#opts = opts
    this.#fetch = fetchImpl
  }

  get serviceKey(): boolean {
    return this.#opts.apiKey.startsWith("fr_svc_")
  }

  health(): Promise<{ status?: string }> {
    return this.#call("GET", "/api/v1/health", { credential: null })
  }

  shoe3d(body: { images: string[]; options?: Record<string, unknown> }): Promise<Submission> {
    return this.#call("POST", "/api/v1/shoe-3d", { body: { ...body, ...this.#webhook() }, credential: "server" })
  }

  /** A digital twin (face photo and measurements or a clothing size), made under the store's account. */
  createTwin(body: Record<string, unknown>): Promise<Submission> {
    return this.#call("POST", "/api/v1/digital-twin", { body: { ...body, ...this.#webhook() }, credential: "server" })
  }

  /**
   * The address Fitroom posts job webhooks to: the backend's hook route with a token derived from the
   * webhook secret. Only Fitroom is given it (stored with the job), so a delivery to it comes from
   * Fitroom; the signature proves the body was not changed on the way.
   */
  webhookUrl(): string | null {
    const w = this.#opts.webhooks
    return w ? `${w.publicUrl}/hooks/fitroom/${webhookToken(w.secret)}` : null
  }

  /**
   * The key Fitroom signs this store's job webhooks with (spec, Events 3): the hex SHA-256 of the key,
   * or of `account:<id>` for a service key's account (which the account token's minting tells).
   */
  async webhookSigningSecret(): Promise<string> {
    if (!this.serviceKey) return sha256Hex(this.#opts.apiKey)
    await this.#token("account")
    const minted = await this.#tokens.get("account")!
    return sha256Hex(`account:${minted.accountId}`)
  }

  /** Checks the shopper's challenge token or pass with Fitroom, for a shopper call Fitroom itself does not verify. */
  async verifyShopper(v: ShopperVerification): Promise<VerifiedAnswer<null>> {
    try {
      await this.#verified("GET", `/api/v1/jobs/${NO_JOB}`, undefined, v)
    } catch (e) {
      const err = FitroomApiError.from(e)
      if (err?.status === 404 && err.pass !== undefined) return { body: null, pass: err.pass, ttlSeconds: err.ttlSeconds }
      if (err?.status === 404) return { body: null, ttlSeconds: err.ttlSeconds }
      throw e
    }
    throw new FitroomApiError(502, "FITROOM_BAD_ANSWER", "Fitroom answered a job that cannot exist")
  }

  /** A job submitted with the server credential (3D generation, merchandiser previews). */
  job(jobId: string): Promise<FitroomJob> {
    return this.#call<{ job?: FitroomJob } & FitroomJob>("GET", `/api/v1/jobs/${encodeURIComponent(jobId)}`, { credential: "server" }).then(unwrapJob)
  }

  cancel(jobId: string): Promise<unknown> {
    return this.#call("DELETE", `/api/v1/jobs/${encodeURIComponent(jobId)}`, { credential: "server" })
  }

  /** A try-on the merchandiser asks for in the admin: server credential, no bot check. */
  previewTryOn(body: Record<string, unknown>): Promise<Submission> {
    return this.#call("POST", "/api/v1/virtual-fitting", { body, credential: "server" })
  }

  sizeFitting(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.#call("POST", "/api/v1/size-fitting", { body, credential: "server" })
  }

  challenge(): Promise<Record<string, unknown>> {
    return this.#call("GET", "/api/v1/challenge", { credential: null })
  }

  shopperTryOn(body: Record<string, unknown>, v: ShopperVerification): Promise<VerifiedAnswer<Submission>> {
    return this.#verified("POST", "/api/v1/virtual-fitting", body, v)
  }

  shopperJob(jobId: string, v: ShopperVerification): Promise<VerifiedAnswer<FitroomJob>> {
    return this.#verified<FitroomJob>("GET", `/api/v1/jobs/${encodeURIComponent(jobId)}`, undefined, v).then((a) => ({ ...a, body: unwrapJob(a.body as never) }))
  }

  /** Downloads a result file (a signed URL Fitroom handed out), at most maxBytes. */
  async download(url: string, maxBytes: number): Promise<{ bytes: Buffer; contentType: string }> {
    const target = new URL(url, this.#opts.url)
    const res = await this.#send(target.toString(), { method: "GET" })
    if (!res.ok) throw new FitroomApiError(res.status, "FITROOM_FILE_UNAVAILABLE", `Fitroom answered ${res.status} for the result file ${target.pathname}`)
    const declared = Number(res.headers.get("content-length") ?? 0)
    if (declared > maxBytes) throw new FitroomApiError(res.status, "FITROOM_FILE_TOO_LARGE", `The result file is ${declared} bytes, more than ${maxBytes}`)
    const bytes = Buffer.from(await res.arrayBuffer())
    if (bytes.length > maxBytes) throw new FitroomApiError(res.status, "FITROOM_FILE_TOO_LARGE", `The result file is more than ${maxBytes} bytes`)
    return { bytes, contentType: res.headers.get("content-type") ?? "application/octet-stream" }
  }

  async #verified<T>(method: string, path: string, body: unknown, v: ShopperVerification): Promise<VerifiedAnswer<T>> {
    const headers: Record<string, string> = { "x-service-verification-pass-mode": "header" }
    if (v.challengeToken) headers["x-challenge-token"] = v.challengeToken
    if (v.pass) headers["x-service-verification-pass"] = v.pass
    // with a service key the storefront token forwards shoppers: Fitroom's limits and passes are per shopper
    if (this.serviceKey) {
      headers["x-fitroom-shopper"] = v.shopper.id
      if (v.shopper.ip) headers["x-fitroom-shopper-ip"] = v.shopper.ip
    }
    let pass: string | undefined
    let ttl: number | undefined
    try {
      const answer = await this.#call<T>(method, path, {
        body,
        credential: "storefront",
        headers,
        onHeaders: (h) => {
          pass = h.get("x-service-verification-pass") ?? undefined
          const t = h.get("x-service-verification-ttl")
          ttl = t ? Number(t) : undefined
        },
      })
      return { body: answer, pass, ttlSeconds: ttl }
    } catch (e) {
      // a challenge used up before a later refusal still minted a pass: the page keeps it
      const err = FitroomApiError.from(e)
      if (err) Object.assign(err, { pass, ttlSeconds: ttl })
      throw e
    }
  }

  async #call<T>(
    method: string,
    path: string,
    o: { body?: unknown; credential: Credential | null; headers?: Record<string, string>; onHeaders?: (h: Headers) => void },
    retried = false
  ): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json", ...o.headers }
    if (o.body !== undefined) headers["content-type"] = "application/json"
    if (o.credential) Object.assign(headers, await this.#credentials(o.credential))
    const res = await this.#send(`${this.#opts.url}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) })
    o.onHeaders?.(res.headers)
    const text = await res.text()
    let json: any = null
    try {
      json = text ? JSON.parse(text) : null
    } catch {
      /* not JSON: reported below */
    }
    if (res.ok) {
      if (json === null || typeof json !== "object") throw new FitroomApiError(res.status, "FITROOM_BAD_ANSWER", `Fitroom answered ${method} ${path} with something that is not JSON`)
      return json as T
    }
    const err = json?.error ?? {}
    const e = new FitroomApiError(res.status, typeof err.code === "string" ? err.code : `HTTP_${res.status}`, typeof err.message === "string" ? err.message : `Fitroom answered HTTP ${res.status}`, Array.isArray(err.details) ? err.details : undefined)
    // A token that can no longer be verified is discarded, re-minted and the call retried once (spec, Authentication 3).
    if (res.status === 401 && o.credential && o.credential !== "server" && !retried) {
      this.#tokens.delete(o.credential)
      return this.#call(method, path, o, true)
    }
    if (res.status === 401 && e.code === "ACCOUNT_TOKEN_INVALID" && !retried) {
      this.#tokens.delete("account")
      return this.#call(method, path, o, true)
    }
    throw e
  }

  async #credentials(kind: Credential): Promise<Record<string, string>> {
    if (kind === "storefront") return { "x-api-key": await this.#token("storefront") }
    const h: Record<string, string> = { "x-api-key": this.#opts.apiKey }
    if (this.serviceKey) h["x-service-account"] = await this.#token("account")
    return h
  }

  /** A storefront or account token of the key's own account, minted once and reused until a minute before it ends. */
  #token(type: "storefront" | "account"): Promise<string> {
    const cached = this.#tokens.get(type)
    const fresh = (cached ?? Promise.resolve(null)).then((m) => (m && m.expiresAtMs - 60_000 > Date.now() ? m : null)).catch(() => null)
    const next = fresh.then(async (m) => {
      if (m) return m
      const res = await this.#send(`${this.#opts.url}/api/v1/storefront/tokens`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "x-api-key": this.#opts.apiKey },
        body: JSON.stringify({ type, ttlSeconds: type === "storefront" ? 900 : 3600, ...(type === "storefront" && this.serviceKey ? { forwardsShoppers: true } : {}) }),
      })
      const json: any = await res.json().catch(() => null)
      if (!res.ok || typeof json?.token !== "string") {
        throw new FitroomApiError(res.status, json?.error?.code ?? `HTTP_${res.status}`, `Fitroom refused to mint a ${type} token for the store's key: ${json?.error?.message ?? `HTTP ${res.status}`}`)
      }
      return { token: json.token as string, expiresAtMs: Date.now() + Number(json.expiresIn ?? 0) * 1000, accountId: String(json.accountId ?? "") }
    })
    this.#tokens.set(type, next)
    next.catch(() => this.#tokens.get(type) === next && this.#tokens.delete(type))
    return next.then((m) => m.token)
  }

  #webhook(): { webhookUrl?: string } {
    const url = this.webhookUrl()
    return url ? { webhookUrl: url } : {}
  }

  async #send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.#fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(this.#opts.requestTimeoutMs) })
    } catch (e) {
      const reason = (e as Error).name === "TimeoutError" ? `no answer within ${this.#opts.requestTimeoutMs} ms` : ((e as Error & { cause?: Error }).cause?.message ?? (e as Error).message)
      throw new FitroomApiError(0, "FITROOM_UNREACHABLE", `Fitroom at ${this.#opts.url} could not be reached: ${reason}`)
    }
  }
}

function sha256Hex(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("hex")
}

/** The path token of the webhook URL: derived from the secret, so the secret itself never travels. */
export function webhookToken(secret: string): string {
  return createHmac("sha256", secret).update("fitroom medusa webhook v1").digest("hex")
}

function unwrapJob(answer: { job?: FitroomJob } & FitroomJob): FitroomJob {
  return answer.job ?? answer
}
