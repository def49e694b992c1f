import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { fitroomOf, fitroomRoute } from "../../../../fitroom-http"
import { jobView } from "../../../../job-view"

/** A job the admin started (a try-on preview, a 3D generation), as Fitroom reports it. */
export const GET = fitroomRoute(async (req: MedusaRequest, res: MedusaResponse) => {
  res.setHeader("Cache-Control", "no-store")
  res.json({ job: jobView(await fitroomOf(req).client.job(req.params.jobId)) })
})
