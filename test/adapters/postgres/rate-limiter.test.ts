/**
 * The shared rate limiter answers a request at once while its view of the shared count is fresh,
 * also while this process's granted points are being written back (under steady traffic a write-back
 * is nearly always in flight), and stays exact: the points being written count until the database's
 * answer counts them, and another process sees them all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresRateLimiter } from '../../../adapters/postgres/rate-limiter.ts';
import type { RateDecision } from '../../../core/ports/rate-limiter.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  for (const p of pools) await p.end().catch(() => undefined);
  await db?.drop();
});

/** One API process's limiter; a long interval keeps its view fresh however slow the machine is. */
function processLimiter() {
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  pools.push(pool);
  return new PostgresRateLimiter(pool, { flushMs: 60_000 });
}

/** A decision taken in this turn (not a promise). */
function atOnce(d: RateDecision | Promise<RateDecision>): RateDecision {
  expect(d).not.toBeInstanceOf(Promise);
  return d as RateDecision;
}

describe('PostgresRateLimiter', () => {
  it('decides at once during a write-back, counting the points being written, and another process sees every grant', async () => {
    const a = processLimiter();
    // the first request of a window asks the database
    const first = a.consume('status:k', 10, 60);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ allowed: true, remaining: 9 });
    for (const remaining of [8, 7, 6]) expect(atOnce(a.consume('status:k', 10, 60))).toMatchObject({ allowed: true, remaining });

    const writing = a.flush();
    // the three points are on their way to the database: still counted, and no request waits
    for (const remaining of [5, 4, 3, 2]) expect(atOnce(a.consume('status:k', 10, 60))).toMatchObject({ allowed: true, remaining });
    await writing;
    // the database's answer replaced them: what is left is exact
    expect(atOnce(a.consume('status:k', 10, 60))).toMatchObject({ allowed: true, remaining: 1 });
    expect(atOnce(a.consume('status:k', 10, 60))).toMatchObject({ allowed: true, remaining: 0 });
    expect(atOnce(a.consume('status:k', 10, 60)).allowed).toBe(false);
    await a.close();

    // a second process finds all ten grants in the shared count
    const b = processLimiter();
    expect((await b.consume('status:k', 10, 60)).allowed).toBe(false);
    await b.close();
  });

  it('a decision that needs the database holds the decisions queued behind it, which then count it', async () => {
    const a = processLimiter();
    // 30 requests at once on a window nobody has read yet: the first asks the database, the rest wait for it
    const decisions = await Promise.all(Array.from({ length: 30 }, () => a.consume('submission:q', 20, 60)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    await a.close();
    const b = processLimiter();
    expect((await b.consume('submission:q', 20, 60)).allowed).toBe(false);
    await b.close();
  });
});
