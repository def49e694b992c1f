import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startTestService, type TestService } from '../../support/harness.ts';
import { dataUrl, fromDataUrl, leather, paint, stats } from './support.ts';

const W = 192, H = 160;
const RED: [number, number, number] = [200, 30, 40];
// a thick diagonal stroke, and a square across the right edge
const onStroke = (x: number, y: number) => Math.abs(x - 40 - (y - 30)) < 9 && x > 40 && x < 130;
const interior = (x: number, y: number) => Math.abs(x - 40 - (y - 30)) < 5 && x > 46 && x < 124;
const onEdge = (x: number, y: number) => x >= W - 10 && y >= 100 && y < 130;
const painted = (x: number, y: number) => onStroke(x, y) || onEdge(x, y);

describe('texture painter enhancement', () => {
  let svc: TestService;
  let body: { texture: string; mask: string };
  let original: ReturnType<typeof leather>;
  // each call from its own address: the per-address limits have their own test below
  let caller = 0;
  const enhance = (b: unknown, headers: Record<string, string> = {}) => svc.call('POST', '/api/v1/texture-painter/enhance', { body: b, headers: { 'x-forwarded-for': `198.18.0.${++caller}`, ...headers } });

  beforeAll(async () => {
    svc = await startTestService({ worker: false, env: { TRUST_PROXY: '1' } });
    original = leather(W, H);
    const p = paint(original, painted, RED);
    body = { texture: await dataUrl(p.painted), mask: await dataUrl(p.mask) };
  }, 60_000);
  afterAll(() => svc?.close());

  it('blend: keeps the paint colour and gives it the grain of the material; untouched texels stay exact', async () => {
    const r = await enhance({ ...body, mode: 'blend' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, width: W, height: H, mode: 'blend', wrap: 'none', regions: 2, engine: { provider: 'builtin', model: 'builtin-texture-painter' } });
    expect(r.body.paintedPixels).toBe(stats(original, painted).n);
    const out = await fromDataUrl(r.body.texture);
    expect([out.width, out.height]).toEqual([W, H]);
    const inside = stats(out, interior);
    const around = stats(original, (x, y) => !painted(x, y));
    // the flat paint (std 0) now has grain comparable to the material's
    expect(inside.std).toBeGreaterThan(around.std * 0.4);
    // and is still the painted red
    expect(Math.abs(inside.rgb[0] - RED[0])).toBeLessThan(25);
    expect(inside.rgb[0] - inside.rgb[1]).toBeGreaterThan(120);
    // outside the painted region, nothing changed
    let changed = 0;
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (!painted(x, y)) for (let c = 0; c < 4; c++) if (out.data[(y * W + x) * 4 + c] !== original.data[(y * W + x) * 4 + c]) changed++;
    expect(changed).toBe(0);
  });

  it('inpaint: replaces the paint by the material around it, with a seam band only next to the region', async () => {
    const r = await enhance({ ...body, mode: 'inpaint' });
    expect(r.status).toBe(200);
    const out = await fromDataUrl(r.body.texture);
    const inside = stats(out, interior);
    const around = stats(original, (x, y) => !painted(x, y));
    for (let c = 0; c < 3; c++) expect(Math.abs(inside.rgb[c] - around.rgb[c]), `channel ${c}`).toBeLessThan(12);
    expect(inside.std).toBeGreaterThan(around.std * 0.5);
    // pixels farther than the 3 px band are untouched
    const near = (x: number, y: number) => {
      for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) if (painted(x + dx, y + dy)) return true;
      return false;
    };
    let changed = 0;
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (!near(x, y) && out.data[(y * W + x) * 4] !== original.data[(y * W + x) * 4]) changed++;
    expect(changed).toBe(0);
  });

  it('is deterministic', async () => {
    const a = await enhance({ ...body, mode: 'inpaint', detail: 1.5 });
    const b = await enhance({ ...body, mode: 'inpaint', detail: 1.5 });
    expect(a.body.texture).toBe(b.body.texture);
    const c = await enhance({ ...body, mode: 'inpaint', detail: 0 });
    expect(c.body.texture).not.toBe(a.body.texture);
  });

  it('joins regions across a wrapped seam', async () => {
    const edges = paint(original, (x, y) => (x < 6 || x >= W - 6) && y >= 60 && y < 90, RED);
    const b = { texture: await dataUrl(edges.painted), mask: await dataUrl(edges.mask), mode: 'inpaint' };
    expect((await enhance({ ...b, wrap: 'none' })).body.regions).toBe(2);
    const wrapped = await enhance({ ...b, wrap: 'x' });
    expect(wrapped.body.regions).toBe(1);
    // across the seam the result continues like the material does: the step between the last and
    // the first column stays close to the one the unpainted texture has there
    const out = await fromDataUrl(wrapped.body.texture);
    const step = (p: { data: Uint8Array }) => {
      let sum = 0;
      for (let y = 60; y < 90; y++) for (let c = 0; c < 3; c++) sum += Math.abs(p.data[(y * W + W - 1) * 4 + c] - p.data[y * W * 4 + c]);
      return sum;
    };
    expect(step(out)).toBeLessThan(step(original) * 1.5);
  });

  it('refuses bad images and masks', async () => {
    const tiny = await dataUrl(leather(16, 16));
    const other = await dataUrl(paint(leather(32, 32), () => true, RED).mask);
    const blank = await dataUrl(paint(leather(W, H), () => false, RED).mask);
    const cases: [unknown, number, string][] = [
      [{ texture: body.texture }, 400, 'mask'],
      [{ texture: body.texture, mask: 'https://example.com/mask.png' }, 400, 'mask'],
      [{ texture: 'data:image/png;base64,AAAA', mask: body.mask }, 400, 'texture'],
      [{ texture: 'data:image/gif;base64,R0lGOD', mask: body.mask }, 400, 'texture'],
      [{ texture: tiny, mask: other }, 400, 'mask'],
      [{ texture: body.texture, mask: blank }, 400, 'mask'],
      [{ ...body, mode: 'smudge' }, 400, 'mode'],
      [{ ...body, detail: 3 }, 400, 'detail'],
      [{ ...body, prompt: 'x'.repeat(501) }, 400, 'prompt'],
      [{ ...body, extra: 1 }, 400, 'extra'],
    ];
    for (const [b, status, field] of cases) {
      const r = await enhance(b);
      expect(r.status, JSON.stringify(b).slice(0, 120)).toBe(status);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(r.body.error.details)).toContain(field);
    }
  });

  it('refuses oversized textures, painted regions and bodies with 413', async () => {
    const big = await sharp({ create: { width: 2049, height: 8, channels: 4, background: '#885533' } }).png().toBuffer();
    const bigMask = await sharp({ create: { width: 2049, height: 8, channels: 4, background: '#ffffff' } }).png().toBuffer();
    let r = await enhance({ texture: `data:image/png;base64,${big.toString('base64')}`, mask: `data:image/png;base64,${bigMask.toString('base64')}` });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    // 2048 x 600 painted everywhere: more than 1 MP to process
    const wide = await sharp({ create: { width: 2048, height: 600, channels: 4, background: '#885533' } }).png().toBuffer();
    const wideMask = await sharp({ create: { width: 2048, height: 600, channels: 4, background: '#ffffff' } }).png().toBuffer();
    r = await enhance({ texture: `data:image/png;base64,${wide.toString('base64')}`, mask: `data:image/png;base64,${wideMask.toString('base64')}` });
    expect(r.status).toBe(413);
    expect(r.body.error.message).toMatch(/1048576/);
    // a body over 17 MiB is refused while reading
    r = await enhance({ texture: `data:image/png;base64,${'A'.repeat(18 * 1024 * 1024)}`, mask: body.mask });
    expect(r.status).toBe(413);
  });

  it('is documented in OpenAPI without authentication', async () => {
    const doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
    const op = doc.paths['/api/v1/texture-painter/enhance'].post;
    expect(op.responses['413']).toBeDefined();
    expect(doc.components.schemas.TextureEnhanceRequest.required).toEqual(['texture', 'mask']);
    expect(doc.paths['/texture-painter'].get).toBeDefined();
  });
});

