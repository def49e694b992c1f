import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AR_LIBRARY } from '../../../core/ports/ar-library.ts';
import { AR_OBJECT_STORE } from '../../../core/ports/ar-object-store.ts';
import type { TestService } from '../../support/harness.ts';
import { followJob, glbDataUrl, shoeGlb, startShoe3dService } from './helpers.ts';

let svc: TestService;
let broken: TestService;
let glbInput: string;
let addCalls = 0;

beforeAll(async () => {
  glbInput = glbDataUrl(await shoeGlb(128));
  svc = await startShoe3dService();
  // a deployment whose AR library is down: every addition fails like a lost database connection
  broken = await startShoe3dService((api) => {
    api.provide(AR_LIBRARY, { addObject: async () => { addCalls++; throw Object.assign(new Error('connection terminated unexpectedly'), { code: '57P01' }); } });
  });
});
afterAll(async () => {
  await svc?.close();
  await broken?.close();
});

async function submit(s: TestService, key: string, options: Record<string, unknown>, headers: Record<string, string> = {}) {
  const sub = await s.call('POST', '/api/v1/shoe-3d', { key, body: { images: [], glbInput, options: { uploadToService: true, ...options } }, headers });
  expect(sub.status).toBe(202);
  // jobs submitted with an account token belong to the account: read them with the same headers
  return (await followJob(s, key, sub.body.jobId, 60_000, headers)).job;
}

async function arObject(s: TestService, id: string) {
  return s.fitroom.get(AR_OBJECT_STORE).get(id);
}

describe('shoe-3d upload to the AR host', () => {
  it('owns the object by options.sessionId and queues autofit', async () => {
    const { key } = await svc.createKey({ accountId: 'acct-7' });
    const job = await submit(svc, key, { sessionId: 'sess-2026-abc' });
    expect(job.status).toBe('completed');
    const { arObject: ar, viewerUrl } = job.result;
    expect(ar.id).toMatch(/^[0-9a-f]{24}$/);
    expect(ar.color_id).toBe('default');
    expect(viewerUrl).toContain(`/tryon?id=${ar.id}&color_id=default`);
    expect(job.result.arObjectHint).toBeUndefined();
    const o = await arObject(svc, ar.id);
    expect(o?.owner).toEqual({ kind: 'session', id: 'sess-2026-abc' });
    expect(o?.files.source).toBeTruthy();
    // autofit was queued for it and runs to the end
    const t0 = Date.now();
    let state = o!.autofit.default.status;
    while (state !== 'finished' && state !== 'failed' && Date.now() - t0 < 90_000) {
      await new Promise((r) => setTimeout(r, 200));
      state = (await arObject(svc, ar.id))!.autofit.default.status;
    }
    expect(state).toBe('finished');
  });

  it('falls back to the credential\'s account, then to its default library', async () => {
    const withAccount = await svc.createKey({ accountId: 'acct-42' });
    const a = await submit(svc, withAccount.key, {});
    expect((await arObject(svc, a.result.arObject.id))?.owner).toEqual({ kind: 'user', id: 'acct-42' });
    const plain = await svc.createKey();
    const b = await submit(svc, plain.key, {});
    expect((await arObject(svc, b.result.arObject.id))?.owner).toEqual({ kind: 'library', id: plain.id });
  });

  it('fails with invalid_user_id for a malformed owner id', async () => {
    const { key } = await svc.createKey();
    const job = await submit(svc, key, { sessionId: 'not a valid id!' });
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^invalid_user_id: /);
  });

  it('fails with attribution_conflict when a session id and an account attribution are both sent', async () => {
    const { key } = await svc.createKey({ kind: 'service' });
    const shop = await svc.createKey({ accountId: 'shop-attr' });
    const minted = await svc.call('POST', '/api/v1/storefront/tokens', { key: shop.key, body: { type: 'account' } });
    const job = await submit(svc, key, { sessionId: 'sess-1' }, { 'X-Service-Account': minted.body.token });
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^attribution_conflict: /);
  });

  it('fails with attribution_unavailable when the AR store stays down, after retrying', async () => {
    const { key } = await broken.createKey();
    const job = await submit(broken, key, {});
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^attribution_unavailable: /);
    expect(addCalls).toBe(3);
  });
});
