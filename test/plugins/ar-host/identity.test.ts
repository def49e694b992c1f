/**
 * Ownership by identity (issue 28, defect 4) and the AI quota of dashboard sessions (issue 28, item 7).
 * Two keys may share their first 11 characters (`fr_live_` plus 3 random ones): write access must
 * follow the credential's id, never that prefix.
 */
import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../core/credentials.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { makeShoeGlb } from '../../support/shoes.ts';
import { images } from '../tryon/helpers.ts';
import { glbForm, startArService, type ArTestService } from './support.ts';

let svc: ArTestService;
let shoe: Uint8Array;

/** A key stored through the credential store with a chosen text (so two can share a prefix). */
async function craftKey(text: string, accountId: string | null = null, monthlyQuota: number | null = null): Promise<{ key: string; id: string }> {
  const id = randomUUID();
  await svc.fitroom.get(TOKENS.credentialStore).insert({ id, name: 'crafted', kind: 'user', keyHash: sha256Hex(text), prefix: text.slice(0, 11), accountId, isActive: true, expiresAt: null, maxUsage: 0, usageCount: 0, monthlyQuota, createdAt: new Date(), revokedAt: null, rotatedFrom: null });
  return { key: text, id };
}

beforeAll(async () => {
  svc = await startArService({ worker: false });
  shoe = await makeShoeGlb({ side: 'right' });
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

describe('AR write access by credential identity', () => {
  it('a second key with the same first 11 characters cannot rename or replace the first one\'s model', async () => {
    const shared = 'fr_live_Zq7';
    const first = await craftKey(shared + randomBytes(24).toString('base64url').slice(0, 29));
    const second = await craftKey(shared + randomBytes(24).toString('base64url').slice(0, 29));
    expect(first.key.slice(0, 11)).toBe(second.key.slice(0, 11));
    expect(first.key).not.toBe(second.key);

    const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: first.key, form: glbForm(shoe, { name: 'Prefix shoe' }) });
    expect(up.status, up.text).toBe(200);
    const id = up.body.id as string;
    const stored = await svc.store.get(id);

    const rename = await svc.arCall('POST', '/api/set_object_properties', { bearer: second.key, body: { id, name: 'Taken over' } });
    expect([403, 404]).toContain(rename.status);
    const replace = await svc.arCall('POST', '/api/replace_mesh', { bearer: second.key, form: glbForm(shoe, { id }) });
    expect([403, 404]).toContain(replace.status);
    expect((await svc.store.get(id))!.name).toBe('Prefix shoe');
    expect((await svc.store.get(id))!.files.source).toBe(stored!.files.source);
    expect(stored!.createdBy).toBe(`key:${first.id}`);

    // the creator still may
    const own = await svc.arCall('POST', '/api/set_object_properties', { bearer: first.key, body: { id, name: 'Renamed by its creator' } });
    expect(own.status, own.text).toBe(200);
    expect((await svc.store.get(id))!.modifiedBy).toBe(`key:${first.id}`);
  });

  it('the migration moves prefix labels to credential ids where exactly one key has the prefix', async () => {
    const unique = await craftKey('fr_live_Uq1' + randomBytes(24).toString('base64url').slice(0, 29));
    await craftKey('fr_live_Dp2' + randomBytes(24).toString('base64url').slice(0, 29));
    await craftKey('fr_live_Dp2' + randomBytes(24).toString('base64url').slice(0, 29));
    const a = await svc.store.create({ name: 'old-unique', owner: { kind: 'library', id: 'lib-a' }, createdBy: 'key:fr_live_Uq1', files: {}, autofit: {} });
    const b = await svc.store.create({ name: 'old-shared', owner: { kind: 'library', id: 'lib-b' }, createdBy: 'key:fr_live_Dp2', files: {}, autofit: {} });
    await svc.fitroom.pool.query(`update ar_objects set modified_by = created_by where id = any($1)`, [[a.id, b.id]]);
    await svc.fitroom.pool.query(readFileSync(new URL('../../../adapters/postgres/migrations/080_ar_created_by_identity.sql', import.meta.url), 'utf8'));
    expect((await svc.store.get(a.id))!.createdBy).toBe(`key:${unique.id}`);
    expect((await svc.store.get(a.id))!.modifiedBy).toBe(`key:${unique.id}`);
    // ambiguous: left as it was, and no key's label equals it any more
    expect((await svc.store.get(b.id))!.createdBy).toBe('key:fr_live_Dp2');
    const dp2 = await craftKey('fr_live_Dp2' + randomBytes(24).toString('base64url').slice(0, 29));
    const denied = await svc.arCall('POST', '/api/set_object_properties', { bearer: dp2.key, body: { id: b.id, name: 'x' } });
    expect([403, 404]).toContain(denied.status);
  });
});

describe('AI quota of a dashboard session', () => {
  it('garment_fit_on and shoes_fit_on with a session token count the account\'s quota instead of answering 500', async () => {
    const img = await images();
    await craftKey('fr_live_Qa1' + randomBytes(24).toString('base64url').slice(0, 29), 'acct-session-quota', 1);
    const session = await svc.session('acct-session-quota');
    const fit = await svc.arCall('POST', '/tryon/api/garment_fit_on', { bearer: session, body: { image: img.face, garment: img.top, quality: 'draft' } });
    expect(fit.status, fit.text).toBe(202);
    const job = await svc.fitroom.pool.query('select account_id, credential_id from jobs where id = $1', [fit.body.jobId]);
    expect(job.rows[0]).toEqual({ account_id: 'acct-session-quota', credential_id: 'ar-session:acct-session-quota' });
    // the account's quota (1) is used up
    const shoes = await svc.arCall('POST', '/tryon/api/shoes_fit_on', { bearer: session, body: { image: img.face, shoe_images: [{ url: img.shoes, angle: 'side' }] } });
    expect(shoes.status, shoes.text).toBe(429);
    expect(shoes.body.error.code).toBe('QUOTA_EXCEEDED');

    // an account without a quota: shoes_fit_on is accepted too
    const free = await svc.session('acct-session-free');
    const ok = await svc.arCall('POST', '/tryon/api/shoes_fit_on', { bearer: free, body: { image: img.face, shoe_images: [{ url: img.shoes, angle: 'side' }] } });
    expect(ok.status, ok.text).toBe(202);
  });
});