describe('texture painter rate limit per client address', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ worker: false, env: { TRUST_PROXY: '1' } });
  }, 60_000);
  afterAll(() => svc?.close());

  it('gives each address its own submission budget', async () => {
    const from = (ip: string) => svc.call('POST', '/api/v1/texture-painter/enhance', { body: {}, headers: { 'x-forwarded-for': ip } });
    const first = await from('198.51.100.7');
    expect(first.status).toBe(400);
    expect(first.headers.get('x-ratelimit-limit')).toBe('50');
    for (let i = 1; i < 50; i++) expect((await from('198.51.100.7')).status).toBe(400);
    const refused = await from('198.51.100.7');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // another address is not affected
    expect((await from('198.51.100.8')).status).toBe(400);
  });

  it('gives anonymous enhancements their own budget per address: 10 a minute, 2 at once (429 with Retry-After)', async () => {
    const small = paint(leather(64, 64), (x, y) => x > 20 && x < 40 && y > 20 && y < 40, RED);
    const valid = { texture: await dataUrl(small.painted), mask: await dataUrl(small.mask) };
    const from = (ip: string, b: unknown = valid) => svc.call('POST', '/api/v1/texture-painter/enhance', { body: b, headers: { 'x-forwarded-for': ip } });
    // three at once from one address: two run, one is refused
    const big = paint(leather(768, 768), (x, y) => x > 100 && x < 700 && y > 100 && y < 700, RED);
    const heavy = { texture: await dataUrl(big.painted), mask: await dataUrl(big.mask) };
    const three = await Promise.all([from('203.0.113.9', heavy), from('203.0.113.9', heavy), from('203.0.113.9', heavy)]);
    expect(three.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    const busy = three.find((r) => r.status === 429)!;
    expect(busy.body.error.code).toBe('RATE_LIMITED');
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
    // invalid requests do not use the budget; valid ones do, 10 a minute
    expect((await from('203.0.113.10', {})).status).toBe(400);
    for (let i = 0; i < 10; i++) expect((await from('203.0.113.10')).status).toBe(200);
    const refused = await from('203.0.113.10');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await from('203.0.113.11')).status).toBe(200);
  });
});
