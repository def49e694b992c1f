import type { VendorCatalog, VendorDiscovery } from '../../core/ports/vendor-catalog.ts';
import { checkBaseUrl, checkRequest, requireApiKey } from '../http/vendor.ts';
import { balanceDiscovery, discoveryFailure } from '../http/discovery.ts';

/**
 * Meshy publishes no model list: discovery asks `GET /openapi/v1/balance` (Meshy API reference,
 * "Balance": `{"balance": <credits>}`), which proves the key and reports the credits; the pinned
 * `ai_model` is reported as not verifiable rather than "present".
 */
export class MeshyCatalog implements VendorCatalog {
  readonly provider = 'meshy';
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #aiModel: string;
  readonly #timeoutMs: number;

  constructor(o: { apiKey: string; aiModel: string; baseUrl?: string; timeoutMs?: number }) {
    this.#apiKey = requireApiKey('meshy', o.apiKey, 'MESHY_API_KEY');
    this.#baseUrl = checkBaseUrl('meshy', o.baseUrl ?? 'https://api.meshy.ai');
    this.#aiModel = o.aiModel;
    this.#timeoutMs = o.timeoutMs ?? 10_000;
  }

  async discover(_ask: unknown, signal: AbortSignal): Promise<VendorDiscovery> {
    const r = await checkRequest('meshy', `${this.#baseUrl}/openapi/v1/balance`, { headers: { authorization: `Bearer ${this.#apiKey}` }, signal, timeoutMs: this.#timeoutMs }, (body: { message?: string } | undefined) => ({ message: body?.message }));
    if (!r.ok) return discoveryFailure(r.check);
    return balanceDiscovery('meshy', typeof r.body?.balance === 'number' ? r.body.balance : undefined, this.#aiModel);
  }
}
