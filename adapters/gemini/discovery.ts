import type { DiscoveredModel, VendorCatalog, VendorDiscovery } from '../../core/ports/vendor-catalog.ts';
import { checkBaseUrl, checkRequest, requireApiKey } from '../http/vendor.ts';
import { discoveryFailure } from '../http/discovery.ts';

export interface GeminiCatalogOptions {
  apiKey: string;
  /** Default https://generativelanguage.googleapis.com/v1beta */
  baseUrl?: string;
  timeoutMs?: number;
  /** Pages of `models.list` read at most (1000 models a page). Default 10. */
  maxPages?: number;
}

interface GeminiModel {
  name?: string;
  baseModelId?: string;
  version?: string;
  displayName?: string;
  description?: string;
  supportedGenerationMethods?: string[];
}

/**
 * Gemini's model list: `GET /v1beta/models` (models.list), page by page with `pageToken` until no
 * `nextPageToken` (ai.google.dev/api/models). The Model resource documents name, baseModelId, version,
 * displayName, description, token limits and supportedGenerationMethods, and no deprecation field:
 * a shut-down model leaves the list (so a catalogue model missing from it is retired), and a
 * deprecation is read from the description when Google writes it there ("deprecated", with the
 * replacement id it names). Preview and experimental ids are marked so families never pick them.
 */
export class GeminiCatalog implements VendorCatalog {
  readonly provider = 'gemini';
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxPages: number;

  constructor(o: GeminiCatalogOptions) {
    this.#apiKey = requireApiKey('gemini', o.apiKey, 'GEMINI_API_KEY');
    this.#baseUrl = checkBaseUrl('gemini', o.baseUrl ?? 'https://generativelanguage.googleapis.com/v1beta');
    this.#timeoutMs = o.timeoutMs ?? 15_000;
    this.#maxPages = o.maxPages ?? 10;
  }

  async discover(_ask: unknown, signal: AbortSignal): Promise<VendorDiscovery> {
    const models: DiscoveredModel[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < this.#maxPages; page++) {
      const url = `${this.#baseUrl}/models?pageSize=1000${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`;
      const r = await checkRequest('gemini', url, { headers: { 'x-goog-api-key': this.#apiKey }, signal, timeoutMs: this.#timeoutMs });
      if (!r.ok) return discoveryFailure(r.check);
      for (const m of (r.body?.models ?? []) as GeminiModel[]) {
        const one = describe(m);
        if (one) models.push(one);
      }
      pageToken = typeof r.body?.nextPageToken === 'string' && r.body.nextPageToken ? r.body.nextPageToken : undefined;
      if (!pageToken) return { provider: 'gemini', discoveredAt: new Date().toISOString(), status: 'ok', coverage: 'complete', models };
    }
    // More pages than we read: what was read is true, but absence proves nothing.
    return { provider: 'gemini', discoveredAt: new Date().toISOString(), status: 'ok', coverage: 'partial', models, message: `more than ${this.#maxPages} pages of models; the rest was not read` };
  }
}

function describe(m: GeminiModel): DiscoveredModel | null {
  const id = (m.name ?? '').replace(/^models\//, '');
  if (!id) return null;
  const text = m.description ?? '';
  const deprecated = /\bdeprecated\b/i.test(text);
  // the replacement Google names in the text: the first other Gemini model id after "deprecated"
  const after = deprecated ? text.slice(text.search(/\bdeprecated\b/i)) : '';
  const successor = [...after.matchAll(/\b(gemini-[a-z0-9][a-z0-9.-]*[a-z0-9])\b/gi)].map((x) => x[1]).find((x) => x !== id);
  return {
    id,
    state: deprecated ? 'deprecated' : 'active',
    ...(successor ? { successor } : {}),
    ...(/-(preview|exp)(\b|-)|experimental|-latest$/i.test(id) ? { preview: true } : {}),
    ...(m.displayName ? { displayName: m.displayName } : {}),
    ...(m.version ? { version: m.version } : {}),
    ...(m.supportedGenerationMethods ? { methods: m.supportedGenerationMethods } : {}),
  };
}
