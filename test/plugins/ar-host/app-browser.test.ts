import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { makeShoeGlb } from '../../support/shoes.ts';
import { glbForm, startArService, waitForAutofit } from './support.ts';
import type { ArTestService } from './support.ts';
import { chromiumPath, SHOTS, openPage } from './browser.ts';

let svc: ArTestService;
let browser: Browser | null = null;
let objectId: string;

beforeAll(async () => {
  svc = await startArService();
  const { key } = await svc.createKey({ accountId: 'app-owner' });
  const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(await makeShoeGlb({ side: 'left' }), { name: 'Pair' }) });
  objectId = up.body.id;
  expect((await waitForAutofit(svc, objectId)).status).toBe('finished');
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('try-on app page in Chromium', () => {
  it('shows the pair (mirror_mode 3) over the camera and analyses frames at native_ml_size', async () => {
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-unsafe-swiftshader', '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
    });
    const { page, context, outside, problems } = await openPage(browser, svc.ar, `${svc.ar}/tryon/app?id=${objectId}&mm=3&native_ml_size=160&pose_quality=1&debug=1&turbo=1`);
    await context.grantPermissions(['camera'], { origin: svc.ar });
    await page.waitForFunction(() => Number(document.body.dataset.loaded ?? 0) >= 2, undefined, { timeout: 90_000 });
    // the uploaded shoe is a left shoe: the pair shows it first, then its mirror (the right shoe)
    expect(await page.locator('#viewer').getAttribute('src')).toBe(`/api/get_gltf/${objectId}?color_id=default`);
    expect(await page.locator('#viewer-pair').getAttribute('src')).toBe(`/api/get_gltf/${objectId}?color_id=default&mirror=1`);
    await page.waitForFunction(() => (document.getElementById('debug')!.textContent ?? '').includes('"analysis"'), undefined, { timeout: 60_000 });
    const debug = JSON.parse((await page.locator('#debug').textContent()) ?? '{}');
    expect(debug.analysis.size).toBe(160);
    expect(debug.analysis.fps).toBe(10);
    expect(await page.evaluate(() => (document.getElementById('analysis') as HTMLCanvasElement).width)).toBe(160);
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(SHOTS, 'app-pair.png') });
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
