/**
 * A worker container's health check: healthy while a worker on this host has beaten its heartbeat in
 * the database within WORKER_DEAD_AFTER_SECONDS (the same bound after which other workers take its
 * jobs). A worker whose process hangs, or that cannot reach the database, turns unhealthy.
 * `node connectors/standalone/worker-health.ts` exits 0 (healthy) or 1 with the reason.
 */
import { hostname } from 'node:os';
import pg from 'pg';
import { loadConfig } from '../../core/config.ts';

const config = loadConfig(process.env);
if (!config.databaseUrl) {
  console.error('worker health: DATABASE_URL is not set');
  process.exit(1);
}
const client = new pg.Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: 4000 });
try {
  await client.connect();
  const r = await client.query<{ age: number }>('select extract(epoch from now() - max(seen_at))::float8 as age from worker_heartbeats where host = $1', [hostname()]);
  const age = r.rows[0]?.age;
  if (age === null || age === undefined) throw new Error(`no heartbeat from a worker on ${hostname()}`);
  if (age > config.workerDeadAfterSeconds) throw new Error(`the last heartbeat from ${hostname()} is ${Math.round(age)} s old (bound ${config.workerDeadAfterSeconds} s)`);
  console.log(`worker health: ok (heartbeat ${age.toFixed(1)} s ago)`);
} catch (e) {
  console.error(`worker health: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => undefined);
}
