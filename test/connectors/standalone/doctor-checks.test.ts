import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.ts';
import { checkBlobs, checkVendors } from '../../../connectors/standalone/doctor.ts';
import { startS3Server, type TestS3 } from '../../support/s3.ts';

/** `fitroom doctor`'s live checks: the S3 bucket's probe and the AI vendors asked about keys and models. */

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
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
});
