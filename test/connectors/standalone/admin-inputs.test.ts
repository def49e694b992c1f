/** The admin API validates like the public API (hardening: defect 10). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/harness.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ worker: false });
}, 120_000);
afterAll(async () => svc?.close());

const create = (body: unknown) => svc.call('POST', '/admin/v1/keys', { headers: { 'x-admin-key': ADMIN_KEY }, body });

describe('admin key creation', () => {
  it('refuses an expiry in the past, counters beyond what is stored and odd account ids, with field details', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'k', expiresAt: new Date(Date.now() - 60_000).toISOString() }, 'expiresAt'],
      [{ name: 'k', maxUsage: 2 ** 31 }, 'maxUsage'],
      [{ name: 'k', monthlyQuota: 1e12 }, 'monthlyQuota'],
      [{ name: 'k', accountId: 'a b\u0000' }, 'accountId'],
      [{ name: '' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const ok = await create({ name: 'k', expiresAt: new Date(Date.now() + 3600_000).toISOString(), maxUsage: 2 ** 31 - 1 });
    expect(ok.status).toBe(201);
  });
});
