import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.ts';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { checkBlobs, checkDatabase, checkPort, checkVendors, formatChecks } from '../../../connectors/standalone/doctor.ts';
import { unenterableFolder } from '../../../adapters/postgres/embedded.ts';
import { startTestService } from '../../support/harness.ts';
import { startS3Server, type TestS3 } from '../../support/s3.ts';

/** `fitroom doctor`'s live checks: the S3 bucket's probe and the AI vendors asked about keys and models. */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const isRoot = process.getuid?.() === 0;
let s3: TestS3;
let home: string;
beforeAll(async () => {
  s3 = await startS3Server();
  // a clone in a home folder only its owner may enter (/root is 0700)
  home = mkdtempSync(path.join(tmpdir(), 'fitroom-home-'));
  mkdirSync(path.join(home, 'fitroom'));
  chmodSync(home, 0o700);
});
afterAll(async () => {
  await s3?.close();
  rmSync(home, { recursive: true, force: true });
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('doctor', () => {
  it('probes the S3 bucket and says what to fix when it cannot', async () => {
    expect(await checkBlobs(loadConfig(s3.env))).toMatchObject({ level: 'ok', detail: expect.stringContaining(`S3 bucket ${s3.bucket}`) });
    const wrong = await checkBlobs(loadConfig({ ...s3.env, S3_BUCKET: 'missing-bucket' }));
    expect(wrong).toMatchObject({ level: 'fail', detail: expect.stringMatching(/NoSuchBucket/), fix: expect.stringMatching(/S3_BUCKET/) });
  });

  it('asks the configured vendors: a retired model in the chain fails the check with the fix', async () => {
    nock.disableNetConnect();
    nock('https://generativelanguage.googleapis.com')
      .get('/v1beta/models/gemini-3.1-flash-image').reply(200, { name: 'models/gemini-3.1-flash-image' })
      .get('/v1beta/models/gemini-3-pro-image').reply(404, { error: { code: 404, message: 'models/gemini-3-pro-image is not found', status: 'NOT_FOUND' } });
    const c = await checkVendors(loadConfig({ GEMINI_API_KEY: 'doctor-key', FITROOM_MODEL_CHAIN: 'gemini-3.1-flash-image,gemini-3-pro-image,builtin-warp' }));
    expect(c.level).toBe('fail');
    expect(c.detail).toContain('gemini: model missing (gemini-3.1-flash-image present, gemini-3-pro-image missing)');
    expect(c.fix).toMatch(/FITROOM_MODEL_CHAIN|FITROOM_MODELS/);
    expect(c.detail).not.toContain('doctor-key');
    const none = await checkVendors(loadConfig({}));
    expect(none).toMatchObject({ level: 'ok', detail: expect.stringMatching(/none configured/) });
  });

  it('finds the folder another user cannot enter on the way to the data', () => {
    const nobody = { uid: 65534, groups: [65534] };
    expect(unenterableFolder(path.join(home, 'fitroom/.fitroom/postgres'), nobody)).toBe(home);
    chmodSync(home, 0o711);
    try {
      expect(unenterableFolder(path.join(home, 'fitroom/.fitroom/postgres'), nobody)).toBeNull();
    } finally {
      chmodSync(home, 0o700);
    }
  });

  // As root the embedded cluster runs as `postgres`, which cannot enter a 0700 home; as another
  // user it runs as that user, who owns the folder.
  it('fails the database check for a data folder the cluster user cannot reach, with the fix', async () => {
    const c = await checkDatabase(loadConfig({ DATA_DIR: path.join(home, 'fitroom/.fitroom') }));
    if (isRoot) expect(c).toMatchObject({ level: 'fail', detail: expect.stringContaining(`cannot enter ${home} (mode 0700)`), fix: expect.stringContaining(`chmod o+x ${home}`) });
    else expect(c.level).toBe('ok');
  });

  it('npm start in that folder exits with the cause and the fix instead of an initdb error', async () => {
    const out = await promisify(execFile)(process.execPath, ['connectors/standalone/main.ts', 'all'], { cwd: ROOT, env: { PATH: process.env.PATH!, DATA_DIR: path.join(home, 'fitroom/.fitroom'), PORT: '0', AR_PORT: '0', LOG_FORMAT: 'json' }, timeout: 60_000 }).catch((e: { code: number; stderr: string }) => e);
    if (isRoot) {
      expect((out as { code: number }).code).toBe(1);
      expect(out.stderr).toContain(`[fitroom] failed to start: the embedded PostgreSQL runs as the "postgres" user`);
      expect(out.stderr).toMatch(/\[fitroom\] to fix it: set DATA_DIR to a folder outside .*chmod o\+x/);
      expect(out.stderr).not.toMatch(/initdb/);
    } else expect(out.stderr).not.toContain('failed to start');
  }, 90_000);

  it('recognises a running Fitroom on its ports and does not end with "Ready: npm start"', async () => {
    nock.enableNetConnect(); // the vendor check above closed the network to nock
    const svc = await startTestService({ worker: false });
    try {
      const port = Number(new URL(svc.api).port);
      const c = await checkPort('API host', 'PORT', '127.0.0.1', port);
      expect(c).toMatchObject({ level: 'ok', running: true, detail: expect.stringMatching(/in use by a running Fitroom \d+\.\d+\.\d+/) });
      const text = formatChecks([c]);
      expect(text).not.toContain('Ready: npm start');
      expect(text).toContain('Fitroom is running already');
      expect(formatChecks([{ name: 'Node', level: 'ok', detail: '24' }])).toMatch(/Ready: npm start$/);
    } finally {
      await svc.close();
    }
  });
});
