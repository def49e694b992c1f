/**
 * The example product page (examples/storefront) in headless Chromium against a running service,
 * end to end as a shopper uses it: "Try it on" solves the proof-of-work challenge, gets a storefront
 * token from the shop's backend, submits the fitting, shows the stages and the result; "Find my size"
 * shows a recommendation. No request from the page carries an API key. Screenshots are written to
 * FITROOM_SCREENSHOTS (or a temp folder) for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../../support/harness.ts';
import { syntheticPerson, pngDataUrl } from '../../support/images.ts';
import { freePort } from '../../../adapters/postgres/embedded.ts';
import { CHROMIUM, SHOTS, launchChromium } from '../ar-host/browser.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let svc: TestService;
let shop: ChildProcess;
let shopUrl: string;
let browser: Browser;

beforeAll(async () => {
  svc = await startTestService();
  const { key } = await svc.createKey({ accountId: 'example-shop' });
  const port = await freePort();
  shopUrl = `http://127.0.0.1:${port}`;
  shop = spawn(process.execPath, ['examples/storefront/server.mjs'], { cwd: ROOT, env: { PATH: process.env.PATH, FITROOM_URL: svc.api, FITROOM_KEY: key, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    shop.stdout!.on('data', (c: Buffer) => /Example shop on/.test(c.toString()) && resolve());
    shop.once('exit', (code) => reject(new Error(`example shop exited ${code}`)));
  });
  if (existsSync(CHROMIUM)) browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  shop?.kill();
  await svc?.close();
});

describe('the storefront widget on the example product page', () => {
  it.runIf(existsSync(CHROMIUM))('tries a garment on and recommends a size, with no key in the page', async () => {
    const photo = path.join(SHOTS, 'shopper.png');
    const person = await pngDataUrl(syntheticPerson({ seed: 3 }).image);
    writeFileSync(photo, Buffer.from(person.split(',')[1], 'base64'));

    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const leaks: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => {
      const k = r.headers()['x-api-key'];
      if (k && !k.startsWith('wfs1.')) leaks.push(`${r.url()} carried ${k.slice(0, 8)}`);
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(shopUrl);
    expect(await page.content()).not.toMatch(/fr_(live|svc|dev)_/);

    await page.getByRole('button', { name: 'Try it on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Try it on' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByLabel('Your photo').setInputFiles(photo);
    await dialog.getByRole('button', { name: 'Try it on' }).click();
    // the stages show while the job runs, then the result image
    await expect.poll(async () => (await dialog.getByRole('status').textContent()) ?? '', { timeout: 20_000 }).toMatch(/Checking|Sending|Dressing|Preparing|Waiting|Working|Almost|Here you are/);
    const result = dialog.locator('.fr-result img');
    await result.waitFor({ state: 'visible', timeout: 90_000 });
    expect(await result.getAttribute('src')).toMatch(/\/api\/v1\/files\/[0-9a-f-]{36}\?expires=\d+&token=/);
    expect(await result.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'storefront-tryon.png') });
    // the pass cookie is kept by the browser for the API host
    expect((await context.cookies(svc.api)).some((c) => c.name === 'fitroom_pass' && c.httpOnly)).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Find my size' }).click();
    const size = page.getByRole('dialog', { name: 'Find my size' });
    await size.getByLabel('Height (cm)').fill('176');
    await size.getByLabel('Chest (cm)').fill('96');
    await size.getByLabel('Waist (cm)').fill('82');
    await size.getByLabel('Fit', { exact: true }).selectOption('male');
    await size.getByRole('button', { name: 'Find my size' }).click();
    await expect.poll(async () => (await size.locator('.fr-size-result').textContent()) ?? '', { timeout: 90_000 }).toMatch(/Your size: (S|M|L|XL)/);
    await page.screenshot({ path: path.join(SHOTS, 'storefront-size.png') });

    expect(leaks).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);
});
