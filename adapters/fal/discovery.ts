import type { DiscoveredModel, VendorCatalog, VendorDiscovery } from '../../core/ports/vendor-catalog.ts';
import { checkBaseUrl, checkRequest, requireApiKey } from '../http/vendor.ts';
import { discoveryFailure } from '../http/discovery.ts';

export interface FalCatalogOptions {
  apiKey: string;
  /** fal's platform API. Default https://api.fal.ai/v1 */
  platformUrl?: string;
  timeoutMs?: number;
  /** Pages of a family search read at most. Default 5. */
  maxPages?: number;
}

interface FalModel {
  endpoint_id?: string;
  metadata?: { display_name?: string; status?: string; category?: string };
}

/** fal's "find mode" takes 1-50 endpoint ids a request. */
const IDS_PER_REQUEST = 50;

/**
 * fal's model registry, the platform API's model search (`GET /v1/models`, docs.fal.ai/platform-apis/v1/models):
 * the endpoints Fitroom uses are looked up by id (`endpoint_id=...`, up to 50 a request); each answers
 * `{endpoint_id, metadata: {display_name, status: active | deprecated, ...}}`. A family is searched by
 * its longest literal word (`q=`), following `next_cursor` while `has_more`. fal documents no successor
 * field, so a deprecated fal endpoint is flagged without one. The list is partial: only the ids asked.
 */
export class FalCatalog implements VendorCatalog {
  readonly provider = 'fal';
  readonly #apiKey: string;
  readonly #platformUrl: string;
  readonly #timeoutMs: number;
  readonly #maxPages: number;

  constructor(o: FalCatalogOptions) {
    this.#apiKey = requireApiKey('fal', o.apiKey, 'FAL_KEY');
    this.#platformUrl = checkBaseUrl('fal', o.platformUrl ?? 'https://api.fal.ai/v1');
    this.#timeoutMs = o.timeoutMs ?? 15_000;
    this.#maxPages = o.maxPages ?? 5;
  }

  async discover(ask: { ids: readonly string[]; families: readonly string[] }, signal: AbortSignal): Promise<VendorDiscovery> {
    const found = new Map<string, DiscoveredModel>();
    const read = async (query: string): Promise<{ ok: true; next?: string } | { ok: false; failure: VendorDiscovery }> => {
      const r = await checkRequest('fal', `${this.#platformUrl}/models?${query}`, { headers: { authorization: `Key ${this.#apiKey}` }, signal, timeoutMs: this.#timeoutMs });
      if (!r.ok) return { ok: false, failure: discoveryFailure(r.check) };
      for (const m of (r.body?.models ?? []) as FalModel[]) {
        if (!m.endpoint_id) continue;
        found.set(m.endpoint_id, {
          id: m.endpoint_id,
          state: m.metadata?.status === 'deprecated' ? 'deprecated' : 'active',
          ...(m.metadata?.display_name ? { displayName: m.metadata.display_name } : {}),
        });
      }
      return { ok: true, ...(r.body?.has_more && typeof r.body.next_cursor === 'string' ? { next: r.body.next_cursor } : {}) };
    };
    for (let i = 0; i < ask.ids.length; i += IDS_PER_REQUEST) {
      const r = await read(ask.ids.slice(i, i + IDS_PER_REQUEST).map((id) => `endpoint_id=${encodeURIComponent(id)}`).join('&'));
      if (!r.ok) return r.failure;
    }
    for (const family of ask.families) {
      const word = family.split(/[/*\-_]/).filter((w) => w !== 'fal-ai' && w !== 'fal').sort((a, b) => b.length - a.length)[0];
      if (!word) continue;
      let cursor: string | undefined;
      for (let page = 0; page < this.#maxPages; page++) {
        const r = await read(`q=${encodeURIComponent(word)}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        if (!r.ok) return r.failure;
        cursor = r.next;
        if (!cursor) break;
      }
    }
    return { provider: 'fal', discoveredAt: new Date().toISOString(), status: 'ok', coverage: 'partial', models: [...found.values()] };
  }
}
