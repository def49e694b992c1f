import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { NodeIO } from '@gltf-transform/core';
import { makeShoeGlb } from '../../support/shoes.ts';
import { ADMIN_KEY, waitForJob } from '../../support/harness.ts';
import { checkUsdz } from '../../../adapters/builtin/ar/usdz-check.ts';
import { glbForm, startArService, waitForAutofit } from './support.ts';
import { images } from '../tryon/helpers.ts';
import type { ArTestService } from './support.ts';

const PRIVATE_FIVE = ['created', 'createdBy', 'modified', 'modifiedBy', 'owner'];
const NEVER_PUBLIC = [...PRIVATE_FIVE, 'model_url', 'custom', 'materialsData'];

let svc: ArTestService;
let owner: { key: string; id: string };
let other: { key: string; id: string };
let adminSession: string;
let groupSession: string;
let objectId: string;
let shoe: Uint8Array;

const get = (path: string, opts: { bearer?: string; cookie?: string } = {}) => svc.arCall('GET', path, opts);
const post = (path: string, body: unknown, opts: { bearer?: string; cookie?: string } = {}) => svc.arCall('POST', path, { ...opts, body });
const asSession = (token: string) => ({ cookie: `fitroom_session=${token}` });
const partsOf = async (bytes: Uint8Array) => (await new NodeIO().readBinary(bytes)).getRoot().listNodes().filter((n) => n.getMesh()).map((n) => n.getName()).sort();
const materialOf = async (bytes: Uint8Array, part: string) => (await new NodeIO().readBinary(bytes)).getRoot().listNodes().find((n) => n.getName() === part)!.getMesh()!.listPrimitives()[0].getMaterial()!;

beforeAll(async () => {
  svc = await startArService();
  owner = await svc.createKey({ accountId: 'acct-owner' });
  other = await svc.createKey({ accountId: 'acct-other' });
  adminSession = await svc.session('ops', { admin: true });
  groupSession = await svc.session('teammate', { group: 'team-a' });
  shoe = await makeShoeGlb({ side: 'right' });
  const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: owner.key, form: glbForm(shoe, { name: 'Court sneaker' }) });
  objectId = up.body.id;
  expect((await waitForAutofit(svc, objectId)).status).toBe('finished');
});
afterAll(async () => {
  await svc?.close();
});

