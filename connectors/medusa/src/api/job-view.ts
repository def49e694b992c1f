import type { FitroomJob, Submission } from "../modules/fitroom/client"

/** The twin a try-on used or made: Fitroom puts it on the first result, the result or the answer itself. */
function twinOf(j: { results?: { digitalTwinId?: unknown }[]; result?: Record<string, unknown> | null; digitalTwinId?: unknown }, known?: string | null): string | null {
  const id = known ?? j.results?.[0]?.digitalTwinId ?? j.result?.digitalTwinId ?? j.digitalTwinId
  return typeof id === "string" ? id : null
}

/** A Fitroom job as the plugin's routes show it (Medusa's snake_case). */
export function jobView(j: FitroomJob, twin?: string | null) {
  const progress = typeof j.progress === "number" ? j.progress : (j.progress?.percentage ?? null)
  const stage = typeof j.progress === "object" && j.progress ? (j.progress.stage ?? null) : null
  return {
    id: j.jobId,
    status: j.status,
    stage,
    progress,
    result: j.result ?? null,
    results: j.results ?? [],
    digital_twin_id: twinOf(j as never, twin),
    error: j.status === "failed" ? (j.error ?? "The job failed") : null,
    error_code: j.status === "failed" ? (j.errorCode ?? null) : null,
  }
}

/** A try-on submission's answer as the plugin's routes show it; 200 when Fitroom had it cached, else 202. */
export function submissionView(s: Submission, twin?: string | null): { status: number; body: { job: Record<string, unknown> } } {
  return {
    status: s.status === "completed" ? 200 : 202,
    body: { job: { id: s.jobId, status: s.status, results: s.results ?? [], digital_twin_id: twinOf(s as never, twin), estimated_processing_time: s.estimatedProcessingTime ?? null } },
  }
}
