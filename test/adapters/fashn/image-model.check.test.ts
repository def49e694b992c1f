import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { FashnImageModel } from '../../../adapters/fashn/image-model.ts';
import { useNock, withClosedPort } from '../vendor-helpers.ts';

/*
 * The start-up check of FASHN. Fixtures follow FASHN's Credits Balance reference as of 2026-11
 * (docs.fashn.ai/utility-endpoints/credits): `GET https://api.fashn.ai/v1/credits` with
 * `Authorization: Bearer` answers `{credits: {total, subscription, on_demand}}`; API-level errors are
 * `{error, message}` (docs.fashn.ai/api-overview/error-handling), 401 UnauthorizedAccess for a bad key.
 */

const API = 'https://api.fashn.ai';
const KEY = 'fa-test-key';
const signal = () => new AbortController().signal;

useNock();

describe('FashnImageModel.check', () => {
  it('a key FASHN accepts: ok with the credits balance, the model names reported as not verifiable (no model list)', async () => {
    const scope = nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } }).get('/v1/credits').reply(200, { credits: { total: 234, subscription: 100, on_demand: 134 } });
    const check = await new FashnImageModel({ apiKey: KEY }).check(['tryon-v1.6', 'tryon-max'], signal());
    expect(scope.isDone()).toBe(true);
    expect(check).toMatchObject({ provider: 'fashn', status: 'ok', balance: 234 });
    expect(check.models).toEqual([
      expect.objectContaining({ id: 'tryon-v1.6', available: true, unverified: true }),
      expect.objectContaining({ id: 'tryon-max', available: true, unverified: true }),
    ]);
  });

  it('a refused key (401 UnauthorizedAccess) and an empty balance are the account', async () => {
    nock(API).get('/v1/credits').reply(401, { error: 'UnauthorizedAccess', message: 'Invalid API key' });
    const refused = await new FashnImageModel({ apiKey: 'wrong' }).check(['tryon-v1.6'], signal());
    expect(refused).toMatchObject({ provider: 'fashn', status: 'account_refused' });
    expect(refused.message).toMatch(/401 UnauthorizedAccess: Invalid API key/);

    nock(API).get('/v1/credits').reply(200, { credits: { total: 0, subscription: 0, on_demand: 0 } });
    const empty = await new FashnImageModel({ apiKey: KEY }).check(['tryon-v1.6'], signal());
    expect(empty).toMatchObject({ status: 'account_refused', balance: 0 });
    expect(empty.message).toMatch(/no FASHN credits left/);
    // the models stay in the chain: credits can be bought without a restart
    expect(empty.models?.every((m) => m.available)).toBe(true);
  });

  it('an unreachable FASHN is reported as such; an answer without credits.total is an error', async () => {
    const offline = await withClosedPort((url) => new FashnImageModel({ apiKey: KEY, baseUrl: `${url}/v1` }).check(['tryon-v1.6'], signal()));
    expect(offline).toMatchObject({ provider: 'fashn', status: 'unreachable', message: expect.stringMatching(/network error/) });

    nock(API).get('/v1/credits').reply(200, { balance: 3 });
    expect(await new FashnImageModel({ apiKey: KEY }).check(['tryon-v1.6'], signal())).toMatchObject({ status: 'error', message: expect.stringMatching(/credits\.total/) });
  });
});
