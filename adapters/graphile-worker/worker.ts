import { run, parseCronItems, type Runner, type TaskList } from 'graphile-worker';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Pool, PoolClient } from '../postgres/db.ts';
import { isDatabaseUnavailable, quietLogger } from '../postgres/db.ts';
import { Logger } from 'graphile-worker';
import { JOB_TASK } from '../postgres/job-store.ts';
import { WEBHOOK_TASK } from '../postgres/webhook-store.ts';
import { PING_TASK, PING_CHANNEL } from './queue-probe.ts';
import type { Kernel } from '../../core/kernel.ts';
import type { JobService } from '../../core/jobs.ts';
import { RUNNING_STATUSES } from '../../core/jobs.ts';
import type { JobStore } from '../../core/ports/job-store.ts';
import type { Logger as PinoLogger } from 'pino';
import type { WebhookSender } from '../../core/webhooks.ts';


export interface WorkerOptions {
  pool: Pool;
  kernel: Kernel;
  jobs: JobService;
  jobStore: JobStore;
  webhooks: WebhookSender;
  concurrency: number;
  /** Webhook attempts at once: they run in a runner of their own, so they never hold a job slot. */
  webhookConcurrency: number;
  /** Extra cron tasks of the adapter layer (e.g. rate-limit counter purge). */
  extraCrons?: { task: string; pattern: string; run: () => Promise<void> }[];
  pollInterval?: number;
  /** Seconds without a heartbeat after which a worker is considered gone. */
  deadAfterSeconds: number;
  /** Where the queue's own messages go (job outcomes are logged by the job service). */
  log?: PinoLogger;
}

