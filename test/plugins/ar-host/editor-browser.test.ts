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
  const { key } = await svc.createKey({ accountId: 'editor-owner' });
  const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(await makeShoeGlb({ side: 'left' }), { name: 'Editor shoe' }) });
  objectId = up.body.id;
  expect((await waitForAutofit(svc, objectId)).status).toBe('finished');
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('material editor in Chromium', () => {
  it('changes a part colour, saves it, and shows it again after a reload', async () => {
    browser = await launchChromium();
    // signed in the dashboard way: the login route sets the session cookie and continues to the editor
    const token = await svc.session('editor-owner');
    const next = `/tryon/editor?id=${objectId}`;
    const { page, context, outside, problems } = await openPage(browser, svc.ar, `${svc.ar}/tryon/login?token=${encodeURIComponent(token)}&next=${encodeURIComponent(next)}`, { width: 1100, height: 560 });
    await page.waitForURL(/\/tryon\/editor/);
    const row = page.locator('tr[data-part="sole"]');
    await row.waitFor();
    expect(await row.locator('.mode').inputValue()).toBe('embedded');
    expect(await page.locator('tr[data-part="suelo"] .mode').inputValue()).toBe('hidden');
    await row.locator('.color').fill('#ff0000');
    expect(await row.locator('.mode').inputValue()).toBe('custom');
    await page.locator('#save').click();
    await page.waitForFunction(() => document.getElementById('message')!.textContent === 'Saved', undefined, { timeout: 60_000 });

    await page.reload();
    const again = page.locator('tr[data-part="sole"]');
    await again.waitFor();
    expect(await again.locator('.color').inputValue()).toBe('#ff0000');
    expect(await again.locator('.mode').inputValue()).toBe('custom');
    await waitForModel(page);
    const factor = await page.evaluate(() => {
      const v = document.getElementById('viewer') as unknown as { model: { materials: { name: string; pbrMetallicRoughness: { baseColorFactor: number[] } }[] } };
      return v.model.materials.find((m) => m.name === 'default:sole')?.pbrMetallicRoughness.baseColorFactor;
    });
    expect(factor).toEqual([1, 0, 0, 1]);
    await page.evaluate(() => document.getElementById('viewer')!.setAttribute('camera-orbit', '90deg 95deg auto'));
    await page.waitForTimeout(600);
    const px = await screenshotStats(page, '#viewer', 'editor-after-reload.png');
    await page.screenshot({ path: path.join(SHOTS, 'editor-page.png') });
    console.log(`editor after reload: ${(px.red * 100).toFixed(2)}% red pixels (the sole), ${(px.model * 100).toFixed(1)}% model (screenshot in ${SHOTS})`);
    expect(px.red).toBeGreaterThan(0.01);
    const stored = await svc.arCall('GET', `/api/get_materials/${objectId}`);
    expect(stored.body.materialsData.default.parts.sole).toEqual({ visible: true, material: { baseColor: '#ff0000', roughness: 0.5, metallic: 0 } });
    // the embedded parts stayed embedded, the optional ones hidden
    expect(stored.body.materialsData.default.parts.upper).toEqual({ visible: true, material: null });
    expect(stored.body.materialsData.default.parts.perforado_1).toEqual({ visible: false });
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
