import pino, { type Logger } from 'pino';
import type { JobObserver } from '../../core/jobs.ts';

export type { Logger };

/**
 * A terminal gets one coloured line per event: the time, the level, the message with a request's
 * method, path, status and duration, then the other fields as compact JSON on the same line.
 */
const PRETTY = {
  colorize: true,
  singleLine: true,
  // an error is a field like the others (its message on the line; LOG_FORMAT=json keeps the stack)
  errorLikeObjectKeys: [],
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname,method,path,status,ms,err.stack,err.type',
  messageFormat: '{msg}{if method} {method} {path} {status}{end}{if ms} {ms} ms{end}',
};

/**
 * Structured logs (pino): JSON lines, or readable lines through pino-pretty when the output is a
 * terminal. LOG_LEVEL: trace, debug, info (default), warn, error, fatal, silent.
 */
export function createLogger(opts: { level?: string; name?: string; pretty?: boolean } = {}): Logger {
  const level = opts.level ?? process.env.LOG_LEVEL ?? 'info';
  const pretty = opts.pretty ?? (process.stdout.isTTY === true && process.env.LOG_FORMAT !== 'json');
  return pino({
    level,
    name: opts.name,
    base: { pid: process.pid },
    // never a credential or image data in a log line
    redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-admin-key"]', 'req.headers["x-challenge-token"]'], remove: true },
    ...(pretty ? { transport: { target: 'pino-pretty', options: PRETTY } } : {}),
  });
}

/** Job lifecycle lines: started, each stage with its duration, completed or failed with its cause. */
/** The ids every job line carries: the request that submitted it (when known), the job and its kind. */
const ids = (e: { jobId: string; kind: string; requestId?: string | null }) => ({ ...(e.requestId ? { reqId: e.requestId } : {}), jobId: e.jobId, kind: e.kind });

export function jobLog(log: Logger): JobObserver {
  return {
    started: (e) => log.info({ ...ids(e), attempt: e.attempt }, 'job started'),
    stage: (e) => (e.outcome === 'ok' ? log.info({ ...ids(e), stage: e.stage, ms: e.ms }, 'job stage done') : log.warn({ ...ids(e), stage: e.stage, ms: e.ms, outcome: e.outcome, err: e.error }, 'job stage ended early')),
    finished: (e) =>
      e.status === 'completed'
        ? log.info({ ...ids(e), ms: e.ms }, 'job completed')
        : e.status === 'retrying'
          ? log.warn({ ...ids(e), ms: e.ms, err: e.error }, 'job attempt failed; retrying')
          : log.error({ ...ids(e), ms: e.ms, errorCode: e.errorCode, err: e.error }, 'job failed'),
  };
}
