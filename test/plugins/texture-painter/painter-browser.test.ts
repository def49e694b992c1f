import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../../support/harness.ts';
import { writeGlb } from '../../../adapters/gltf/write-glb.ts';
import { SHOTS, launchChromium } from '../ar-host/browser.ts';
import { leather } from './support.ts';

/** A textured square facing the camera, served with CORS from another loopback origin. */
async function glbServer(): Promise<{ url: string; origin: string; close: () => Promise<void> }> {
  const tex = leather(1024, 1024);
  const png = await sharp(Buffer.from(tex.data), { raw: { width: 1024, height: 1024, channels: 4 } }).png().toBuffer();
  const s = 0.2;
  const glb = await writeGlb({
    positions: new Float32Array([-s, -s, 0, s, -s, 0, s, s, 0, -s, s, 0]),
    normals: new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]),
    uvs: new Float32Array([0, 1, 1, 1, 1, 0, 0, 0]),
    indices: new Uint32Array([0, 1, 2, 0, 2, 3]),
    baseColor: { bytes: png, contentType: 'image/png' },
    roughness: 1,
  });
  const server = http.createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.url !== '/square.glb') return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'model/gltf-binary' }).end(Buffer.from(glb));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/square.glb`, origin, close: () => new Promise((r) => server.close(() => r())) };
}

describe('texture painter page in Chromium', () => {
  let svc: TestService;
  let glb: Awaited<ReturnType<typeof glbServer>>;
  let browser: Browser;
  beforeAll(async () => {
    svc = await startTestService({ worker: false });
    glb = await glbServer();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await glb?.close();
    await svc?.close();
  });

  it('refuses a missing or non-http model URL', async () => {
    expect((await svc.call('GET', '/texture-painter')).status).toBe(400);
    const r = await svc.call('GET', '/texture-painter?glb=javascript:alert(1)');
    expect(r.status).toBe(400);
    expect(r.text).toContain('Invalid model URL');
  });

  it('paints on the texture, shows it on the model and enhances it through the route', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 640 } });
    const outside: string[] = [];
    // nothing but the API host and the model's host may be reached
    await context.route('**/*', (route) => {
      const u = route.request().url();
      if (u.startsWith(svc.api) || u.startsWith(glb.origin) || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
      outside.push(u);
      return route.abort();
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => /Content Security Policy|Refused to/i.test(m.text()) && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    const calls: number[] = [];
    page.on('response', (res) => res.url().endsWith('/api/v1/texture-painter/enhance') && calls.push(res.status()));
    await page.goto(`${svc.api}/texture-painter?glb=${encodeURIComponent(glb.url)}`);
    await page.waitForFunction(() => document.body.dataset.ready === '1', undefined, { timeout: 90_000 });
    await page.waitForFunction(() => (document.getElementById('viewer') as unknown as { modelIsVisible: boolean }).modelIsVisible, undefined, { timeout: 60_000 });

    const viewerBefore = await page.locator('#viewer').screenshot();
    // a red zigzag across the texture canvas
    const box = (await page.locator('#texture').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.3);
    await page.mouse.down();
    for (const [fx, fy] of [[0.4, 0.6], [0.6, 0.3], [0.8, 0.6]]) await page.mouse.move(box.x + box.width * fx, box.y + box.height * fy, { steps: 12 });
    await page.mouse.up();
    await page.waitForTimeout(800);
    const viewerPainted = await page.locator('#viewer').screenshot();
    const painted = await redShare(viewerPainted);
    expect(await redShare(viewerBefore)).toBeLessThan(0.002);
    expect(painted).toBeGreaterThan(0.01); // the stroke shows on the model at once

    const flatBefore = await strokeStd(page);
    await page.click('#enhance');
    await page.waitForFunction(() => document.body.dataset.enhanced === '1' || document.body.dataset.failed, undefined, { timeout: 90_000 });
    expect(await page.evaluate(() => document.body.dataset.failed ?? null)).toBeNull();
    expect(calls).toEqual([200]);
    expect(await page.locator('#painter-status').textContent()).toMatch(/Enhanced \d+ painted pixels .*builtin-texture-painter/);
    // the flat paint now carries the material's grain
    expect(await strokeStd(page)).toBeGreaterThan(flatBefore + 4);
    await page.waitForTimeout(800);
    const shot = await page.screenshot();
    writeFileSync(path.join(SHOTS, 'texture-painter.png'), shot);
    expect(await redShare(await page.locator('#viewer').screenshot())).toBeGreaterThan(0.01);
    expect(problems, problems.join("\n")).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  }, 240_000);
});

/** Share of clearly red pixels in a screenshot. */
async function redShare(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let red = 0;
  for (let i = 0; i < data.length; i += 3) if (data[i] > 140 && data[i + 1] < 90 && data[i + 2] < 100 && data[i] - data[i + 1] > 90) red++;
  return red / (info.width * info.height);
}

/** Luminance spread of the red pixels of the texture canvas (flat paint: about 0). */
async function strokeStd(page: import('playwright-core').Page): Promise<number> {
  return page.evaluate(() => {
    const c = document.getElementById('texture') as HTMLCanvasElement;
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0, s = 0, s2 = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (!(d[i] > 140 && d[i + 1] < 90 && d[i] - d[i + 1] > 90)) continue;
      const l = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
      n++; s += l; s2 += l * l;
    }
    const m = s / Math.max(1, n);
    return Math.sqrt(Math.max(0, s2 / Math.max(1, n) - m * m));
  });
}
