import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { fitroomOf } from "../../../fitroom-http"
import { FitroomApiError } from "../../../../modules/fitroom/client"

/** Whether Fitroom answers and accepts the store's key: what the admin widget shows first. */
export const GET = async (req: MedusaRequest, res: MedusaResponse) => {
  const fitroom = fitroomOf(req)
  try {
    await fitroom.client.health()
    await fitroom.client.job("00000000-0000-4000-8000-000000000000").catch((e) => {
      if (FitroomApiError.from(e)?.status !== 404) throw e
    })
    res.json({ status: { ok: true, url: fitroom.options.url, auto_digitize: fitroom.options.autoDigitize, message: "Fitroom answers and accepts the store's key" } })
  } catch (e) {
    const err = FitroomApiError.from(e) ?? new FitroomApiError(0, "FITROOM_UNREACHABLE", (e as Error).message)
    const message = err.status === 401 ? `Fitroom refuses the store's key (${err.code}): set a valid apiKey in the plugin options` : err.message
    res.json({ status: { ok: false, url: fitroom.options.url, auto_digitize: fitroom.options.autoDigitize, code: err.code, message } })
  }
}