describe('object metadata and field filtering', () => {
  it('get_object_properties: the five private fields only for owner, group member and admin', async () => {
    const anon = await get(`/api/get_object_properties/${objectId}`);
    expect(anon.status).toBe(200);
    for (const f of NEVER_PUBLIC) expect(anon.body).not.toHaveProperty(f);
    expect(anon.body.properties.side).toBe('right');
    expect(anon.body.glb_url).toContain(`/api/get_gltf/${objectId}`);
    expect(anon.headers.get('access-control-allow-origin')).toBe('*');

    const stranger = await get(`/api/get_object_properties/${objectId}`, { bearer: other.key });
    for (const f of NEVER_PUBLIC) expect(stranger.body).not.toHaveProperty(f);
    const groupBefore = await get(`/api/get_object_properties/${objectId}`, asSession(groupSession));
    for (const f of PRIVATE_FIVE) expect(groupBefore.body).not.toHaveProperty(f);

    const mine = await get(`/api/get_object_properties/${objectId}`, { bearer: owner.key });
    for (const f of PRIVATE_FIVE) expect(mine.body).toHaveProperty(f);
    expect(mine.body.owner).toEqual({ kind: 'user', id: 'acct-owner' });
    expect(mine.body.createdBy).toBe(`key:${owner.id}`);
    expect(mine.body.model_url).toContain('variant=source');
    expect(mine.body).not.toHaveProperty('materialsData');

    // the owner shares it with team-a; a member now sees the private fields
    const moved = await post('/api/set_object_properties', { id: objectId, group: 'team-a', custom: { sku: 'CS-1' }, properties: { title: 'Court' } }, { bearer: owner.key });
    expect(moved.status).toBe(200);
    const member = await get(`/api/get_object_properties/${objectId}`, asSession(groupSession));
    for (const f of PRIVATE_FIVE) expect(member.body).toHaveProperty(f);
    expect(member.body.custom).toEqual({ sku: 'CS-1' });
    const admin = await get(`/api/get_object_properties/${objectId}`, asSession(adminSession));
    for (const f of PRIVATE_FIVE) expect(admin.body).toHaveProperty(f);
    // the name works as well as the id
    expect((await get('/api/get_object_properties/Court%20sneaker')).body.id).toBe(objectId);
    expect((await get('/api/get_object_properties/no-such-thing')).status).toBe(404);
  });

  it('get_materials: the private fields for admins only; the fallbacks never', async () => {
    await post('/api/set_materials', { id: objectId, color_id: 'red', preset: { parts: { sole: { material: { baseColor: '#ff0000' } } } } }, { bearer: owner.key });
    await post('/api/set_materials', { id: objectId, color_id: 'red_mirror', preset: { parts: { sole: { material: { baseColor: '#00ff00' } } } } }, { bearer: owner.key });
    const asOwner = await get(`/api/get_materials/${objectId}`, { bearer: owner.key });
    expect(asOwner.status).toBe(200);
    expect(Object.keys(asOwner.body.materialsData).sort()).toEqual(['red', 'red_mirror']);
    expect(asOwner.body.parts).toEqual(['sole', 'upper', 'laces', 'perforado_1', 'suelo']);
    for (const f of PRIVATE_FIVE) expect(asOwner.body).not.toHaveProperty(f);
    const asAdmin = await get(`/api/get_materials/${objectId}`, asSession(adminSession));
    for (const f of PRIVATE_FIVE) expect(asAdmin.body).toHaveProperty(f);

    const fb = await get(`/tryonapi/get_materials/${objectId}?color_id=red`, asSession(adminSession));
    expect(Object.keys(fb.body.materials).sort()).toEqual(['red', 'red_mirror']);
    for (const f of PRIVATE_FIVE) expect(fb.body).not.toHaveProperty(f);
    const fbDefault = await get(`/tryonapi/get_materials/${objectId}`);
    expect(fbDefault.body.color_id).toBe('default');
    expect(fbDefault.body.materials).toEqual({});
    const fbProps = await get(`/tryonapi/get_object_properties/${objectId}`, asSession(adminSession));
    for (const f of NEVER_PUBLIC) expect(fbProps.body).not.toHaveProperty(f);
  });

  it('get_models: everything publicly, the caller\'s own objects when authenticated', async () => {
    const otherUpload = await svc.arCall('POST', '/api/upload_mesh', { bearer: other.key, form: glbForm(shoe, { name: 'other thing' }) });
    expect(otherUpload.status).toBe(200);
    const anon = await get('/api/get_models');
    const ids = anon.body.models.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining([objectId, otherUpload.body.id]));
    for (const m of anon.body.models) for (const f of NEVER_PUBLIC) expect(m).not.toHaveProperty(f);
    const mine = await get('/api/get_models', { bearer: other.key });
    expect(mine.body.models.map((m: { id: string }) => m.id)).toEqual([otherUpload.body.id]);
    expect(mine.body.models[0].owner).toEqual({ kind: 'user', id: 'acct-other' });
    const team = await get('/api/get_models', asSession(groupSession));
    expect(team.body.models.map((m: { id: string }) => m.id)).toEqual([objectId]);
    const all = await get('/api/get_models?limit=200', asSession(adminSession));
    expect(all.body.models.length).toBeGreaterThanOrEqual(2);
    expect(all.body.models[0]).toHaveProperty('createdBy');
    expect((await get('/api/get_models?limit=abc')).status).toBe(400);
  });

  it('set_object_properties: 401 without credentials, 403 for others, merges for the owner', async () => {
    expect((await post('/api/set_object_properties', { id: objectId, name: 'x' })).status).toBe(401);
    const denied = await post('/api/set_object_properties', { id: objectId, name: 'stolen' }, { bearer: other.key });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    const bad = await post('/api/set_object_properties', { id: objectId, owner: 'me' }, { bearer: owner.key });
    expect(bad.status).toBe(400);
    const ok = await post('/api/set_object_properties', { id: objectId, properties: { title: null, color: 'white' } }, { bearer: owner.key });
    expect(ok.status).toBe(200);
    expect(ok.body.properties.title).toBeUndefined();
    expect(ok.body.properties.color).toBe('white');
    expect(ok.body.properties.side).toBe('right');
    expect(ok.body.modifiedBy).toMatch(/^key:/);
    const viaTeam = await post('/api/set_object_properties', { id: objectId, properties: { note: 'checked' } }, asSession(groupSession));
    expect(viaTeam.status).toBe(200);
    expect(viaTeam.body.modifiedBy).toBe('user:teammate');
  });
});

