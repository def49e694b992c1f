import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeIO } from '@gltf-transform/core';
import { makeShoeGlb } from '../../support/shoes.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { glbForm, startArService, waitForAutofit } from './support.ts';
import type { ArTestService } from './support.ts';

let svc: ArTestService;
let glb: Uint8Array;

beforeAll(async () => {
  svc = await startArService();
  // a left shoe in centimetres, rotated: autofit must bring it to metres, sole down, toe +Z
  const c = Math.cos(1.2), s = Math.sin(1.2);
  glb = await makeShoeGlb({ side: 'left', rootMatrix: [100 * c, 0, -100 * s, 0, 0, 100, 0, 0, 100 * s, 0, 100 * c, 0, 12, 30, -4, 1] });
});
afterAll(async () => {
  await svc?.close();
});

describe('POST /tryon/api/upload_shoe', () => {
  it('creates an object, queues autofit and reports its progress until finished', async () => {
    const { key, id: keyId } = await svc.createKey({ accountId: 'acct-1' });
    const r = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(glb, { name: 'Runner' }) });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['color_id', 'id', 'viewer_url']);
    expect(r.body.id).toMatch(/^[0-9a-f]{24}$/);
    expect(r.body.color_id).toBe('default');
    expect(r.body.viewer_url).toBe(`${svc.ar}/tryon?id=${r.body.id}&color_id=default`);

    // statuses seen while polling are in the spec's set, progress never decreases
    const seen: string[] = [];
    let last = -1;
    let finalBody: any;
    // polled until it ends (the deadline only bounds a hang)
    for (const t0 = Date.now(); Date.now() - t0 < 90_000; ) {
      const s = await svc.arCall('GET', `/tryon/api/autofit_status?id=${r.body.id}`);
      expect(s.status).toBe(200);
      expect(['in_queue', 'in_progress', 'exporting', 'finished', 'failed']).toContain(s.body.status);
      expect(s.body.progress).toBeGreaterThanOrEqual(last);
      last = s.body.progress;
      if (!seen.includes(s.body.status)) seen.push(s.body.status);
      if (s.body.status !== 'finished') expect(s.body.glb_url).toBeUndefined();
      if (s.body.status === 'finished' || s.body.status === 'failed') {
        finalBody = s.body;
        break;
      }
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(finalBody?.status, `autofit still ${seen.at(-1)} after 90 s`).toBe('finished');
    expect(finalBody.progress).toBe(100);
    expect(finalBody.glb_url).toBe(`${svc.ar}/api/get_gltf/${r.body.id}?color_id=default`);
    expect(finalBody.object_properties.side).toBe('left');
    expect(finalBody.object_properties.unitsGuess).toBe('cm');
    expect(finalBody.object_properties.dimensions.length).toBeCloseTo(0.27, 2);
    expect(finalBody.object_properties.parts).toEqual(['sole', 'upper', 'laces', 'perforado_1', 'suelo']);
    console.log(`autofit statuses seen while polling: ${seen.join(' → ')}`);

    // the served model is aligned: metres, sole on y = 0, heel at z = 0
    const model = await svc.arCall('GET', new URL(finalBody.glb_url).pathname + new URL(finalBody.glb_url).search);
    expect(model.status).toBe(200);
    expect(model.headers.get('content-type')).toBe('model/gltf-binary');
    const doc = await new NodeIO().readBinary(model.bytes);
    const sole = doc.getRoot().listNodes().find((n) => n.getName() === 'sole')!.getMesh()!.listPrimitives()[0].getAttribute('POSITION')!;
    expect(sole.getMin([0, 0, 0])[1]).toBeCloseTo(0, 3);
    expect(sole.getMin([0, 0, 0])[2]).toBeCloseTo(0, 3);
    expect(sole.getMax([0, 0, 0])[2]).toBeCloseTo(0.27, 2);
    // no preset: structural parts keep their materials, the overlay and the floor are left out
    expect(doc.getRoot().listNodes().filter((n) => n.getMesh()).map((n) => n.getName()).sort()).toEqual(['laces', 'sole', 'upper']);
    expect(await svc.usage(keyId)).toBe(1);
  });

  it('answers 400 no_file without a file part and does not count usage', async () => {
    const { key, id } = await svc.createKey();
    const form = new FormData();
    form.append('name', 'nothing');
    const r = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('no_file');
    const empty = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(new Uint8Array(0)) });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('no_file');
    expect(await svc.usage(id)).toBe(0);
  });

  it('answers 400 file_too_large past 30 MB, enforced while streaming', async () => {
    const { key, id } = await svc.createKey();
    // no Content-Length (chunked), so the limit can only be enforced while reading the stream
    const big = new Uint8Array(30 * 1024 * 1024 + 1);
    const boundary = '----fitroomtest';
    const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.glb"\r\nContent-Type: model/gltf-binary\r\n\r\n`);
    const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent >= big.length) {
          controller.enqueue(tail);
          controller.close();
          return;
        }
        const chunk = big.subarray(sent, sent + 1024 * 1024);
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${svc.ar}/tryon/api/upload_shoe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(body.error.code).toBe('file_too_large');
    // exactly 30 MB of GLB header garbage is within the limit (refused later as not a GLB, not as too large)
    const at = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(new Uint8Array(30 * 1024 * 1024)) });
    expect(at.status).toBe(400);
    expect(at.body.error.code).toBe('VALIDATION_ERROR');
    expect(at.body.error.details[0].message).toMatch(/^invalid_glb: bad_magic/);
    expect(await svc.usage(id)).toBe(0);
  });

  it('refuses a file that is not a GLB with the inspection reason', async () => {
    const { key } = await svc.createKey();
    const truncated = glb.slice(0, glb.length - 100);
    const r = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(truncated) });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toEqual({ field: 'file', message: expect.stringMatching(/^invalid_glb: length_mismatch/) });
  });
});

