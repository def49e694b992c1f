#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config.ts';
import { KEY_KINDS, CredentialService, type KeyKind } from '../../core/credentials.ts';
import { createPool, migrate } from '../../adapters/postgres/db.ts';
import { PostgresCredentialStore } from '../../adapters/postgres/credential-store.ts';
import { PostgresJobStore } from '../../adapters/postgres/job-store.ts';
import { JobService, type JobRecord } from '../../core/jobs.ts';
import type { Caller } from '../../core/credentials.ts';
import { openDatabase, runningEmbeddedUrl } from './runtime.ts';
import { BATCH_USAGE, batchCommand } from './cli-batch.ts';
import { formatChecks, runDoctor } from './doctor.ts';
import { VENDORS_USAGE, vendorsCommand } from './cli-vendors.ts';

const USAGE = `Usage:
  fitroom keys create --name NAME [--kind user|service|development] [--account ID] [--max-usage N]
  fitroom keys list
  fitroom keys revoke ID
  fitroom keys rotate ID          a new key with the same settings; the old one is revoked
  fitroom jobs get ID [--json]    a job's status, stage, progress, result or error (any owner)
  fitroom jobs watch ID           follows a job with a progress bar until it ends
  fitroom jobs trace ID           the stage timeline: each stage, its outcome and duration
  fitroom jobs cancel ID          cancels a queued or running job
${BATCH_USAGE}
  fitroom doctor                  checks Node, the database, disk, blob store, vendors and ports
${VENDORS_USAGE}
  fitroom --help

Uses DATABASE_URL, or the embedded database under DATA_DIR (the running service's, or started here).
Exit codes: 0 done, 1 failed (a message says why), 2 unknown command.`;

const COMMANDS: Record<string, string[]> = { keys: ['create', 'list', 'revoke', 'rotate'], jobs: ['get', 'watch', 'trace', 'cancel'] };

async function main() {
  const [group, command, ...rest] = process.argv.slice(2);
  if (group === undefined || group === '--help' || group === '-h' || group === 'help' || command === '--help') {
    console.log(USAGE);
    return;
  }
  if (group === 'batch') {
    process.exitCode = await batchCommand(command, rest, process.env);
    return;
  }
  if (group === 'vendors') {
    process.exitCode = await vendorsCommand(command, rest, process.env);
    return;
  }
  const config = loadConfig(process.env);
  if (group === 'doctor') {
    const checks = await runDoctor(config);
    console.log(formatChecks(checks));
    process.exitCode = checks.some((c) => c.level === 'fail') ? 1 : 0;
    return;
  }
  if (!COMMANDS[group]?.includes(command ?? '')) {
    console.error(USAGE);
    process.exit(2);
  }
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { name: { type: 'string' }, kind: { type: 'string', default: 'user' }, account: { type: 'string' }, 'max-usage': { type: 'string' }, json: { type: 'boolean' } } });
  const running = config.databaseUrl ? null : runningEmbeddedUrl(config);
  if (!config.databaseUrl && !running) console.error(`Starting the embedded database in ${config.dataDir} (no service is running; a few seconds)…`);
  const db = running ? { url: running, stop: async () => undefined } : await openDatabase(config, () => undefined);
  const pool = createPool(db.url, 2, { connectTimeoutMs: config.databaseConnectTimeoutMs });
  try {
    await migrate(pool);
    if (group === 'jobs') {
      const id = positionals[0];
      if (!id) throw new Error(`jobs ${command} needs the job's id (the jobId of a submission's answer)`);
      await jobsCommand(command!, id, new PostgresJobStore(pool, config.webhook.maxAttempts), values.json === true);
      return;
    }
    const credentials = new CredentialService(new PostgresCredentialStore(pool));
    if (command === 'list') {
      for (const k of await credentials.list()) console.log(`${k.id}  ${k.prefix}…  ${k.kind.padEnd(11)} ${k.isActive ? 'active ' : 'revoked'}  ${k.name}`);
      return;
    }
    if (command === 'revoke' || command === 'rotate') {
      const id = positionals[0];
      if (!id) throw new Error(`keys ${command} needs the key's id (see: fitroom keys list)`);
      if (command === 'revoke') {
        const r = await credentials.revoke(id);
        console.error(`Revoked key "${r.name}" (${r.prefix}…). Jobs it submitted stay visible to no one else.`);
      } else {
        const { key, record } = await credentials.rotate(id);
        console.error(`Rotated: new key "${record.name}" (id ${record.id}); the old one is revoked. It is shown once; store it now:`);
        console.log(key);
      }
      return;
    }
    if (!values.name) throw new Error('--name is required');
    if ((await credentials.list()).some((k) => k.isActive && k.name === values.name)) console.error(`Note: an active key named "${values.name}" exists already; this creates another.`);
    if (!KEY_KINDS.includes(values.kind as KeyKind)) throw new Error(`--kind must be one of ${KEY_KINDS.join(', ')}`);
    const maxUsage = values['max-usage'] ? Number(values['max-usage']) : 0;
    if (!Number.isInteger(maxUsage) || maxUsage < 0) throw new Error('--max-usage must be a whole number');
    const { key, record } = await credentials.create({ name: values.name, kind: values.kind as KeyKind, accountId: values.account ?? null, maxUsage });
    console.error(`Created ${record.kind} key "${record.name}" (id ${record.id}). It is shown once; store it now:`);
    console.log(key);
  } finally {
    await pool.end();
    await db.stop();
  }
}