describe('colour presets and model files', () => {
  it('set_materials validates presets and permissions', async () => {
    const cases: [unknown, number, string][] = [
      [{ id: objectId, color_id: 'x', preset: { parts: { sole: { material: { baseColor: 'red' } } } } }, 400, 'VALIDATION_ERROR'],
      [{ id: objectId, color_id: 'x' }, 400, 'VALIDATION_ERROR'],
      [{ id: objectId, color_id: 'x', preset: { parts: {} }, materialsData: {} }, 400, 'VALIDATION_ERROR'],
      [{ id: objectId, color_id: 'bad id', preset: { parts: {} } }, 400, 'VALIDATION_ERROR'],
      [{ id: objectId, color_id: 'x', preset: { parts: { sole: { material: { baseColorTexture: 'missing.png' } } } } }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const r = await post('/api/set_materials', body, { bearer: owner.key });
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error.code).toBe(code);
    }
    expect((await post('/api/set_materials', { id: objectId, color_id: 'x', preset: { parts: {} } })).status).toBe(401);
    expect((await post('/api/set_materials', { id: objectId, color_id: 'x', preset: { parts: {} } }, { bearer: other.key })).status).toBe(403);
  });

  it('bakes presets by the part rules into the served GLB, the mirror and the USDZ', async () => {
    const preset = {
      name: 'Night',
      parts: {
        upper: { visible: true, material: null },
        sole: { material: { baseColor: '#112233', roughness: 0.2 } },
        laces: { visible: false },
        perforado_1: { visible: true, material: { baseColor: '#ffcc00', metallic: 1 } },
        suelo: { material: {} },
      },
    };
    const saved = await post('/api/set_materials', { id: objectId, color_id: 'night', preset }, { bearer: owner.key });
    expect(saved.status).toBe(200);
    const night = await get(`/api/get_gltf/${objectId}?color_id=night`);
    expect(night.status).toBe(200);
    expect(await partsOf(night.bytes)).toEqual(['perforado_1', 'sole', 'upper']);
    const sole = await materialOf(night.bytes, 'sole');
    expect(sole.getBaseColorFactor()[2]).toBeCloseTo(Math.pow((0x33 / 255 + 0.055) / 1.055, 2.4), 4);
    expect((await materialOf(night.bytes, 'upper')).getName()).toBe('leather'); // embedded kept
    // the default colour has no preset: overlay and floor stay out
    expect(await partsOf((await get(`/api/get_gltf/${objectId}`)).bytes)).toEqual(['laces', 'sole', 'upper']);
    // red_mirror applies to the mirrored shoe of colour red
    const redMirror = await get(`/api/get_gltf/${objectId}?color_id=red&mirror=1`);
    expect((await materialOf(redMirror.bytes, 'sole')).getBaseColorFactor().slice(0, 3)).toEqual([0, 1, 0]);
    const red = await get(`/api/get_gltf/${objectId}?color_id=red`);
    expect((await materialOf(red.bytes, 'sole')).getBaseColorFactor().slice(0, 3)).toEqual([1, 0, 0]);
    // editing a preset changes what is served (no stale cache)
    await post('/api/set_materials', { id: objectId, color_id: 'red', preset: { parts: { sole: { material: { baseColor: '#0000ff' } } } } }, { bearer: owner.key });
    const blue = await get(`/api/get_gltf/${objectId}?color_id=red`);
    expect((await materialOf(blue.bytes, 'sole')).getBaseColorFactor().slice(0, 3)).toEqual([0, 0, 1]);
    expect((await get(`/api/get_gltf/${objectId}?color_id=unknown`)).status).toBe(404);

    const usdz = await get(`/api/get_usdz/${objectId}?color_id=night`);
    expect(usdz.status).toBe(200);
    expect(usdz.headers.get('content-type')).toBe('model/vnd.usdz+zip');
    const report = checkUsdz(usdz.bytes);
    expect(report.problems).toEqual([]);
    expect(report.entries.length).toBeGreaterThan(1);

    const bake = await post('/api/bake', { id: objectId, color_ids: ['night', 'red'] }, { bearer: owner.key });
    expect(bake.status).toBe(200);
    expect(Object.keys(bake.body.colors)).toEqual(['night', 'red']);
    expect(bake.body.colors.night.glb).toBe(night.bytes.length);
    expect(bake.body.colors.red.mirror_glb_url).toContain('mirror=1');
    expect((await post('/api/bake', { id: objectId }, { bearer: other.key })).status).toBe(403);
  });

  it('uses uploaded textures in presets', async () => {
    const png = new Uint8Array(await sharp({ create: { width: 16, height: 16, channels: 3, background: '#3a7' } }).png().toBuffer());
    const form = new FormData();
    form.append('id', objectId);
    form.append('name', 'canvas.png');
    form.append('file', new Blob([png as BlobPart], { type: 'image/png' }), 'canvas.png');
    const up = await svc.arCall('POST', '/api/upload_textures', { bearer: owner.key, form });
    expect(up.status).toBe(200);
    expect(up.body.textures).toEqual(['canvas.png']);
    const notImage = new FormData();
    notImage.append('id', objectId);
    notImage.append('name', 'x.png');
    notImage.append('file', new Blob(['hello'], { type: 'image/png' }), 'x.png');
    expect((await svc.arCall('POST', '/api/upload_textures', { bearer: owner.key, form: notImage })).status).toBe(400);
    const badName = new FormData();
    badName.append('id', objectId);
    badName.append('name', '../etc');
    badName.append('file', new Blob([png as BlobPart], { type: 'image/png' }), 'x.png');
    expect((await svc.arCall('POST', '/api/upload_textures', { bearer: owner.key, form: badName })).status).toBe(400);

    await post('/api/set_materials', { id: objectId, color_id: 'canvas', preset: { parts: { upper: { material: { baseColorTexture: 'canvas.png' } } } } }, { bearer: owner.key });
    const model = await get(`/api/get_gltf/${objectId}?color_id=canvas`);
    const tex = (await materialOf(model.bytes, 'upper')).getBaseColorTexture()!;
    expect(Buffer.from(tex.getImage()!).equals(Buffer.from(png))).toBe(true);
  });

  it('serves the source only to the owner side, and 409 before autofit finishes', async () => {
    expect((await get(`/api/get_gltf/${objectId}?variant=source`)).status).toBe(404);
    const src = await get(`/api/get_gltf/${objectId}?variant=source`, { bearer: owner.key });
    expect(src.status).toBe(200);
    expect(Buffer.from(src.bytes).equals(Buffer.from(shoe))).toBe(true);
    const pending = await svc.store.create({ owner: { kind: 'user', id: 'acct-owner' }, createdBy: 'test', autofit: { default: { status: 'in_progress', progress: 40, updatedAt: new Date().toISOString() } } });
    const r = await get(`/api/get_gltf/${pending.id}`);
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/in_progress/);
    expect((await get(`/api/get_usdz/${pending.id}`)).status).toBe(409);
  });

  it('replace_mesh keeps presets and runs autofit again (or not)', async () => {
    const r = await svc.arCall('POST', '/api/upload_mesh', { bearer: owner.key, form: glbForm(await makeShoeGlb({ overlays: false, floor: false }), { name: 'acc', kind: 'accessory' }) });
    const id = r.body.id;
    expect((await get(`/api/get_object_properties/${id}`)).body.properties).toEqual({ kind: 'accessory', parts: ['sole', 'upper', 'laces'] });
    const form = glbForm(await makeShoeGlb({ side: 'left', length: 0.25 }), { id, autofit: '1' });
    const replaced = await svc.arCall('POST', '/api/replace_mesh', { bearer: owner.key, form });
    expect(replaced.status).toBe(200);
    expect(replaced.body.status).toBe('in_queue');
    const done = await waitForAutofit(svc, id);
    expect(done.object_properties.side).toBe('left');
    expect(done.object_properties.dimensions.length).toBeCloseTo(0.25, 2);
    const asIs = await svc.arCall('POST', '/api/replace_mesh', { bearer: owner.key, form: glbForm(await makeShoeGlb({ overlays: false, floor: false }), { id, autofit: '0' }) });
    expect(asIs.body.status).toBe('finished');
    expect((await get(`/api/get_object_properties/${id}`)).body.properties.parts).toEqual(['sole', 'upper', 'laces']);
    expect((await svc.arCall('POST', '/api/replace_mesh', { bearer: other.key, form: glbForm(shoe, { id }) })).status).toBe(403);
    expect((await svc.arCall('POST', '/api/replace_mesh', { bearer: owner.key, form: glbForm(shoe, {}) })).status).toBe(400);
    expect((await svc.arCall('POST', '/api/upload_mesh', { form: glbForm(shoe) })).status).toBe(401);
  });
});