describe('AR host authentication', () => {
  const upload = (opts: { bearer?: string; cookie?: string; query?: string; formToken?: string }) =>
    svc.arCall('POST', `/tryon/api/upload_shoe${opts.query ?? ''}`, { bearer: opts.bearer, cookie: opts.cookie, form: glbForm(glb, opts.formToken ? { token: opts.formToken } : {}) });

  it('answers 401 unauthorized without credentials', async () => {
    const r = await upload({});
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
    const badHeader = await svc.arCall('POST', '/tryon/api/upload_shoe', { headers: { authorization: 'Basic abc' }, form: glbForm(glb) });
    expect(badHeader.status).toBe(401);
    expect(badHeader.body.error.code).toBe('unauthorized');
  });

  it('refuses a Bearer key with invalid_api_key when not found, inactive, expired or over its limit', async () => {
    const credentials = svc.fitroom.get(TOKENS.credentials);
    const revoked = await svc.createKey();
    await credentials.revoke(revoked.id);
    const expired = await svc.createKey({ expiresAt: new Date(Date.now() - 1000) });
    const limited = await svc.createKey({ maxUsage: 1 });
    const ok = await upload({ bearer: limited.key });
    expect(ok.status).toBe(200);
    const cases: [string, string, RegExp][] = [
      ['not found', 'fr_live_doesnotexist', /Invalid API key/],
      ['inactive', revoked.key, /revoked/],
      ['expired', expired.key, /expired/],
      ['over limit', limited.key, /usage limit/],
    ];
    for (const [why, key, message] of cases) {
      const r = await upload({ bearer: key });
      expect(r.status, why).toBe(401);
      expect(r.body.error.code, why).toBe('invalid_api_key');
      expect(r.body.error.message, why).toMatch(message);
    }
    // refused requests never count: the limited key stays at its one successful use
    expect(await svc.usage(limited.id)).toBe(1);
    expect(await svc.usage(revoked.id)).toBe(0);
  });

  it('checks Bearer first, then the session cookie, then the legacy token query parameter', async () => {
    const good = await svc.createKey({ accountId: 'acct-order' });
    const session = await svc.session('user-order');
    // 1. a bad Bearer key is refused even with a valid cookie behind it
    const badBearer = await upload({ bearer: 'fr_live_nope', cookie: `fitroom_session=${session}` });
    expect(badBearer.status).toBe(401);
    expect(badBearer.body.error.code).toBe('invalid_api_key');
    // 2. a valid cookie is used before the legacy token, which is then never looked at
    const viaCookie = await upload({ cookie: `fitroom_session=${session}`, query: '?token=fr_live_nope' });
    expect(viaCookie.status).toBe(200);
    expect((await svc.store.get(viaCookie.body.id))!.owner).toEqual({ kind: 'user', id: 'user-order' });
    // 3. a stale cookie is skipped and the legacy token applies
    const viaQuery = await upload({ cookie: 'fitroom_session=frs1.tampered.sig', query: `?token=${good.key}` });
    expect(viaQuery.status).toBe(200);
    expect((await svc.store.get(viaQuery.body.id))!.owner).toEqual({ kind: 'user', id: 'acct-order' });
    // a bad legacy token key is refused like a Bearer key
    const badQuery = await upload({ query: '?token=fr_live_nope' });
    expect(badQuery.status).toBe(401);
    expect(badQuery.body.error.code).toBe('invalid_api_key');
    // 4. a session token works as Bearer too; a tampered one is unauthorized
    const bearerSession = await upload({ bearer: session });
    expect(bearerSession.status).toBe(200);
    const tampered = await upload({ bearer: session.slice(0, -2) + (session.endsWith('AA') ? 'BB' : 'AA') });
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe('unauthorized');
    // 5. the multipart token field (legacy) authenticates when nothing else does
    const viaForm = await upload({ formToken: good.key });
    expect(viaForm.status).toBe(200);
    expect(await svc.usage(good.id)).toBe(2); // query and form uploads; the cookie upload was a session
  });

  it('expires sessions', async () => {
    const token = await svc.session('user-short', { ttlSeconds: 60 });
    const sessions = await import('../../../plugins/ar-host/session-token.ts');
    const secret = svc.fitroom.get(TOKENS.signingSecret);
    const later = new sessions.SessionTokens(secret, () => Date.now() + 61_000);
    expect(later.verify(token)).toBeNull();
    expect(new sessions.SessionTokens(secret).verify(token)!.userId).toBe('user-short');
    expect(new sessions.SessionTokens('another secret').verify(token)).toBeNull();
  });

  it('ownership: session_id first, then the account of the key, then the key\'s own library', async () => {
    const withAccount = await svc.createKey({ accountId: 'acct-own' });
    const noAccount = await svc.createKey();
    const a = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: withAccount.key, form: glbForm(glb, { session_id: 'sess-42' }) });
    const b = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: withAccount.key, form: glbForm(glb) });
    const c = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: noAccount.key, form: glbForm(glb) });
    expect((await svc.store.get(a.body.id))!.owner).toEqual({ kind: 'session', id: 'sess-42' });
    expect((await svc.store.get(b.body.id))!.owner).toEqual({ kind: 'user', id: 'acct-own' });
    expect((await svc.store.get(c.body.id))!.owner).toEqual({ kind: 'library', id: noAccount.id });
    const done = await waitForAutofit(svc, c.body.id);
    expect(done.status).toBe('finished');
  });

  it('reports failed autofit for a GLB without triangles', async () => {
    const { key } = await svc.createKey();
    const { Document } = await import('@gltf-transform/core');
    const doc = new Document();
    doc.createScene().addChild(doc.createNode('empty'));
    const emptyGlb = await new NodeIO().writeBinary(doc);
    const r = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(emptyGlb) });
    expect(r.status).toBe(200);
    const s = await waitForAutofit(svc, r.body.id);
    expect(s.status).toBe('failed');
    expect(s.glb_url).toBeUndefined();
    expect(s.error).toMatch(/no triangle meshes/);
    const unknown = await svc.arCall('GET', '/tryon/api/autofit_status?id=000000000000000000000000');
    expect(unknown.status).toBe(404);
    const noId = await svc.arCall('GET', '/tryon/api/autofit_status');
    expect(noId.status).toBe(400);
    const badColor = await svc.arCall('GET', `/tryon/api/autofit_status?id=${r.body.id}&color_id=nope`);
    expect(badColor.status).toBe(400);
  });
});
