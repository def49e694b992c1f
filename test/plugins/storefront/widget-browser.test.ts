/**
 * The example product page (examples/storefront) in headless Chromium against a running service,
 * end to end as a shopper uses it: "Try it on" solves the proof-of-work challenge, gets a storefront
 * token from the shop's backend, submits the fitting, shows the stages and the result; "Find my size"
 * shows a recommendation. No request from the page carries an API key. Screenshots are written to
 * FITROOM_SCREENSHOTS (or a temp folder) for a person to look at.
 */
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../../support/harness.ts';
import { startExample, type RunningExample } from '../../support/examples.ts';
import { syntheticPerson, pngDataUrl } from '../../support/images.ts';
import { makeShoeGlb } from '../../support/shoes.ts';
import { SHOTS, launchChromium } from '../ar-host/browser.ts';

let svc: TestService;
let shop: RunningExample;
let shopUrl: string;
let browser: Browser;

/**
 * The example shop's backend (examples/storefront/server.mjs) in its own process, holding a key of
 * `svc`, run as its README says on the Node a newcomer's shell finds.
 */
async function startExampleShop(fitroom: TestService, accountId: string): Promise<{ url: string; proc: RunningExample }> {
  const { key } = await fitroom.createKey({ accountId });
  const proc = await startExample(['examples/storefront/server.mjs'], { FITROOM_URL: fitroom.api, FITROOM_KEY: key, PORT: '0' }, /Example shop on/);
  return { url: `http://127.0.0.1:${proc.port}`, proc };
}

/** A shopper's full-body photo on disk, for the file input. */
async function shopperPhoto(): Promise<string> {
  const file = path.join(SHOTS, 'shopper.png');
  const person = await pngDataUrl(syntheticPerson({ seed: 3 }).image);
  writeFileSync(file, Buffer.from(person.split(',')[1], 'base64'));
  return file;
}

/** Requests from the page that carry anything but a storefront token in X-API-Key, and page errors. */
function watch(page: Page): { leaks: string[]; errors: string[] } {
  const out = { leaks: [] as string[], errors: [] as string[] };
  page.on('request', (r) => {
    const k = r.headers()['x-api-key'];
    if (k && !k.startsWith('wfs1.')) out.leaks.push(`${r.url()} carried ${k.slice(0, 8)}`);
  });
  page.on('pageerror', (e) => out.errors.push(e.message));
  return out;
}

beforeAll(async () => {
  // as under `npm start`: no private network is reachable, so the example's garment must not need one
  svc = await startTestService({ env: { ALLOWED_PRIVATE_NETWORKS: '' } });
  ({ url: shopUrl, proc: shop } = await startExampleShop(svc, 'example-shop'));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await svc?.close();
});