describe('claim_object', () => {
  it('moves a session-owned object to the caller with the right session id; admins may claim any', async () => {
    const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: owner.key, form: glbForm(shoe, { session_id: 'sess-claim' }) });
    const id = up.body.id;
    expect((await post('/api/claim_object', { id }, { bearer: other.key })).status).toBe(403);
    expect((await post('/api/claim_object', { id, session_id: 'wrong' }, { bearer: other.key })).status).toBe(403);
    const ok = await post('/api/claim_object', { id, session_id: 'sess-claim' }, { bearer: other.key });
    expect(ok.status).toBe(200);
    expect(ok.body.owner).toEqual({ kind: 'user', id: 'acct-other' });
    // now owned: the former session cannot take it back, an admin can
    expect((await post('/api/claim_object', { id, session_id: 'sess-claim' }, { bearer: owner.key })).status).toBe(403);
    const byAdmin = await post('/api/claim_object', { id }, asSession(adminSession));
    expect(byAdmin.body.owner).toEqual({ kind: 'user', id: 'ops' });
    expect((await post('/api/claim_object', { id })).status).toBe(401);
  });
});

describe('try-on shortcuts and bug reports', () => {
  it('forwards garment_fit_on and shoes_fit_on to the try-on operations with the caller', async () => {
    const { key, id } = await svc.createKey({ accountId: 'acct-fit' });
    const img = await images();
    const r = await post('/tryon/api/garment_fit_on', { image: img.face, garment: [img.bottom], category: 'bottom', quality: 'draft' }, { bearer: key });
    expect(r.status, r.text).toBe(202);
    // The job belongs to the caller's key: it reads it through the API host like any of its jobs.
    const job = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}`, { key });
    expect(job.status).toBe(200);
    const input = (await svc.fitroom.pool.query('select input from jobs where id = $1', [r.body.jobId])).rows[0].input;
    expect(JSON.stringify(input)).toContain('bottomGarment');
    // the try-on operation's own validation applies
    const invalid = await post('/tryon/api/garment_fit_on', { image: 'ftp://x', garment: img.top }, { bearer: key });
    expect(invalid.status).toBe(400);
    const both = await post('/tryon/api/garment_fit_on', { image: img.face, digital_twin_id: 'a'.repeat(64), garment: img.top }, { bearer: key });
    expect(both.status).toBe(400);
    const shoes = await post('/tryon/api/shoes_fit_on', { image: img.face, shoe_images: [{ url: img.shoes, angle: 'side' }] }, { bearer: key });
    expect(shoes.status, shoes.text).toBe(202);
    // Both jobs are the caller's key's; the refused requests made none. The face-only photo fails
    // the try-on's own person check, and a failed job is refunded, so the key ends uncharged.
    const jobs = [r.body.jobId, shoes.body.jobId];
    const rows = (await svc.fitroom.pool.query('select id from jobs where credential_id = $1', [id])).rows;
    expect(rows.map((x) => x.id).sort()).toEqual([...jobs].sort());
    const settled = await Promise.all(jobs.map((j) => waitForJob(svc, key, j)));
    expect(settled.map((j) => j.errorCode)).toEqual(['PERSON_INCOMPLETE', 'PERSON_INCOMPLETE']);
    expect(await svc.usage(id)).toBe(0);
    expect((await post('/tryon/api/garment_fit_on', { image: img.face, garment: img.top })).status).toBe(401);
  });

  it('stores bug reports and lists them in the admin API', async () => {
    const r = await post('/tryon/api/report_bug', { message: 'The shoe floats above the floor', object_id: objectId, page: '/tryon?id=x', context: { mirror_mode: 3 } });
    expect(r.status).toBe(201);
    expect((await post('/tryon/api/report_bug', { message: '' })).status).toBe(400);
    const list = await svc.call('GET', '/admin/v1/ar/bug-reports', { headers: { 'x-admin-key': ADMIN_KEY } });
    expect(list.status).toBe(200);
    const found = list.body.reports.find((x: { id: string }) => x.id === r.body.id);
    expect(found).toMatchObject({ objectId, message: 'The shoe floats above the floor', reporter: null });
    expect(found.context).toMatchObject({ mirror_mode: 3, page: '/tryon?id=x' });
    expect((await svc.call('GET', '/admin/v1/ar/bug-reports', { key: owner.key })).status).toBe(401);
  });
});

describe('dashboard sessions', () => {
  it('the admin API signs sessions; the login route sets the cookie and only redirects on this host', async () => {
    const noAdmin = await svc.call('POST', '/admin/v1/ar/sessions', { body: { userId: 'x' } });
    expect(noAdmin.status).toBe(401);
    const token = await svc.session('cookie-user', { group: 'team-b' });
    const login = await get(`/tryon/login?token=${encodeURIComponent(token)}&next=${encodeURIComponent('/tryon/editor?id=1')}`);
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/tryon/editor?id=1');
    const setCookie = login.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^fitroom_session=frs1\./);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const cookie = setCookie.split(';')[0];
    const mine = await get('/api/get_models', { cookie });
    expect(mine.status).toBe(200);
    expect((await get(`/tryon/login?token=${encodeURIComponent(token)}&next=${encodeURIComponent('//evil.example')}`)).status).toBe(400);
    expect((await get(`/tryon/login?token=${encodeURIComponent(token)}&next=${encodeURIComponent('https://evil.example')}`)).status).toBe(400);
    expect((await get('/tryon/login?token=frs1.bad.sig')).status).toBe(401);
  });
});
