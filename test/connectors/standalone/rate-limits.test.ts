/**
 * Rate limits are exact within one process under any concurrency (hardening: defect 7): before,
 * 501, 512 and 538 reads passed a limit of 500 with 4, 8 and 16 concurrent clients.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/harness.ts';
import { TOKENS } from '../../../core/tokens.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ worker: false });
}, 120_000);
afterAll(async () => svc?.close());

async function hammer(total: number, concurrency: number, call: () => Promise<number>): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        statuses.push(await call());
      }
    }),
  );
  return statuses;
}

describe('rate limits under concurrency', () => {
  it('the limiter grants exactly the limit to 100 simultaneous requests, across sync intervals', async () => {
    const limiter = svc.fitroom.get(TOKENS.rateLimiter);
    for (const limit of [1, 7, 20, 64]) {
      const decisions = await Promise.all(Array.from({ length: 100 }, () => limiter.consume(`exact-${limit}`, limit, 60)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(limit);
      // and later requests, after the process has synced with the database, stay refused
      await new Promise((r) => setTimeout(r, 150));
      expect((await limiter.consume(`exact-${limit}`, limit, 60)).allowed).toBe(false);
    }
  });

  for (const clients of [4, 16]) {
    it(`${clients} concurrent clients get exactly 500 status reads a minute`, async () => {
      const { key } = await svc.createKey();
      const statuses = await hammer(560, clients, async () => (await svc.call('GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', { key })).status);
      expect(statuses.filter((s) => s === 404)).toHaveLength(500);
      expect(statuses.filter((s) => s === 429)).toHaveLength(60);
    });
  }
});