/** graphile-worker's messages into the service log: a failed job task is already logged with its cause. */
function queueLogger(log: PinoLogger): Logger {
  return new Logger(() => (level: string, message: string) => {
    if (/^Failed task \d+ \(fitroom_job/.test(message)) return log.debug({ queue: true }, message.split('\n')[0]);
    if (level === 'error' || level === 'warning') log.warn({ queue: true }, message.split('\n')[0]);
    else log.debug({ queue: true }, message);
  });
}

/**
 * The pool as graphile-worker sees it: `connect()` waits (with backoff) while the database cannot be
 * reached instead of failing. graphile-worker 0.18 neither awaits nor retries recording a job's outcome
 * on a refused connection (`completeJob`/`failJob` reject unhandled and the process dies); with this,
 * fetching pauses during an outage and outcomes are recorded once the database is back.
 * Everything else goes to the real pool.
 */
function patientPool(pool: Pool, stopped: () => boolean): Pool {
  const connectPatiently = async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await pool.connect();
      } catch (e) {
        if (stopped() || !isDatabaseUnavailable(e)) throw e;
        await new Promise((r) => setTimeout(r, Math.min(2000, 250 * 2 ** attempt)));
      }
    }
  };
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === 'connect') {
        // graphile-worker calls both forms: promise, and callback (its LISTEN client)
        return (cb?: (err: Error | undefined, client?: PoolClient, release?: () => void) => void) => {
          const p = connectPatiently();
          if (!cb) return p;
          p.then(
            (client) => cb(undefined, client, () => client.release()),
            (err: Error) => cb(err),
          );
          return undefined;
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

export interface WorkerHandle {
  stop(): Promise<void>;
  /** Releases jobs locked by workers whose heartbeat stopped and fails jobs whose queue entry is gone. */
  sweep(): Promise<{ unlocked: number; failed: number }>;
}

/**
 * Runs jobs, pings and cron tasks on graphile-worker, and webhook deliveries in a runner of their own. Each worker records a
 * heartbeat; any worker releases the jobs of workers that stopped beating (SIGKILL, crash) instead
 * of waiting graphile-worker's 4 hours.
 */
export async function startWorker(o: WorkerOptions): Promise<WorkerHandle> {
  const aborters = new Map<string, () => void>();
  const unlisten = await o.jobStore.onCancel((jobId) => aborters.get(jobId)?.());
  // The ids this process locks queue rows with. graphile-worker 0.18 locks jobs with its pool's id
  // (not the per-slot worker ids), so the pool id is what must beat for the sweep to spare our jobs.
  const workerIds = new Set<string>();
  const events = new EventEmitter();
  // the beats in flight: a stop waits for them all, else an insert could land after the stop's delete
  const beating = new Set<Promise<void>>();
  const beatNow = () => {
    const b = beat().finally(() => beating.delete(b));
    beating.add(b);
    return b;
  };
  events.on('pool:create', ({ workerPool }: { workerPool: { id: string } }) => {
    workerIds.add(workerPool.id);
    void beatNow();
  });

  const taskList: TaskList = {
    [JOB_TASK]: async (payload, helpers) => {
      const { jobId, requestId } = payload as { jobId: string; requestId?: string | null };
      await o.jobs.run(jobId, helpers.job.attempts, helpers.abortSignal ?? new AbortController().signal, (id, abort) => {
        aborters.set(id, abort);
        return () => aborters.delete(id);
      }, requestId ?? null);
    },
    [PING_TASK]: async (payload, helpers) => {
      await helpers.query('select pg_notify($1, $2)', [PING_CHANNEL, (payload as { pingId: string }).pingId]);
    },
  };
  const crons = [...o.kernel.crons, ...(o.extraCrons ?? [])];
  for (const c of crons) taskList[c.task] = async () => c.run();

  const say = (line: string) => (o.log ? o.log.warn(line) : console.error(`[worker] ${line}`));
  // Whether the database answers, as the heartbeats see it: an outage is logged once, and so is its end.
  let downSince: number | null = null;
  let upSince = 0;
  const beat = async () => {
    for (const id of workerIds) {
      try {
        await o.pool.query('insert into worker_heartbeats (worker_id, host, pid) values ($1, $2, $3) on conflict (worker_id) do update set seen_at = now()', [id, hostname(), process.pid]);
        if (downSince !== null) {
          say(`database reachable again after ${Date.now() - downSince} ms: jobs resume`);
          downSince = null;
          upSince = Date.now();
        }
      } catch (e) {
        if (!isDatabaseUnavailable(e)) say(`heartbeat failed: ${(e as Error).message}`);
        else if (downSince === null) {
          downSince = Date.now();
          say(`database unreachable (${(e as Error).message}): jobs wait until it answers`);
        }
      }
    }
  };

  const sweep = async () => {
    // After an outage every worker's heartbeat is stale: give them the dead-after period to beat again
    // before their jobs are taken from them (the database's own restart counts as an outage too).
    if (downSince !== null || Date.now() - upSince < o.deadAfterSeconds * 1000) return { unlocked: 0, failed: 0 };
    const dead = await o.pool.query<{ locked_by: string }>(
      `select distinct locked_by from graphile_worker._private_jobs
        where locked_by is not null and locked_at < now() - make_interval(secs => $1)
          and pg_postmaster_start_time() < now() - make_interval(secs => $1)
          and locked_by not in (select worker_id from worker_heartbeats where seen_at > now() - make_interval(secs => $1))`,
      [o.deadAfterSeconds],
    );
    const ids = dead.rows.map((r) => r.locked_by).filter((id) => !workerIds.has(id));
    if (ids.length) {
      await o.pool.query('select graphile_worker.force_unlock_workers($1::text[])', [ids]);
      console.error(`[worker] released jobs of stopped workers: ${ids.join(', ')}`);
    }
    // A job whose queue entry is gone or exhausted can never finish: fail it cleanly (webhook included).
    const orphans = await o.pool.query<{ id: string }>(
      `select j.id from jobs j
        where j.status = any($1::text[]) and j.updated_at < now() - interval '60 seconds'
          and not exists (
            select 1 from graphile_worker._private_jobs g join graphile_worker._private_tasks t on t.id = g.task_id
             where t.identifier = $2 and g.payload->>'jobId' = j.id::text and (g.attempts < g.max_attempts or g.locked_at is not null))`,
      [RUNNING_STATUSES, JOB_TASK],
    );
    for (const { id } of orphans.rows) await o.jobs.failOrphan(id);
    await o.pool.query(`delete from worker_heartbeats where seen_at < now() - interval '1 day'`);
    return { unlocked: ids.length, failed: orphans.rows.length };
  };

  // Webhook deliveries run in a second runner with its own concurrency: graphile-worker fetches only
  // the tasks a runner knows, so a slow receiver holds webhook slots, never a job's.
  const webhookTasks: TaskList = {
    [WEBHOOK_TASK]: async (payload, helpers) => {
      await o.webhooks.deliver((payload as { deliveryId: string }).deliveryId, helpers.job.attempts, helpers.job.max_attempts);
    },
  };

  let stopping = false;
  const common = {
    pgPool: patientPool(o.pool, () => stopping),
    noHandleSignals: true,
    pollInterval: o.pollInterval ?? 2000,
    logger: o.log ? queueLogger(o.log) : quietLogger(),
    events: events as never,
    gracefulShutdownAbortTimeout: 20_000,
  };
  const runner: Runner = await run({
    ...common,
    concurrency: o.concurrency,
    taskList,
    parsedCronItems: parseCronItems(crons.map((c) => ({ task: c.task, match: c.pattern, options: { backfillPeriod: 0 } }))),
  });
  const webhookRunner: Runner = await run({ ...common, concurrency: o.webhookConcurrency, taskList: webhookTasks, parsedCronItems: [] });

  const beatTimer = setInterval(() => void beatNow(), Math.max(500, (o.deadAfterSeconds * 1000) / 6));
  const sweepTimer = setInterval(() => void sweep().catch((e) => console.error('[worker] sweep failed:', e.message)), Math.max(1000, (o.deadAfterSeconds * 1000) / 3));
  beatTimer.unref();
  sweepTimer.unref();
  await beatNow();
  await sweep().catch((e) => console.error('[worker] sweep failed:', e.message));

  return {
    sweep,
    async stop() {
      stopping = true;
      clearInterval(sweepTimer);
      // Keep beating while running jobs drain; otherwise another worker would release them mid-run.
      await Promise.all([runner.stop(), webhookRunner.stop()]);
      clearInterval(beatTimer);
      await Promise.all([...beating]);
      await unlisten();
      if (workerIds.size) await o.pool.query('delete from worker_heartbeats where worker_id = any($1::text[])', [[...workerIds]]).catch(() => undefined);
    },
  };
}
