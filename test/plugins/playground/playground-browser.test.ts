/**
 * The playground in headless Chromium against a running service, as a newcomer uses it: paste a key,
 * make a twin from the sample face, size it, dress it, turn the sample shoe photos into a model.
 * Each step's stages, result, trace and curl command are checked, and screenshots are saved to
 * FITROOM_SCREENSHOTS (or a temp folder) for a person to look at.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/harness.ts';
import { SHOTS, launchChromium, openPage } from '../ar-host/browser.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const asset = (name: string) => path.join(ROOT, 'examples/assets', name);

let svc: TestService;
let key: string;
let browser: Browser;
let page: Page;
let outside: string[];
let problems: string[];

beforeAll(async () => {
  // fixed ports as under `npm start`, so that links to the AR host are absolute
  svc = await startTestService({ fixedPorts: true });
  key = (await svc.createKey()).key;
  browser = await launchChromium();
  ({ page, outside, problems } = await openPage(browser, svc.api, `${svc.api}/playground`, { width: 1280, height: 900 }));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

const message = () => page.locator('#message').textContent();
const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, name), fullPage: true });

/** Records every change of the progress bar from now on: null while indeterminate (no value), else its value. */
async function watchProgress() {
  await page.evaluate(() => {
    const bar = document.getElementById('progress')!;
    const seen: (number | null)[] = [];
    (window as any).progressSeen = seen;
    new MutationObserver(() => seen.push(bar.hasAttribute('value') ? Number((bar as HTMLProgressElement).value) : null)).observe(bar, { attributes: true, attributeFilter: ['value'] });
  });
}

async function submitAndWait(timeout = 90_000, whileRunning?: () => Promise<void>) {
  await page.click('#submit');
  await whileRunning?.();
  await page.waitForFunction(() => /^(Done\.|The job failed|\d{3} )/.test(document.getElementById('message')!.textContent ?? ''), undefined, { timeout });
}

describe('the playground page', () => {
  it('is served with a strict CSP and asks for a key first', async () => {
    const res = await fetch(`${svc.api}/playground`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
    await page.click('#submit');
    expect(await message()).toBe('Paste an API key first.');
  });

  it('keeps the key in the tab\'s session storage only', async () => {
    await page.fill('#key', key);
    expect(await page.evaluate(() => sessionStorage.getItem('fitroom.playground.key'))).toBe(key);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await page.reload();
    expect(await page.inputValue('#key')).toBe(key);
    await page.click('#submit');
    expect(await message()).toBe('Drop an image for "Face photo" first.');
  });

  it('makes a digital twin from the sample face and fills its id in for the next steps', async () => {
    await page.setInputFiles('input[name="faceImage"]', asset('face.png'));
    await expect.poll(() => page.locator('.drop.filled img').count()).toBe(1);
    await submitAndWait();
    expect(await message()).toBe('Done.');
    const twin = await page.locator('#result code').textContent();
    expect(twin).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.locator('#stages li.done').count()).toBe(5);
    await expect.poll(() => page.locator('#trace li:not(.empty)').count()).toBe(4);
    await page.selectOption('#operation', 'size-fitting');
    expect(await page.inputValue('fieldset[data-op="size-fitting"] .twin-id')).toBe(twin);
    await shot('playground-twin.png');
  });

  it('answers size fitting at once with the size, its confidence and why', async () => {
    await submitAndWait();
    const row = page.locator('#result table tr').nth(1);
    expect(await row.locator('td.size').textContent()).toBe('M');
    expect(await row.textContent()).toMatch(/chest fits/);
    expect(await page.textContent('#result')).not.toContain('null');
    expect(await page.textContent('#run-title')).toBe('Size fitting: answered at once, no job');
    expect(await page.textContent('#trace')).toBe('Size fitting runs no job, so it has no trace.');
    expect(await page.textContent('#curl')).toContain('/api/v1/size-fitting -H "X-API-Key: $KEY"');
    await shot('playground-size.png');
  });

  it('dresses the twin: the bar is indeterminate until the end, then the image, the trace and curl', async () => {
    await page.selectOption('#operation', 'virtual-fitting');
    await page.setInputFiles('input[name="topGarment"]', asset('top.png'));
    await page.setInputFiles('input[name="bottomGarment"]', asset('trousers.png'));
    await watchProgress();
    await submitAndWait(90_000, async () => {
      // while it runs: the stages strip and an indeterminate bar
      await page.waitForSelector('#stages li.current');
      await shot('playground-running.png');
    });
    expect(await message()).toBe('Done.');
    const seen: (number | null)[] = await page.evaluate(() => (window as any).progressSeen);
    // stage-progress jobs have no percentage before they complete
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.slice(0, -1).every((v) => v === null)).toBe(true);
    expect(seen.at(-1)).toBe(100);
    await page.waitForFunction(() => ((document.querySelector('.result-image') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
    const stages = await page.locator('#trace li .name').allTextContents();
    expect(stages).toEqual(['validate inputs', 'resolve identity', 'build garment grid', 'generate', 'store']);
    const curl = await page.textContent('#curl');
    expect(curl).toMatch(/curl -s http:\/\/127\.0\.0\.1:\d+\/api\/v1\/virtual-fitting -H "X-API-Key: \$KEY" -H 'content-type: application\/json' -d @body\.json/);
    expect(curl).toMatch(/\/api\/v1\/jobs\/[0-9a-f-]{36}\/trace/);
    expect(curl).not.toContain(key);
    // the body file holds the request exactly as sent
    const body = JSON.parse(await page.evaluate(async () => (await fetch((document.getElementById('body-download') as HTMLAnchorElement).href)).text()));
    expect(Object.keys(body).sort()).toEqual(['bottomGarment', 'digitalTwinId', 'topGarment']);
    expect(body.topGarment).toMatch(/^data:image\/png;base64,/);
    await shot('playground-fitting.png');
  });

  it('turns four shoe photos into a model: a percentage, the 3D viewer and its AR object', async () => {
    await page.selectOption('#operation', 'shoe-3d');
    await page.setInputFiles('input[name="images"]', ['shoe-0.png', 'shoe-45.png', 'shoe-90.png', 'shoe-135.png'].map(asset));
    await expect.poll(() => page.locator('fieldset[data-op="shoe-3d"] .thumbs img').count()).toBe(4);
    await watchProgress();
    await submitAndWait(120_000);
    expect(await message()).toBe('Done.');
    const seen: (number | null)[] = await page.evaluate(() => (window as any).progressSeen);
    expect(seen.at(-1)).toBe(100);
    await page.waitForFunction(() => (document.getElementById('model') as any)?.modelIsVisible === true, undefined, { timeout: 90_000 });
    expect(await page.getAttribute('#result a[href*="/tryon?id="]', 'href')).toMatch(new RegExp(`^${svc.ar}/tryon\\?id=[0-9a-f]{24}&color_id=default$`));
    expect(await page.textContent('#result')).toMatch(/AR object [0-9a-f]{24}/);
    await expect.poll(() => page.locator('#trace li:not(.empty)').count()).toBeGreaterThan(5);
    await page.waitForTimeout(500);
    await shot('playground-shoe3d.png');
  });

  it('loaded nothing from elsewhere and broke no CSP rule', () => {
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  });
});
