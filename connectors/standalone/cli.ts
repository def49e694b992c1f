#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config.ts';
import { KEY_KINDS, CredentialService, type KeyKind } from '../../core/credentials.ts';
import { createPool, migrate } from '../../adapters/postgres/db.ts';
import { PostgresCredentialStore } from '../../adapters/postgres/credential-store.ts';
import { openDatabase, runningEmbeddedUrl } from './runtime.ts';
import { BATCH_USAGE, batchCommand } from './cli-batch.ts';

const USAGE = `Usage:
  fitroom keys create --name NAME [--kind user|service|development] [--account ID] [--max-usage N]
  fitroom keys list
  fitroom keys revoke ID
  fitroom keys rotate ID          a new key with the same settings; the old one is revoked
${BATCH_USAGE}
  fitroom --help

Uses DATABASE_URL, or the embedded database under DATA_DIR (the running service's, or started here).`;

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
  if (group !== 'keys' || !['create', 'list', 'revoke', 'rotate'].includes(command ?? '')) {
    console.error(USAGE);
    process.exit(2);
  }
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { name: { type: 'string' }, kind: { type: 'string', default: 'user' }, account: { type: 'string' }, 'max-usage': { type: 'string' } } });
  const config = loadConfig(process.env);
  const running = config.databaseUrl ? null : runningEmbeddedUrl(config);
  const db = running ? { url: running, stop: async () => undefined } : await openDatabase(config, () => undefined);
  const pool = createPool(db.url, 2);
  try {
    await migrate(pool);
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

main().catch((e) => {
  console.error(`fitroom: ${(e as Error).message}`);
  process.exit(1);
});
