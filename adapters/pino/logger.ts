import pino, { type Logger } from 'pino';
import type { JobObserver } from '../../core/jobs.ts';

export type { Logger };

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
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  });
}

/** Job lifecycle lines: started, each stage with its duration, completed or failed with its cause. */
export function jobLog(log: Logger): JobObserver {
  return {
    started: (e) => log.info({ jobId: e.jobId, kind: e.kind, attempt: e.attempt }, 'job started'),
    stage: (e) => (e.outcome === 'ok' ? log.info({ jobId: e.jobId, kind: e.kind, stage: e.stage, ms: e.ms }, 'job stage done') : log.warn({ jobId: e.jobId, kind: e.kind, stage: e.stage, ms: e.ms, outcome: e.outcome, err: e.error }, 'job stage ended early')),
    finished: (e) =>
      e.status === 'completed'
        ? log.info({ jobId: e.jobId, kind: e.kind, ms: e.ms }, 'job completed')
        : e.status === 'retrying'
          ? log.warn({ jobId: e.jobId, kind: e.kind, ms: e.ms, err: e.error }, 'job attempt failed; retrying')
          : log.error({ jobId: e.jobId, kind: e.kind, ms: e.ms, errorCode: e.errorCode, err: e.error }, 'job failed'),
  };
}
