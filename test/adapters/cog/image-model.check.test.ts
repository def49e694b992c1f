import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { CogImageModel, inputProblems } from '../../../adapters/cog/image-model.ts';
import { SafeHttp } from '../../../adapters/http/safe-http.ts';
import { useNock, withClosedPort } from '../vendor-helpers.ts';

/*
 * The start-up checks of a Cog container and of Replicate. Cog fixtures follow Cog's HTTP API (github
 * replicate/cog, docs/http.md at 02b7f42): `GET /health-check` always answers 200 with `{status: STARTING |
 * READY | BUSY | SETUP_FAILED | DEFUNCT | UNHEALTHY, setup: {started_at, completed_at, status, logs},
 * version}`; `GET /openapi.json` is the OpenAPI document Cog derives from run()'s arguments, the inputs
 * under `components.schemas.Input.properties`, a Choices input as `allOf: [{$ref: '#/components/schemas/
 * <name>'}]` to an enum schema. Replicate fixtures follow its HTTP API reference (sdks.replicate.com
 * resources account.get and models.get, versions.get): `GET /v1/account` → `{type, username, name,
 * github_url}`; `GET /v1/models/{owner}/{name}` → the model with `latest_version: {id, openapi_schema}`;
 * `GET /v1/models/{owner}/{name}/versions/{id}` → `{id, openapi_schema}`; errors as problem details
 * `{title, detail, status}` (401 for a bad token, 404 for an unknown model).
 */

const COG = 'http://gpu.internal:5000';
const REPLICATE = 'https://api.replicate.com';
const TOKEN = 'r8_test_token';
const VERSION = 'a'.repeat(64);
const safe = () => new SafeHttp({ allowedPrivateNetworks: [], maxBytes: 1_000_000, timeoutMs: 5_000, maxRedirects: 2 });
const cog = (over: Partial<ConstructorParameters<typeof CogImageModel>[0]> = {}) => new CogImageModel({ id: 'cog', baseUrl: COG, outbound: safe(), ...over });
const replicate = (model = 'fashn-ai/fashn-vton-1.5', over: Partial<ConstructorParameters<typeof CogImageModel>[0]> = {}) => new CogImageModel({ id: 'replicate', token: TOKEN, model, ...over });
const signal = () => new AbortController().signal;

/** FASHN VTON v1.5's inputs as Cog publishes them (category a Choices input). */
const schema = (categories = ['tops', 'bottoms', 'one-pieces'], extra: Record<string, object> = {}) => ({
  openapi: '3.0.2',
  info: { title: 'Cog', version: '0.1.0' },
  components: {
    schemas: {
      Input: {
        title: 'Input',
        type: 'object',
        required: ['person_image', 'garment_image'],
        properties: {
          person_image: { title: 'Person Image', type: 'string', format: 'uri', 'x-order': 0 },
          garment_image: { title: 'Garment Image', type: 'string', format: 'uri', 'x-order': 1 },
          category: { allOf: [{ $ref: '#/components/schemas/category' }], default: 'tops', 'x-order': 2 },
          ...extra,
        },
      },
      category: { title: 'category', description: 'An enumeration.', enum: categories, type: 'string' },
    },
  },
});
const health = (status: string, logs = '') => ({ status, setup: { started_at: '2026-11-26T22:00:00.000000+00:00', completed_at: '2026-11-26T22:01:10.000000+00:00', status: status === 'SETUP_FAILED' ? 'failed' : 'succeeded', logs }, version: { coglet: '0.17.0', cog: '0.14.0', python: '3.12.7' } });

useNock();

