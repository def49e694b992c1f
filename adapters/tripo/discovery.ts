import type { VendorCatalog, VendorDiscovery } from '../../core/ports/vendor-catalog.ts';
import { checkBaseUrl, requireApiKey, vendorRequest } from '../http/vendor.ts';
import { balanceDiscovery } from '../http/discovery.ts';

/** Tripo's v3 API (the v2 `/v2/openapi` routes were shut down on 2026-10-31). */
export const TRIPO_V3_BASE_URL = 'https://openapi.tripo3d.ai/v3';

/**
 * Tripo publishes no model list either (its SDKs carry the versions as constants): discovery asks
 * `GET /v3/account/balance` (official Go SDK, client.go GetBalance; envelope `{code, data: {balance,
 * frozen}, message, suggestion}`, code 0 on success), which proves the key and reports the credits.
 */
export class TripoCatalog implements VendorCatalog {
  readonly provider = 'tripo';
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #modelVersion: string;
  readonly #timeoutMs: number;

  constructor(o: { apiKey: string; modelVersion: string; baseUrl?: string; timeoutMs?: number }) {
    this.#apiKey = requireApiKey('tripo', o.apiKey, 'TRIPO_API_KEY');
    this.#baseUrl = checkBaseUrl('tripo', o.baseUrl ?? TRIPO_V3_BASE_URL);
    this.#modelVersion = o.modelVersion;
    this.#timeoutMs = o.timeoutMs ?? 10_000;
  }

  async discover(_ask: unknown, signal: AbortSignal): Promise<VendorDiscovery> {
    const at = new Date().toISOString();
    let res;
    try {
      res = await vendorRequest('tripo', `${this.#baseUrl}/account/balance`, { headers: { authorization: `Bearer ${this.#apiKey}` }, signal, timeoutMs: this.#timeoutMs });
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      return { provider: 'tripo', discoveredAt: at, status: 'unreachable', coverage: 'none', models: [], message: (e as Error).message };
    }
    let env: { code?: number; message?: string; suggestion?: string; data?: { balance?: number } } | undefined;
    try {
      env = JSON.parse(res.text);
    } catch {
      env = undefined;
    }
    if (res.status >= 200 && res.status < 300 && env && (env.code ?? 0) === 0) return balanceDiscovery('tripo', typeof env.data?.balance === 'number' ? env.data.balance : undefined, this.#modelVersion);
    // 401/403 and code 2010 (credits) are the account; the rest is an error to read
    const account = res.status === 401 || res.status === 403 || env?.code === 2010;
    const message = `HTTP ${res.status}${env?.code ? ` code ${env.code}` : ''}: ${env?.message ?? res.text.slice(0, 200)}`;
    return { provider: 'tripo', discoveredAt: at, status: account ? 'account_refused' : 'error', coverage: 'none', models: [], message };
  }
}
