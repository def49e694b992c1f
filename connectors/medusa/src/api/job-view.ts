import type { FitroomJob, Submission } from "../modules/fitroom/client"

/** A Fitroom job as the plugin's routes show it (Medusa's snake_case). */
export function jobView(j: FitroomJob) {
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

/** A try-on submission's answer as the plugin's routes show it; 200 when Fitroom had it cached, else 202. */
export function submissionView(s: Submission): { status: number; body: { job: Record<string, unknown> } } {
  return {
    status: s.status === "completed" ? 200 : 202,
    body: { job: { id: s.jobId, status: s.status, results: s.results ?? [], digital_twin_id: (s.digitalTwinId as string | undefined) ?? null, estimated_processing_time: s.estimatedProcessingTime ?? null } },
  }
}