describe('the storefront widget on the example product page', () => {
  it('tries a garment on and recommends a size, with no key in the page', async () => {
    const photo = await shopperPhoto();
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const { leaks, errors } = watch(page);
    await page.goto(shopUrl);
    expect(await page.content()).not.toMatch(/fr_(live|svc|dev)_/);

    await page.getByRole('button', { name: 'Try it on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Try it on' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByLabel('Your photo').setInputFiles(photo);
    await dialog.getByRole('button', { name: 'Try it on' }).click();
    // the stages show while the job runs, then the result image
    await expect.poll(async () => (await dialog.getByRole('status').textContent()) ?? '', { timeout: 90_000 }).toMatch(/Checking|Sending|Dressing|Preparing|Waiting|Working|Almost|Here you are/);
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

  it('shows a product GLB in the 3D dialog with model-viewer from the API host; the dialog keeps focus and Escape closes it', async () => {
    // the shop adds a 3D element after the page loaded (as a product gallery would) and asks the widget
    // to mount it; its GLB is answered by the browser context
    const glb = Buffer.from(await makeShoeGlb());
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    await context.route(`${shopUrl}/shoe.glb`, (route) => route.fulfill({ contentType: 'model/gltf-binary', body: glb }));
    const page = await context.newPage();
    const { errors } = watch(page);
    await page.goto(shopUrl);
    await page.evaluate(() => {
      document.querySelector('.panel')!.insertAdjacentHTML('beforeend', '<div data-fitroom-3d data-glb-url="/shoe.glb" data-alt="The runner in 3D"></div>');
      (window as unknown as { Fitroom: { init(): void } }).Fitroom.init();
    });
    const open = page.getByRole('button', { name: 'View in 3D' });
    await open.click();
    const dialog = page.getByRole('dialog', { name: 'See it in 3D' });
    const viewer = dialog.locator('model-viewer');
    await viewer.waitFor({ state: 'attached', timeout: 90_000 });
    await expect.poll(() => viewer.evaluate((mv) => (mv as HTMLElement & { loaded?: boolean }).loaded === true), { timeout: 60_000 }).toBe(true);
    expect(await viewer.getAttribute('alt')).toBe('The runner in 3D');
    expect(await viewer.getAttribute('ar')).not.toBeNull();
    await page.screenshot({ path: path.join(SHOTS, 'storefront-3d.png') });

    // Tab never leaves the modal dialog; Escape closes it and gives focus back to the button that opened it
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => !!document.activeElement?.closest('dialog'))).toBe(true);
    }
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await open.evaluate((b) => b === document.activeElement)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);

  it('with BOT_VERIFIER=turnstile renders the vendor widget in the dialog and sends its token, checked by siteverify once; works with third-party cookies blocked', async () => {
    // Cloudflare is played by nock on the service side (siteverify, each token valid once) and by a
    // stand-in for api.js in the browser that renders a check box through the same render(el, params) API.
    const issued = new Set<string>();
    const checked: URLSearchParams[] = [];
    nock('https://challenges.cloudflare.com')
      .persist()
      .post('/turnstile/v0/siteverify')
      .reply(200, async (req: Request) => {
        const form = new URLSearchParams(await req.text());
        checked.push(form);
        const fresh = form.get('secret') === 'ts-test-secret' && issued.delete(form.get('response') ?? '');
        return fresh ? { success: true, challenge_ts: new Date().toISOString(), hostname: '127.0.0.1', 'error-codes': [] } : { success: false, 'error-codes': ['timeout-or-duplicate'] };
      });
    const vendorSvc = await startTestService({ env: { ALLOWED_PRIVATE_NETWORKS: '', BOT_VERIFIER: 'turnstile', TURNSTILE_SECRET_KEY: 'ts-test-secret', TURNSTILE_SITE_KEY: 'ts-test-site' } });
    const vendorShop = await startExampleShop(vendorSvc, 'turnstile-shop');
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    try {
      let scriptUrl = '';
      await context.route('https://challenges.cloudflare.com/**', (route) => {
        scriptUrl = route.request().url();
        return route.fulfill({
          contentType: 'text/javascript',
          body: `window.turnstile = { render(el, o) {
            const b = document.createElement('button'); b.type = 'button'; b.textContent = 'Verify you are human (' + o.sitekey + ')';
            b.onclick = async () => { const t = 'cf-token-' + Math.random().toString(36).slice(2); await window.issueToken(t); o.callback(t); };
            el.append(b); return 'w1'; } };`,
        });
      });
      // the tokens the stand-in hands out are the ones siteverify (nock) knows as issued
      await context.exposeFunction('issueToken', (t: string) => void issued.add(t));
      // this browser blocks third-party cookies (as Safari does): the Fitroom host's cookies are dropped
      let cookiesDropped = 0;
      await context.route(`${vendorSvc.api}/**`, async (route) => {
        // forwarded from here (route.fetch would keep the cookies in the browser's jar)
        const req = route.request();
        const { cookie: _c, host: _h, 'content-length': _l, connection: _k, ...headers } = await req.allHeaders();
        const res = await fetch(req.url(), { method: req.method(), headers, body: req.postData() ?? undefined });
        if (res.headers.getSetCookie().length) cookiesDropped++;
        const answer: Record<string, string> = {};
        res.headers.forEach((value, name) => void (['set-cookie', 'content-encoding', 'content-length'].includes(name) || (answer[name] = value)));
        await route.fulfill({ status: res.status, headers: answer, body: Buffer.from(await res.arrayBuffer()) });
      });
      const page = await context.newPage();
      const { leaks, errors } = watch(page);
      await page.goto(vendorShop.url);
      await page.getByRole('button', { name: 'Try it on' }).click();
      const dialog = page.getByRole('dialog', { name: 'Try it on' });
      await dialog.getByLabel('Your photo').setInputFiles(await shopperPhoto());
      await dialog.getByRole('button', { name: 'Try it on' }).click();
      const human = dialog.getByRole('button', { name: 'Verify you are human (ts-test-site)' });
      await human.waitFor({ state: 'visible', timeout: 90_000 });
      expect(scriptUrl).toBe('https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit');
      await page.screenshot({ path: path.join(SHOTS, 'storefront-turnstile.png') });
      await human.click();
      const result = dialog.locator('.fr-result img');
      await result.waitFor({ state: 'visible', timeout: 90_000 });
      await expect.poll(() => human.count()).toBe(0); // the vendor widget is gone once its token is used
      expect(checked).toHaveLength(1); // the polls rode on the pass (in a header, cookies being blocked), not on new checks
      expect(cookiesDropped).toBe(1); // the pass cookie was set once, by the submission, and never kept
      expect(checked[0].get('remoteip')).toBe('127.0.0.1');
      expect(checked[0].get('response')).toMatch(/^cf-token-/);
      expect(await context.cookies(vendorSvc.api)).toEqual([]);
      await page.screenshot({ path: path.join(SHOTS, 'storefront-turnstile-result.png') });
      expect(leaks).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await vendorShop.proc.stop();
      await vendorSvc.close();
      nock.cleanAll();
    }
  }, 240_000);
});
