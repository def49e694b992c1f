/**
 * The OpenAPI document passes Redocly's recommended rules with no error and no warning (the same
 * check as `npx redocly lint --extends=recommended` on the served document).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

let svc: TestService;
let dir: string;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  dir = mkdtempSync(path.join(tmpdir(), 'fitroom-openapi-'));
}, 60_000);
afterAll(async () => {
  await svc?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('OpenAPI lint', () => {
  it('has no error and no warning under the recommended rules', async () => {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, (await svc.call('GET', '/api/v1/openapi.json')).text);
    const out = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', '--extends=recommended', '--format=json', file], { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 << 20 }).catch((e: { stdout: string }) => e);
    const problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] = JSON.parse(out.stdout).problems;
    expect(problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  }, 120_000);

  it('describes the builtin engines truthfully on /docs: they ship learned models', async () => {
    const doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
    expect(doc.info.description).not.toMatch(/no AI weights/);
    expect(doc.info.description).toMatch(/learned models/);
  });

  it('answers /favicon.ico with the icon, and /docs links it', async () => {
    const res = await fetch(`${svc.api}/favicon.ico`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/png']);
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([32, 32]);
    expect((await svc.call('GET', '/docs')).text).toContain('<link rel="icon" href="/favicon.svg"');
    expect((await fetch(`${svc.api}/favicon.svg`)).headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });
});
