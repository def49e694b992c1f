/**
 * Where the browser tests find Chromium, and what they say when there is none: a failure that tells
 * how to install it, never a silent skip. Run in a child process with an empty PATH and an empty
 * Playwright browser folder, as on a machine without any Chromium.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const empty = mkdtempSync(path.join(tmpdir(), 'fitroom-no-chromium-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

const find = (env: Record<string, string>) =>
  promisify(execFile)(process.execPath, ['--input-type=module', '-e', `import { chromiumPath } from ${JSON.stringify(path.join(HERE, 'browser.ts'))}; try { console.log(chromiumPath()); } catch (e) { console.log('ERROR ' + e.message); }`], { env: { PATH: empty, PLAYWRIGHT_BROWSERS_PATH: empty, ...env } }).then((r) => r.stdout.trim());

describe('Chromium for the browser tests', () => {
  it('fails with how to install one when none is found', async () => {
    expect(await find({})).toMatch(/^ERROR The browser tests need Chromium and none was found: install it \(Debian\/Ubuntu: `apt-get install chromium`\), or run `npx playwright-core install chromium`, or set FITROOM_CHROMIUM/);
  });

  it('takes FITROOM_CHROMIUM, else a chromium on PATH', async () => {
    const bin = path.join(empty, 'chromium');
    writeFileSync(bin, '#!/bin/sh\n');
    chmodSync(bin, 0o755);
    expect(await find({})).toBe(bin);
    const own = path.join(empty, 'my-chrome');
    writeFileSync(own, '');
    expect(await find({ FITROOM_CHROMIUM: own })).toBe(own);
  });
});
