import type { FitroomConfig } from './config.ts';

/**
 * Absolute links that responses and results carry (status URLs, result files, viewer pages).
 * Services never write `/api/v1/...` strings themselves: the connector that received the request
 * gives the operation a Links, and workers rebuild one from the API origin recorded with the job.
 */
export interface Links {
  /** Origin of the API host (`https://fitroom.example`). */
  readonly api: string;
  /** Origin of the AR host ('' when none is known). */
  readonly ar: string;
  /** Where a job's status is polled. */
  job(jobId: string): string;
  /** Where a digitization batch's status is read. */
  batch(batchId: string): string;
  /** A result file, with its signature query pair. */
  file(fileId: string, signature: { expires: number; token: string }): string;
  /** The AR host's viewer page for a GLB URL. */
  viewer(glbUrl: string): string;
}

/** The REST links of this API version for an API origin; the AR origin follows from the configuration. */
export function restLinks(config: Pick<FitroomConfig, 'arPublicUrl' | 'arPort'>, apiOrigin: string, arPort?: number): Links {
  const api = apiOrigin.replace(/\/$/, '');
  const ar = arOrigin(arPort ? { ...config, arPort } : config, api);
  return {
    api,
    ar,
    job: (jobId) => `${api}/api/v1/jobs/${encodeURIComponent(jobId)}`,
    batch: (batchId) => `${api}/api/v1/digitization/batches/${encodeURIComponent(batchId)}`,
    file: (fileId, s) => `${api}/api/v1/files/${encodeURIComponent(fileId)}?expires=${s.expires}&token=${s.token}`,
    viewer: (glbUrl) => `${ar}/tryon?src=${encodeURIComponent(glbUrl)}`,
  };
}

/** AR_PUBLIC_URL, or the API origin with the AR port (one machine, two ports), or '' when unknown. */
function arOrigin(config: Pick<FitroomConfig, 'arPublicUrl' | 'arPort'>, api: string): string {
  if (config.arPublicUrl) return config.arPublicUrl.replace(/\/$/, '');
  if (config.arPort > 0) {
    try {
      const u = new URL(api);
      u.port = String(config.arPort);
      return u.origin;
    } catch {
      return '';
    }
  }
  return '';
}

/**
 * The API origin for links in a response: PUBLIC_URL when set; otherwise the origin the request came
 * to, or, for a request to the AR host, that host name on the API port.
 */
export function apiOrigin(config: Pick<FitroomConfig, 'publicUrl' | 'port'>, request: { origin: string; host: 'api' | 'ar'; apiPort?: number }): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/$/, '');
  if (request.host === 'api') return request.origin;
  const port = request.apiPort ?? config.port;
  try {
    const u = new URL(request.origin);
    u.port = String(port);
    return u.origin;
  } catch {
    return request.origin;
  }
}
