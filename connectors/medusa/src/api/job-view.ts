import type { FitroomJob } from "../modules/fitroom/client"

/** A Fitroom job as the plugin's routes show it (Medusa's snake_case). */
export function shopperJobView(j: FitroomJob) {
  const progress = typeof j.progress === "number" ? j.progress : (j.progress?.percentage ?? null)
  const stage = typeof j.progress === "object" && j.progress ? (j.progress.stage ?? null) : null
  return {
    id: j.jobId,
    status: j.status,
    stage,
    progress,
    result: j.result ?? null,
    results: j.results ?? [],
    error: j.status === "failed" ? (j.error ?? "The job failed") : null,
    error_code: j.status === "failed" ? (j.errorCode ?? null) : null,
  }
}
