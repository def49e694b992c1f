import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import sharp from 'sharp';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

/**
 * The Chromium the browser tests drive: FITROOM_CHROMIUM, else the browser playwright-core downloaded
 * (`npx playwright-core install chromium`), else a system package on PATH (Debian's `chromium`).
 */
export function chromiumPath(): string {
  const candidates = [process.env.FITROOM_CHROMIUM, playwrightChromium(), ...['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'].flatMap((name) => (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name)))];
  const found = candidates.find((file) => file && existsSync(file));
  if (found) return found;
  throw new Error('The browser tests need Chromium and none was found: install it (Debian/Ubuntu: `apt-get install chromium`), or run `npx playwright-core install chromium`, or set FITROOM_CHROMIUM to a Chrome or Chromium binary.');
}

function playwrightChromium(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}
export const SHOTS = process.env.FITROOM_SCREENSHOTS ?? path.join(tmpdir(), 'fitroom-ar-screenshots');

export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath(),
    // WebGL runs on SwiftShader (software) with the GPU disabled
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-unsafe-swiftshader'],
  });
}

/**
 * Opens a page with every request that leaves the AR host blocked and recorded (the pages must
 * work offline) and Content-Security-Policy violations and page errors collected.
 */
export async function openPage(browser: Browser, arOrigin: string, url: string, viewport = { width: 720, height: 480 }) {
  const context = await browser.newContext({ viewport });
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(arOrigin) || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    outside.push(u);
    return route.abort();
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (process.env.FITROOM_DEBUG_PAGES) console.log(`[page ${m.type()}] ${m.text()}`);
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url);
  return { page, context, outside, problems };
}

export async function waitForModel(page: Page, count = 1, timeout = 90_000): Promise<void> {
  await page.waitForFunction((n) => Number(document.body.dataset.loaded ?? 0) >= n, count, { timeout });
  await page.waitForFunction(() => (document.getElementById('viewer') as unknown as { modelIsVisible: boolean }).modelIsVisible, undefined, { timeout: 60_000 });
  await page.waitForTimeout(300);
}

/**
 * Screenshot of an element, saved under SHOTS, with the share of pixels that differ from the
 * page background and the share of saturated red pixels (hue within 8 degrees of red).
 */
export async function screenshotStats(page: Page, selector: string, file: string) {
  const png = await page.locator(selector).screenshot();
  writeFileSync(path.join(SHOTS, file), png);
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let model = 0;
  let red = 0;
  for (let i = 0; i < data.length; i += 3) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    if (Math.abs(r - 0xf4) + Math.abs(g - 0xf3) + Math.abs(b - 0xf1) > 30) model++;
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    if (max === r && max > 100 && (max - min) / max > 0.5) {
      const hue = (60 * (g - b)) / (max - min);
      if (Math.abs(hue) < 8) red++;
    }
  }
  const total = info.width * info.height;
  return { model: model / total, red: red / total };
}
