import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { FalImageModel } from '../../../adapters/fal/image-model.ts';
import { VendorStatus } from '../../../core/vendor-status.ts';
import { DEFAULT_MODEL_CHAIN, modelRegistry } from '../../../core/tryon/models.ts';
import { useNock } from '../vendor-helpers.ts';

/*
 * fal's try-on endpoints in the start-up check. Fixtures follow fal's Platform APIs reference (docs.fal.ai/
 * reference, model search): `GET https://api.fal.ai/v1/models?endpoint_id=…` answers `{models: [{endpoint_id,
 * metadata: {display_name, category, status: active | deprecated}}], next_cursor, has_more}`; the key is
 * proved by a storage upload initiation (`POST https://rest.fal.ai/storage/upload/initiate`, fal's client
 * storage.ts) answering `{upload_url, file_url}`.
 */

const KEY = 'fal-key-id:fal-key-secret';
const TRYON = ['fal-ai/fashn/tryon/v1.6', 'fal-ai/kling/v1-5/kolors-virtual-try-on'];
const EDIT = ['fal-ai/bytedance/seedream/v4/edit', 'fal-ai/flux-pro/kontext'];

useNock();

describe('the start-up check of fal covers its try-on endpoints', () => {
  it('asks fal about the try-on endpoints of the default chain with its image-edit models', async () => {
    nock('https://rest.fal.ai').post('/storage/upload/initiate').query(true).reply(200, { upload_url: 'https://storage.googleapis.com/fal/x?sig=1', file_url: 'https://v3.fal.media/files/x/check.png' });
    let asked: string[] = [];
    nock('https://api.fal.ai', { reqheaders: { authorization: `Key ${KEY}` } })
      .get('/v1/models')
      .query((q) => ((asked = ([] as string[]).concat(q.endpoint_id as string[])), true))
      .reply(200, {
        models: [...TRYON, ...EDIT].map((id) => ({ endpoint_id: id, metadata: { display_name: id, category: 'image-to-image', status: 'active' } })),
        next_cursor: null,
        has_more: false,
      });
    const status = new VendorStatus({ imageModels: () => [new FalImageModel({ apiKey: KEY })], reconstructors: () => [], chain: () => DEFAULT_MODEL_CHAIN, registry: modelRegistry });
    const report = await status.refresh(5_000);
    expect(asked).toEqual(expect.arrayContaining([...TRYON, ...EDIT]));
    expect(report.vendors).toEqual([expect.objectContaining({ provider: 'fal', status: 'ok' })]);
    expect(report.vendors[0].models?.filter((m) => TRYON.includes(m.id)).map((m) => m.available)).toEqual([true, true]);
  });
});
