import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * Fitroom's webhook check (spec, Events 2-5; the same rules as `verifyWebhook` in Fitroom's
 * `fitroom/webhooks`, which ships as TypeScript for Node's type stripping and so cannot be loaded from
 * a store's node_modules): `X-Webhook-Signature` is `sha256=` + the hex HMAC-SHA256 keyed by the UTF-8
 * text of the owner hash, over the canonical JSON (keys sorted recursively, compact) for job callbacks
 * or the exact body for batch callbacks; `X-Webhook-Timestamp` must equal the signed `timestamp` and
 * lie within the replay window.
 */
export type WebhookCheck = { ok: true; payload: Record<string, unknown> } | { ok: false; reason: "missing_signature" | "bad_signature" | "bad_payload" | "timestamp_mismatch" | "stale" }

export function checkFitroomWebhook(input: { body: Buffer | string; signature?: string; timestamp?: string; secret: string; toleranceSeconds?: number; now?: number }): WebhookCheck {
  if (!input.signature || !input.timestamp) return { ok: false, reason: "missing_signature" }
  const raw = typeof input.body === "string" ? input.body : input.body.toString("utf8")
  let payload: Record<string, unknown>
  let signedJob: string
  try {
    payload = JSON.parse(raw)
    if (!payload || typeof payload !== "object" || Array.isArray(payload)) return { ok: false, reason: "bad_payload" }
    signedJob = JSON.stringify(sortKeys(payload))
  } catch {
    return { ok: false, reason: "bad_payload" }
  }
  // batch callbacks are signed over the bytes as sent, job callbacks over the canonical form
  const signed = payload.event === "batch.completed" ? raw : signedJob
  const expected = Buffer.from("sha256=" + createHmac("sha256", Buffer.from(input.secret, "utf8")).update(signed).digest("hex"))
  const given = Buffer.from(input.signature)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: "bad_signature" }
  if (payload.timestamp !== input.timestamp) return { ok: false, reason: "timestamp_mismatch" }
  const t = Date.parse(input.timestamp)
  if (!Number.isFinite(t) || Math.abs((input.now ?? Date.now()) - t) > (input.toleranceSeconds ?? 300) * 1000) return { ok: false, reason: "stale" }
  return { ok: true, payload }
}

function sortKeys(v: unknown, depth = 0): unknown {
  if (depth > 64) throw new Error("too deep")
  if (Array.isArray(v)) return v.map((x) => sortKeys(x, depth + 1))
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v as object).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k], depth + 1)
    return out
  }
  return v
}
