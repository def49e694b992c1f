/**
 * The key cache every authenticated request reads in its own turn (`cachedByHash`): it serves only
 * while notifications arrive, and a key revoked through another process (its own pool and listener,
 * as a second API process has) leaves it as soon as the change notification does.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PgListener } from '../../../adapters/postgres/listener.ts';
import { PostgresCredentialStore } from '../../../adapters/postgres/credential-store.ts';
import { CredentialService, sha256Hex } from '../../../core/credentials.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
  await db?.drop();
});

/** One API process's view: its own pool and LISTEN connection. */
async function processStore() {
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const listener = new PgListener(db.url);
  closers.push(() => pool.end(), () => listener.close());
  const store = new PostgresCredentialStore(pool, listener);
  // the store subscribes in its constructor: wait until the LISTEN is in place
  await listener.on('fitroom_key_changed', () => undefined);
  return { store, listener, credentials: new CredentialService(store) };
}

async function until(fn: () => boolean, ms = 90_000) {
  const t0 = Date.now();
  while (!fn()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves the key until this process caches it: a lookup that overlaps a change notification
 * or a listener reset (any key's) is, rightly, not cached, and the next one is. */
async function resolveUntilCached(p: Awaited<ReturnType<typeof processStore>>, key: string) {
  const hash = sha256Hex(key);
  const t0 = Date.now();
  do {
    if (Date.now() - t0 > 15_000) throw new Error('the key was never cached');
    await p.credentials.resolveRecord(key);
  } while (!p.store.cachedByHash(hash));
}

describe('PostgresCredentialStore cache', () => {
  it('serves a key in the same turn until another process revokes it, then refuses it', async () => {
    const a = await processStore();
    const b = await processStore();
    const { key, record } = await b.credentials.create({ name: `k-${randomUUID()}`, kind: 'user' });
    const hash = sha256Hex(key);

    expect(a.store.cachedByHash(hash)).toBeUndefined();
    expect((await a.credentials.resolveRecord(key)).id).toBe(record.id);
    await resolveUntilCached(a, key);
    expect(a.store.cachedByHash(hash)?.id).toBe(record.id);
    // a cached, usable key is answered without a promise
    expect(a.credentials.resolveRecord(key)).not.toBeInstanceOf(Promise);

    await b.credentials.revoke(record.id);
    await until(() => a.store.cachedByHash(hash) === undefined);
    await expect(Promise.resolve(a.credentials.resolveRecord(key))).rejects.toMatchObject({ code: 'HTTP_ERROR' });
  });

  it('serves nothing from the cache while notifications are not arriving', async () => {
    const a = await processStore();
    const { key } = await a.credentials.create({ name: `k-${randomUUID()}`, kind: 'user' });
    await resolveUntilCached(a, key);
    expect(a.store.cachedByHash(sha256Hex(key))).toBeDefined();
    await a.listener.close();
    expect(a.listener.live).toBe(false);
    expect(a.store.cachedByHash(sha256Hex(key))).toBeUndefined();
    // still answered, from the database
    expect((await a.credentials.resolveRecord(key)).isActive).toBe(true);
  });
});
