import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { VertexImageModel } from '../../../adapters/vertex/image-model.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import { dedicatedCall, late, tryonImages, useNock } from '../vendor-helpers.ts';

/*
 * Fixtures follow Google's Vertex AI Virtual Try-On reference as of 2026-11
 * (cloud.google.com/vertex-ai/generative-ai/docs/model-reference/virtual-try-on-api and the REST types
 * VirtualTryOnModelParams / VirtualTryOnModelResult): `POST https://{location}-aiplatform.googleapis.com/v1/
 * projects/{project}/locations/{location}/publishers/google/models/virtual-try-on-001:predict` with
 * `instances: [{personImage: {image: {bytesBase64Encoded}}, productImages: [{image: {bytesBase64Encoded}}]}]`
 * and `parameters` (sampleCount, baseSteps, safetySetting, personGeneration, outputOptions), answering
 * `{predictions: [{mimeType, bytesBase64Encoded} | {raiFilteredReason}]}`; errors as google.rpc.Status
 * `{error: {code, message, status}}`. The access token comes from Google's OAuth token endpoint
 * (`POST https://oauth2.googleapis.com/token`, grant urn:ietf:params:oauth:grant-type:jwt-bearer, answering
 * `{access_token, expires_in, token_type}`), as google-auth-library requests it for a service-account key.
 */

const HOST = 'https://europe-west4-aiplatform.googleapis.com';
const PATH = '/v1/projects/fitroom-test/locations/europe-west4/publishers/google/models/virtual-try-on-001:predict';
const TOKEN = 'https://oauth2.googleapis.com';

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;
let publicKey: string;
let serviceAccount: Record<string, unknown>;

