import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { generateKeyPairSync } from 'node:crypto';
import { VertexImageModel } from '../../../adapters/vertex/image-model.ts';
import { useNock, withClosedPort } from '../vendor-helpers.ts';

/*
 * The start-up check of Vertex AI. Fixtures follow the Vertex AI REST reference v1 as of 2026-11
 * (cloud.google.com/vertex-ai/docs/reference/rest/v1/publishers.models/get): `GET https://{location}-
 * aiplatform.googleapis.com/v1/publishers/google/models/{model}` answers a PublisherModel `{name,
 * versionId, openSourceCategory, launchStage, publisherModelTemplate}`; errors are google.rpc.Status
 * `{error: {code, message, status}}` (404 NOT_FOUND, 403 PERMISSION_DENIED). The token comes from
 * Google's OAuth endpoint (`POST https://oauth2.googleapis.com/token`, as google-auth-library asks it
 * for a service-account key), answering `{access_token, expires_in, token_type}` or `{error: invalid_grant}`.
 */

const HOST = 'https://europe-west4-aiplatform.googleapis.com';
const MODEL_PATH = '/v1/publishers/google/models/virtual-try-on-001';
let serviceAccount: Record<string, unknown>;
const model = (over = {}) => new VertexImageModel({ project: 'fitroom-test', location: 'europe-west4', credentials: serviceAccount, ...over });
const signal = () => new AbortController().signal;
const token = (reply: [number, object] = [200, { access_token: 'ya29.check', expires_in: 3599, token_type: 'Bearer' }]) => nock('https://oauth2.googleapis.com').post('/token').reply(...reply);

useNock();
beforeAll(() => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  serviceAccount = { type: 'service_account', project_id: 'fitroom-test', private_key_id: 'k1', private_key: keys.privateKey, client_email: 'fitroom@fitroom-test.iam.gserviceaccount.com' };
});

describe('VertexImageModel.check', () => {
  it('a service account Google accepts and a model it serves: ok, read with the access token', async () => {
    token();
    const scope = nock(HOST, { reqheaders: { authorization: 'Bearer ya29.check' } })
      .get(MODEL_PATH)
      .reply(200, { name: 'publishers/google/models/virtual-try-on-001', versionId: '001', openSourceCategory: 'PROPRIETARY', launchStage: 'GA' });
    const check = await model().check(['virtual-try-on-001'], signal());
    expect(scope.isDone()).toBe(true);
    expect(check).toEqual({ provider: 'vertex', status: 'ok', models: [{ id: 'virtual-try-on-001', available: true, detail: 'launch stage GA' }] });
  });

  it('a key the token server refuses (invalid_grant) and a project without the API (403 PERMISSION_DENIED) are the account', async () => {
    token([400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }]);
    const grant = await model().check(['virtual-try-on-001'], signal());
    expect(grant).toMatchObject({ provider: 'vertex', status: 'account_refused', message: expect.stringMatching(/Google refused the service account/) });

    token();
    nock(HOST).get(MODEL_PATH).reply(403, { error: { code: 403, message: 'Vertex AI API has not been used in project fitroom-test before or it is disabled.', status: 'PERMISSION_DENIED' } });
    expect(await model().check(['virtual-try-on-001'], signal())).toMatchObject({ status: 'account_refused', message: expect.stringMatching(/PERMISSION_DENIED/) });
  });

  it('a model id the region does not serve (404 NOT_FOUND) is missing', async () => {
    token();
    nock(HOST)
      .get(MODEL_PATH).reply(200, { name: 'publishers/google/models/virtual-try-on-001', launchStage: 'GA' })
      .get('/v1/publishers/google/models/virtual-try-on-preview-08-04').reply(404, { error: { code: 404, message: 'Publisher Model `publishers/google/models/virtual-try-on-preview-08-04` not found.', status: 'NOT_FOUND' } });
    const check = await model().check(['virtual-try-on-001', 'virtual-try-on-preview-08-04'], signal());
    expect(check.status).toBe('model_missing');
    expect(check.models).toEqual([expect.objectContaining({ id: 'virtual-try-on-001', available: true }), expect.objectContaining({ id: 'virtual-try-on-preview-08-04', available: false })]);
  });

  it('Vertex unreachable (token obtained, the regional endpoint refuses connections) is reported as unreachable', async () => {
    token();
    const check = await withClosedPort((url) => model({ baseUrl: url }).check(['virtual-try-on-001'], signal()));
    expect(check).toMatchObject({ provider: 'vertex', status: 'unreachable', message: expect.stringMatching(/network error/) });
  });
});