describe('CogImageModel.check on a Cog container', () => {
  it('READY with the mapped inputs in its OpenAPI schema: ok', async () => {
    const scope = nock(COG).get('/health-check').reply(200, health('READY')).get('/openapi.json').reply(200, schema());
    const check = await cog().check(['cog-tryon'], signal());
    expect(scope.isDone()).toBe(true);
    expect(check).toEqual({ provider: 'cog', status: 'ok', models: [{ id: 'cog-tryon', available: true, detail: `${COG}: input fields match` }] });
  });

  it('a model whose inputs do not match the mapping (a missing field, a category it does not offer) is missing', async () => {
    nock(COG).get('/health-check').reply(200, health('BUSY')).get('/openapi.json').reply(200, schema(['upper_body', 'lower_body', 'dresses']));
    const check = await cog({ inputs: { person: 'human_img', garment: 'garment_image', category: 'category' } }).check(['cog-tryon'], signal());
    expect(check.status).toBe('model_missing');
    expect(check.models).toEqual([expect.objectContaining({ id: 'cog-tryon', available: false })]);
    expect(check.message).toMatch(/the input "human_img"/);
    expect(check.message).toMatch(/category "tops", "bottoms", "one-pieces" \(choices: upper_body, lower_body, dresses\)/);
    expect(check.message).toMatch(/FITROOM_COG_INPUTS/);
  });

  it('a container whose setup failed is an error (with its log); one still in setup is ok with a note', async () => {
    nock(COG).get('/health-check').reply(200, health('SETUP_FAILED', 'torch.cuda.OutOfMemoryError: CUDA out of memory'));
    const failed = await cog().check(['cog-tryon'], signal());
    expect(failed).toMatchObject({ provider: 'cog', status: 'error', message: expect.stringMatching(/SETUP_FAILED: .*CUDA out of memory/) });

    nock(COG).get('/health-check').reply(200, health('STARTING')).get('/openapi.json').reply(200, schema());
    expect(await cog().check(['cog-tryon'], signal())).toMatchObject({ status: 'ok', message: 'the model is still in setup()' });
  });

  it('an auth proxy refusing the token (401) is the account; a container nobody answers for is unreachable', async () => {
    nock(COG).get('/health-check').reply(401, { detail: 'Invalid token' });
    expect(await cog({ token: 'wrong' }).check(['cog-tryon'], signal())).toMatchObject({ status: 'account_refused', message: expect.stringMatching(/Invalid token/) });

    const offline = await withClosedPort((url) => cog({ baseUrl: url }).check(['cog-tryon'], signal()));
    expect(offline).toMatchObject({ provider: 'cog', status: 'unreachable', message: expect.stringMatching(/network error/) });
  });
});

describe('CogImageModel.check on Replicate', () => {
  it('a token Replicate accepts and a model whose latest version takes the mapped inputs: ok', async () => {
    const scope = nock(REPLICATE, { reqheaders: { authorization: `Bearer ${TOKEN}` } })
      .get('/v1/account').reply(200, { type: 'user', username: 'acme', name: 'Acme', github_url: 'https://github.com/acme' })
      .get('/v1/models/fashn-ai/fashn-vton-1.5').reply(200, { url: 'https://replicate.com/fashn-ai/fashn-vton-1.5', owner: 'fashn-ai', name: 'fashn-vton-1.5', visibility: 'public', latest_version: { id: VERSION, openapi_schema: schema() } });
    const check = await replicate().check(['replicate-tryon'], signal());
    expect(scope.isDone()).toBe(true);
    expect(check).toMatchObject({ provider: 'replicate', status: 'ok', models: [{ id: 'replicate-tryon', available: true }] });
  });

  it('a pinned version is read with its schema; a bare version id cannot be read and is reported as not verifiable', async () => {
    nock(REPLICATE).get('/v1/account').reply(200, { type: 'user', username: 'acme' }).get(`/v1/models/fashn-ai/fashn-vton-1.5/versions/${VERSION}`).reply(200, { id: VERSION, openapi_schema: schema() });
    expect((await replicate(`fashn-ai/fashn-vton-1.5:${VERSION}`).check(['replicate-tryon'], signal())).status).toBe('ok');

    nock(REPLICATE).get('/v1/account').reply(200, { type: 'user', username: 'acme' });
    expect((await replicate(VERSION).check(['replicate-tryon'], signal())).models).toEqual([expect.objectContaining({ available: true, unverified: true })]);
  });

  it('a refused token (401) is the account; an unknown model (404) is missing', async () => {
    nock(REPLICATE).get('/v1/account').reply(401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
    expect(await replicate().check(['replicate-tryon'], signal())).toMatchObject({ status: 'account_refused', message: expect.stringMatching(/valid authentication token/) });

    nock(REPLICATE).get('/v1/account').reply(200, { type: 'user', username: 'acme' }).get('/v1/models/fashn-ai/fashn-vton-9').reply(404, { title: 'Not found', detail: 'Not found.', status: 404 });
    const missing = await replicate('fashn-ai/fashn-vton-9').check(['replicate-tryon'], signal());
    expect(missing).toMatchObject({ status: 'model_missing', models: [expect.objectContaining({ id: 'replicate-tryon', available: false })] });
  });

  it('Replicate unreachable is reported as such', async () => {
    const offline = await withClosedPort((url) => replicate('fashn-ai/fashn-vton-1.5', { baseUrl: `${url}/v1` }).check(['replicate-tryon'], signal()));
    expect(offline).toMatchObject({ provider: 'replicate', status: 'unreachable' });
  });
});

describe('inputProblems', () => {
  it('names a schema without Input, and accepts constant inputs the model has', () => {
    expect(inputProblems({ openapi: '3.0.2' }, { person: 'a', garment: 'b' })).toEqual(['any input (its OpenAPI schema has no Input)']);
    expect(inputProblems(schema(undefined, { num_timesteps: { type: 'integer' } }), { person: 'person_image', garment: 'garment_image', extra: { num_timesteps: 20 } })).toEqual([]);
    expect(inputProblems(schema(), { person: 'person_image', garment: 'garment_image', extra: { seed: 1 } })).toEqual(['the input "seed"']);
  });
});
