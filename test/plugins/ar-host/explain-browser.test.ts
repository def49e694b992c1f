/**
 * The AR pages explain themselves (Chromium): a page without an id says where ids come from, an
 * unknown id says the same, the try-on app without a camera says why and that the 3D view still
 * works (on loopback and on a plain-HTTP host name), a model by URL says it is no AR object and how
 * to make it one, and an object's page names its id. Screenshots go to FITROOM_SCREENSHOTS.
 */
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeShoeGlb } from '../../support/shoes.ts';
import { chromiumPath, SHOTS, openPage } from './browser.ts';
import { glbForm, startArService, waitForAutofit, type ArTestService } from './support.ts';

let svc: ArTestService;
let browser: Browser;
let objectId: string;

beforeAll(async () => {
  svc = await startArService();
  const { key } = await svc.createKey();
  const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(await makeShoeGlb({ side: 'left' }), { name: 'Runner' }) });
  objectId = up.body.id;
  expect((await waitForAutofit(svc, objectId)).status).toBe('finished');
  // no fake camera: the machine has none; a host name mapped to loopback is a plain-HTTP origin
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-unsafe-swiftshader', '--host-resolver-rules=MAP fitroom-ar.test 127.0.0.1'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('AR pages that explain themselves', () => {
  it('a page without an id says where an id comes from', async () => {
    const { page, problems } = await openPage(browser, svc.ar!, `${svc.ar}/tryon`);
    expect(await page.textContent('h1')).toBe('Invalid viewer parameters');
    expect(await page.textContent('h2')).toBe('Next step');
    const next = await page.locator('ul.next li').allTextContents();
    expect(next[0]).toContain(`curl -s ${svc.ar}/tryon/api/upload_shoe -H "Authorization: Bearer $KEY" -F file=@shoe.glb`);
    expect(next[1]).toMatch(/\/api\/v1\/shoe-3d with "options": \{"uploadToService": true\}.*result\.arObject\.id/);
    expect(next[2]).toContain('/tryon?src=<GLB URL>');
    expect(await page.locator('ul.next code').count()).toBeGreaterThan(4);
    expect(problems).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'ar-no-id.png'), fullPage: true });
    await page.close();
  });

  it('an unknown id says so and gives the same next steps', async () => {
    const res = await fetch(`${svc.ar}/tryon/app?id=ffffffffffffffffffffffff`);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).toContain('No model with id or name &quot;ffffffffffffffffffffffff&quot;');
    expect(text).toContain('<h2>Next step</h2>');
    expect(text).toContain('/tryon/api/upload_shoe');
  });

  it('the try-on app without a camera says why, and the 3D view still shows the shoe', async () => {
    const { page, problems } = await openPage(browser, svc.ar!, `${svc.ar}/tryon/app?id=${objectId}`);
    await page.waitForFunction(() => document.body.dataset.camera === 'unavailable', undefined, { timeout: 60_000 });
    const note = (await page.textContent('#camera-note'))!;
    expect(note).toMatch(/^No camera: (none was found on this device\.|Camera access was refused.*)/);
    expect(note).toContain('The 3D view still works');
    expect(await page.isVisible('#camera-note')).toBe(true);
    await page.waitForFunction(() => Number(document.body.dataset.loaded ?? 0) >= 1, undefined, { timeout: 90_000 });
    await page.waitForTimeout(500);
    expect(problems).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'ar-app-no-camera.png') });
    await page.close();
  });

  it('on plain HTTP the app says the camera needs HTTPS', async () => {
    const origin = `http://fitroom-ar.test:${new URL(svc.ar!).port}`;
    const { page } = await openPage(browser, origin, `${origin}/tryon/app?id=${objectId}`);
    await page.waitForFunction(() => document.body.dataset.camera === 'unavailable', undefined, { timeout: 60_000 });
    expect(await page.textContent('#camera-note')).toMatch(/only to HTTPS pages \(or localhost\), and this page came over plain HTTP from fitroom-ar\.test:\d+: open it through HTTPS\. The 3D view still works/);
    await page.close();
  });

  it('a model by URL is not an AR object and says how to make it one; an object names its id', async () => {
    const glb = `${svc.ar}/api/get_gltf/${objectId}?color_id=default`;
    const { page, problems } = await openPage(browser, svc.ar!, `${svc.ar}/tryon?src=${encodeURIComponent(glb)}`);
    const notice = (await page.textContent('#notice'))!;
    expect(notice).toMatch(/^A model by URL, not an AR host object/);
    expect(notice).toContain('"options": {"uploadToService": true}');
    expect(notice).toContain(`curl -s ${svc.ar}/tryon/api/upload_shoe`);
    expect(await page.locator('.object-id').count()).toBe(0);
    await page.waitForFunction(() => Number(document.body.dataset.loaded ?? 0) >= 1, undefined, { timeout: 90_000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(SHOTS, 'ar-viewer-src.png') });
    expect(problems).toEqual([]);
    await page.close();

    const own = await openPage(browser, svc.ar!, `${svc.ar}/tryon?id=${objectId}`);
    expect(await own.page.textContent('.object-id')).toBe(`AR object ${objectId}`);
    expect(await own.page.locator('#notice').count()).toBe(0);
    await own.page.close();
  });
});
