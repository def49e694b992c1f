import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { fitroomOf, fitroomRoute } from "../../../../fitroom-http"
import { ownedBy, passOn, shopperOf, verificationOf } from "../../shopper"
import { jobView } from "../../../../job-view"

/** A shopper's try-on job: only the customer or cart that started it sees it (anyone else: 404). */
export const GET = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  const shopper = await shopperOf(req)
  const [record] = await fitroom.listFitroomTryOns({ job_id: req.params.jobId }, { take: 1 })
  if (!record || !ownedBy(record, shopper)) throw new MedusaError(MedusaError.Types.NOT_FOUND, `Job ${req.params.jobId} was not found`, "JOB_NOT_FOUND")
  const answer = await fitroom.client.shopperJob(record.job_id, verificationOf(req, shopper))
  passOn(res, answer)
  res.setHeader("Cache-Control", "no-store")
  res.json({ job: jobView(answer.body) })
})