/** The token endpoint: checks that the assertion is a JWT signed with the test key, for the cloud-platform scope. */
function tokenEndpoint(counter: { n: number } = { n: 0 }, reply: [number, object] = [200, { access_token: 'ya29.test-token', expires_in: 3599, token_type: 'Bearer' }]) {
  nock(TOKEN)
    .post('/token', (body) => {
      if (body.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return false;
      const [h, p, sig] = String(body.assertion).split('.');
      const verify = createVerify('RSA-SHA256');
      verify.update(`${h}.${p}`);
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      return verify.verify(publicKey, Buffer.from(sig, 'base64url')) && claims.iss === serviceAccount.client_email && claims.scope === 'https://www.googleapis.com/auth/cloud-platform';
    })
    .times(reply[0] === 200 ? 5 : 1)
    .reply(() => (counter.n++, reply));
  return counter;
}

const model = () => new VertexImageModel({ project: 'fitroom-test', location: 'europe-west4', credentials: serviceAccount, maxRetryWaitMs: 100 });
const png64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

useNock();
beforeAll(async () => {
  ({ person, garment, output } = await tryonImages());
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  publicKey = keys.publicKey;
  serviceAccount = {
    type: 'service_account',
    project_id: 'fitroom-test',
    private_key_id: 'k1',
    private_key: keys.privateKey,
    client_email: 'fitroom@fitroom-test.iam.gserviceaccount.com',
    client_id: '1',
    token_uri: `${TOKEN}/token`,
  };
});

describe('VertexImageModel', () => {
  it('refuses to start without a project or with a key that is not a service account', () => {
    expect(() => new VertexImageModel({ project: ' ' })).toThrow(/VERTEX_PROJECT/);
    expect(() => new VertexImageModel({ project: 'p', credentials: { type: 'authorized_user' } })).toThrow(/service-account key/);
    expect(() => new VertexImageModel({ project: 'p', location: 'eu/../x' })).toThrow(/region/);
  });

  it('gets a token with the service account (once for two calls) and predicts with the person and product images inline', async () => {
    const tokens = tokenEndpoint();
    const bodies: any[] = [];
    const scope = nock(HOST, { reqheaders: { authorization: 'Bearer ya29.test-token' } })
      .post(PATH, (b) => (bodies.push(b), true))
      .times(2)
      .reply(200, { predictions: [{ mimeType: 'image/png', bytesBase64Encoded: png64(output) }] });
    const vertex = model();
    const images = await vertex.run(dedicatedCall({ person, garment }, 'virtual-try-on-001', { quality: 'high' }));
    await vertex.run(dedicatedCall({ person, garment }, 'virtual-try-on-001', { quality: 'draft' }));
    expect(scope.isDone()).toBe(true);
    expect(tokens.n).toBe(1);
    expect(bodies[0].instances).toEqual([{ personImage: { image: { bytesBase64Encoded: png64(person) } }, productImages: [{ image: { bytesBase64Encoded: png64(garment) } }] }]);
    expect(bodies[0].parameters).toEqual({ sampleCount: 1, baseSteps: 48, safetySetting: 'block_medium_and_above', personGeneration: 'allow_adult', outputOptions: { mimeType: 'image/png' } });
    expect(bodies[1].parameters.baseSteps).toBe(16);
    expect(JSON.stringify(bodies[0])).not.toContain('prompt');
    expect(images[0].contentType).toBe('image/png');
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
  });

  it('a service account the token server refuses (invalid_grant) and a 403 PERMISSION_DENIED are the account', async () => {
    tokenEndpoint({ n: 0 }, [400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }]);
    const grant = await model().run(dedicatedCall({ person, garment }, 'virtual-try-on-001')).catch((e) => e);
    expect(grant).toBeInstanceOf(ProviderError);
    expect(grant).toMatchObject({ code: 'PROVIDER_ACCOUNT', retryable: false });
    expect(grant.message).toMatch(/Google refused the service account/);

    tokenEndpoint();
    nock(HOST).post(PATH).reply(403, { error: { code: 403, message: "Permission 'aiplatform.endpoints.predict' denied on resource", status: 'PERMISSION_DENIED' } });
    expect(await model().run(dedicatedCall({ person, garment }, 'virtual-try-on-001')).catch((e) => e)).toMatchObject({ code: 'PROVIDER_ACCOUNT', retryable: false, status: 403 });
  });

  it('a quota error (429 RESOURCE_EXHAUSTED) is waited out once when Retry-After is short, else retryable', async () => {
    tokenEndpoint();
    const scope = nock(HOST)
      .post(PATH)
      .reply(429, { error: { code: 429, message: 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model', status: 'RESOURCE_EXHAUSTED' } }, { 'retry-after': '0' })
      .post(PATH)
      .reply(200, { predictions: [{ mimeType: 'image/png', bytesBase64Encoded: png64(output) }] });
    expect(await model().run(dedicatedCall({ person, garment }, 'virtual-try-on-001'))).toHaveLength(1);
    expect(scope.isDone()).toBe(true);

    tokenEndpoint();
    nock(HOST).post(PATH).reply(429, { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } }, { 'retry-after': '30' });
    expect(await model().run(dedicatedCall({ person, garment }, 'virtual-try-on-001')).catch((e) => e)).toMatchObject({ retryable: true, status: 429, retryAfterMs: 30_000 });
  });

  it('images refused by the usage guidelines (400) or filtered from the output, and invalid input, are not retried', async () => {
    tokenEndpoint();
    nock(HOST).post(PATH).reply(400, { error: { code: 400, message: 'Image generation failed: the input image violates the usage guidelines.', status: 'INVALID_ARGUMENT' } });
    const policy = await model().run(dedicatedCall({ person, garment }, 'virtual-try-on-001')).catch((e) => e);
    expect(policy).toMatchObject({ retryable: false, status: 400 });
    expect(policy.message).toMatch(/INVALID_ARGUMENT: Image generation failed/);

    tokenEndpoint();
    nock(HOST).post(PATH).reply(200, { predictions: [{ raiFilteredReason: 'Your current safety filter threshold filtered out 1 generated image.' }] });
    const filtered = await model().run(dedicatedCall({ person, garment }, 'virtual-try-on-001')).catch((e) => e);
    expect(filtered).toMatchObject({ retryable: false });
    expect(filtered.message).toMatch(/Responsible AI filters: Your current safety filter/);
  });

  it('a model the region does not serve (404 NOT_FOUND) leaves the chain; a server error (503) is retryable', async () => {
    tokenEndpoint();
    nock(HOST).post(PATH).reply(404, { error: { code: 404, message: 'Publisher Model `projects/fitroom-test/locations/europe-west4/publishers/google/models/virtual-try-on-001` not found.', status: 'NOT_FOUND' } });
    expect(await model().run(dedicatedCall({ person, garment }, 'virtual-try-on-001')).catch((e) => e)).toMatchObject({ code: 'MODEL_UNAVAILABLE', retryable: false, status: 404 });

    tokenEndpoint();
    nock(HOST).post(PATH).reply(503, { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } });
    expect(await model().run(dedicatedCall({ person, garment }, 'virtual-try-on-001')).catch((e) => e)).toMatchObject({ retryable: true, status: 503 });
  });

  it('times out a predict call that does not answer (synchronous: no polling) as retryable', async () => {
    tokenEndpoint();
    nock(HOST).post(PATH).reply(late(2_000, [200, { predictions: [] }]));
    const vertex = new VertexImageModel({ project: 'fitroom-test', location: 'europe-west4', credentials: serviceAccount, timeoutMs: 150 });
    const err = await vertex.run(dedicatedCall({ person, garment }, 'virtual-try-on-001')).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ retryable: true });
    expect(err.message).toMatch(/timed out after 150 ms/);
  });
});
