import { timingSafeEqual } from "node:crypto"
import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { verifyWebhook } from "@fitroom/webhooks"
import { fitroomOf, header } from "../../../fitroom-http"
import { webhookToken } from "../../../../modules/fitroom/client"
import { advanceProductModel } from "../../../../workflows/advance"
import { advanceDigitalTwin } from "../../../../workflows/digital-twin"

/**
 * Fitroom's job and batch webhooks (the URL the plugin registers when it submits a job). A delivery
 * is taken only when it reaches the URL's secret token, carries a valid signature over the raw body
 * and a timestamp within five minutes (Fitroom's own verifier, @fitroom/webhooks), and its delivery id
 * (X-Webhook-Id) was not handled before. Then the job's model or twin is moved on by the same steps
 * as the scheduled job, which re-reads the job from Fitroom with the store's key (spec, Events 3: polling is the proof for account-signed callbacks).
 */
export const POST = async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  const settings = fitroom.options.webhooks
  const expected = settings ? Buffer.from(webhookToken(settings.secret)) : null
  const given = Buffer.from(String(req.params.token ?? ""))
  if (!expected || expected.length !== given.length || !timingSafeEqual(expected, given)) throw new MedusaError(MedusaError.Types.NOT_FOUND, "Not found")

  const raw = (req as MedusaRequest & { rawBody?: Buffer }).rawBody
  if (!raw) throw new MedusaError(MedusaError.Types.INVALID_DATA, "A webhook body is JSON", "WEBHOOK_BAD_PAYLOAD")
  // Fitroom's own verifier; the event header is not signed, so naming the wrong kind only fails the check
  const kind = header(req, "x-webhook-event") === "batch.completed" ? "batch" : "job"
  const checked = verifyWebhook({ body: raw, signature: header(req, "x-webhook-signature"), timestamp: header(req, "x-webhook-timestamp"), secret: await fitroom.client.webhookSigningSecret(), kind })
  if (!checked.ok) throw new MedusaError(MedusaError.Types.UNAUTHORIZED, `The webhook was refused: ${checked.reason.replace(/_/g, " ")}`, `WEBHOOK_${checked.reason.toUpperCase()}`)
  const deliveryId = header(req, "x-webhook-id")
  if (!deliveryId || deliveryId.length > 200) throw new MedusaError(MedusaError.Types.INVALID_DATA, "X-Webhook-Id is required", "WEBHOOK_BAD_PAYLOAD")

  // idempotent by delivery id: a replay within the window is answered, and nothing runs again
  const [seen] = await fitroom.listFitroomWebhookDeliveries({ delivery_id: deliveryId }, { take: 1 })
  if (seen) return void res.json({ received: true, duplicate: true })

  const event = String(checked.payload.event ?? "")
  const jobId = typeof checked.payload.jobId === "string" ? checked.payload.jobId : null
  let matched: "product_model" | "digital_twin" | null = null
  if (jobId && (event === "job.completed" || event === "job.failed")) {
    const [model] = await fitroom.listFitroomProductModels({ job_id: jobId }, { take: 1 })
    const [twin] = model ? [] : await fitroom.listFitroomDigitalTwins({ job_id: jobId }, { take: 1 })
    if (model) await advanceProductModel(req.scope, model.id)
    if (twin) await advanceDigitalTwin(req.scope, twin.id)
    matched = model ? "product_model" : twin ? "digital_twin" : null
  }
  // recorded after the work: a delivery that failed half-way is taken again when Fitroom retries it
  await fitroom.createFitroomWebhookDeliveries({ delivery_id: deliveryId, event, job_id: jobId }).catch(() => undefined)
  res.json({ received: true, duplicate: false, matched })
}