/** A line for a job: status, stage and percentage, result or error. */
function describe(job: JobRecord): string {
  const status = job.status === 'cancelled' ? 'failed (cancelled)' : job.status;
  const lines = [`${job.id}  ${job.kind}  ${status}  stage: ${job.stage ?? '-'}  progress: ${job.progress ?? 0}%`, `created ${job.createdAt.toISOString()}, updated ${job.updatedAt.toISOString()}`];
  if (job.status === 'failed' || job.status === 'cancelled') lines.push(`error: ${job.errorCode ?? 'INTERNAL_ERROR'}: ${job.error ?? 'the job failed'}`);
  if (job.result) lines.push(`result: ${JSON.stringify(job.result)}`);
  for (const r of job.results ?? []) lines.push(`file: ${r.url} (until ${r.expiresAt})`);
  return lines.join('\n');
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** A progress bar on standard error: redrawn in place on a terminal, a line per change otherwise. */
function progressLine(job: JobRecord, tick: number): string {
  const pct = job.progress ?? 0;
  const width = 24;
  // until a stage reports a percentage there is nothing to measure: a moving marker instead of a bar
  const bar = pct > 0 ? '#'.repeat(Math.round((pct / 100) * width)).padEnd(width, '.') : '.'.repeat(tick % width) + '*' + '.'.repeat(width - 1 - (tick % width));
  return `[${bar}] ${pct > 0 ? `${String(pct).padStart(3)}%` : '  …  '} ${job.status}${job.stage && job.stage !== job.status ? ` (${job.stage})` : ''}`;
}

async function jobsCommand(command: string, id: string, store: PostgresJobStore, json: boolean) {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const job = uuid.test(id) ? await store.read(id) : null;
  if (!job) throw new Error(`no job ${id} (job ids are the jobId of a submission's answer)`);
  // the operator acts for the job's owner
  const owner = { ownerHash: job.ownerHash } as Caller;
  const jobs = new JobService(store, new Map());
  if (command === 'get') {
    console.log(json ? JSON.stringify({ ...job, input: undefined, ownerHash: undefined }, null, 2) : describe(job));
  } else if (command === 'trace') {
    const trace = await jobs.trace(id, owner);
    if (json) return console.log(JSON.stringify(trace, null, 2));
    console.log(`${trace.jobId}  ${trace.kind}  ${trace.status}${trace.cancelled ? ' (cancelled)' : ''}`);
    for (const t of trace.timeline) {
      console.log(`${String(t.seq).padStart(3)}  ${t.stage.padEnd(22)} ${t.outcome.padEnd(11)} ${t.durationMs === null ? '' : `${t.durationMs} ms`}${t.attempt > 1 ? `  (attempt ${t.attempt})` : ''}`);
      // what the stage noted: a twin's render says here why it fell back to the plain face oval
      const { notes, ...rest } = (t.detail ?? {}) as { notes?: unknown };
      if (Object.keys(rest).length) console.log(`       ${Object.entries(rest).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ')}`);
      if (Array.isArray(notes)) for (const n of notes) console.log(`       · ${String(n)}`);
    }
    if (!trace.timeline.length) console.log('  (no stage has started yet)');
    const left = trace.stages.filter((s) => !trace.timeline.some((t) => t.stage === s));
    if (left.length && !TERMINAL.has(job.status)) console.log(`  still to run: ${left.join(', ')}`);
  } else if (command === 'cancel') {
    await jobs.cancel(id, owner);
    console.error(`Cancelled ${id} (${job.kind}); its worker stops at the next check and a webhook, if any, reports CANCELLED.`);
  } else {
    let current = job;
    let tick = 0;
    let last = '';
    const tty = process.stderr.isTTY;
    for (;;) {
      const line = progressLine(current, tick++);
      if (tty) process.stderr.write(`\r${line}\x1b[K`);
      else if (line.replace(/\[[^\]]*\]/, '') !== last) process.stderr.write(`${line}\n`);
      last = line.replace(/\[[^\]]*\]/, '');
      if (TERMINAL.has(current.status)) break;
      await new Promise((r) => setTimeout(r, 250));
      current = (await store.read(id)) ?? current;
    }
    if (tty) process.stderr.write('\n');
    console.log(describe(current));
    if (current.status !== 'completed') process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(`fitroom: ${(e as Error).message}`);
  process.exit(1);
});
