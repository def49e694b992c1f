import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { makeShoeGlb } from '../../support/shoes.ts';
import { glbForm, startArService, waitForAutofit } from './support.ts';
import type { ArTestService } from './support.ts';
import { SHOTS, launchChromium, openPage, screenshotStats, waitForModel } from './browser.ts';

let svc: ArTestService;
let browser: Browser | null = null;
let objectId: string;

beforeAll(async () => {
  svc = await startArService();
  const { key } = await svc.createKey({ accountId: 'viewer-owner' });
  // uploaded lying on its side, in decimetres: the page must show it upright
  const glb = await makeShoeGlb({ side: 'right', rootMatrix: [0, 0, 10, 0, 0, 10, 0, 0, -10, 0, 0, 0, 0, 0, 0, 1] });
  const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(glb, { name: 'Viewer shoe' }) });
  objectId = up.body.id;
  expect((await waitForAutofit(svc, objectId)).status).toBe('finished');
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('viewer page in Chromium', () => {
  it('loads the aligned shoe without any other host and renders it', async () => {
    browser = await launchChromium();
    const { page, context, outside, problems } = await openPage(browser, svc.ar, `${svc.ar}/tryon?id=${objectId}&debug=1`);
    await waitForModel(page);
    const px = await screenshotStats(page, '#viewer', 'viewer.png');
    await page.screenshot({ path: path.join(SHOTS, 'viewer-page.png') });
    console.log(`viewer: ${(px.model * 100).toFixed(1)}% of the pixels show the model, ${(px.red * 100).toFixed(2)}% red (screenshot in ${SHOTS})`);
    expect(px.model).toBeGreaterThan(0.03);
    expect(px.red).toBeLessThan(0.002); // no red part in the default colours
    expect(await page.locator('#viewer').getAttribute('ios-src')).toBe(`/api/get_usdz/${objectId}?color_id=default`);
    expect(await page.locator('#viewer').getAttribute('ar-modes')).toBe('webxr scene-viewer quick-look');
    expect(await page.locator('#viewer').getAttribute('src')).toBe(`/api/get_gltf/${objectId}?color_id=default`);
    const debug = JSON.parse((await page.locator('#debug').textContent()) ?? '{}');
    expect(debug.properties.side).toBe('right');
    expect(debug.params.mirrorMode).toBe(1);
    // the model-viewer scene holds the aligned model: upright (height < length) and metric
    const dims = await page.evaluate(() => (document.getElementById('viewer') as unknown as { getDimensions(): { x: number; y: number; z: number } }).getDimensions());
    expect(dims.z).toBeGreaterThan(0.26);
    expect(dims.z).toBeLessThan(0.29);
    expect(dims.y).toBeLessThan(dims.z / 2);
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
