import type { ImageModelProvider, VendorCheck } from './ports/image-model.ts';
import type { ProductReconstructor } from './ports/product-reconstructor.ts';
import type { ModelRegistry } from './tryon/models.ts';

export interface VendorReport {
  checkedAt: string;
  vendors: VendorCheck[];
  /** Models taken out of the chains in this process (found missing here or answered "not found"). */
  retiredModels: { id: string; reason: string }[];
}

export interface VendorStatusDeps {
  imageModels: () => readonly ImageModelProvider[];
  reconstructors: () => readonly ProductReconstructor[];
  /** The configured model chain (ids). */
  chain: () => readonly string[];
  registry: ModelRegistry;
  /** Each vendor's answer, as it comes (the composition root logs them). */
  onResult?: (check: VendorCheck) => void;
}

/**
 * The live check of the configured AI vendors: each adapter asks its vendor whether the key works
 * and the configured models exist. Run at start and by the warm-up when the last check is older than
 * `maxAgeMs`; a model a vendor does not have leaves the chains before any job tries it. Without a
 * network the vendors report `unreachable` and everything carries on.
 */
export class VendorStatus {
  readonly #d: VendorStatusDeps;
  #last: VendorReport | null = null;
  #running: Promise<VendorReport> | null = null;

  constructor(deps: VendorStatusDeps) {
    this.#d = deps;
  }

  last(): VendorReport | null {
    return this.#last;
  }

  /** The last report, refreshed first when older than `maxAgeMs` (concurrent callers share one run). */
  async current(maxAgeMs: number, timeoutMs: number): Promise<VendorReport> {
    if (this.#last && Date.now() - Date.parse(this.#last.checkedAt) < maxAgeMs) return this.#last;
    return this.refresh(timeoutMs);
  }

  refresh(timeoutMs = 15_000): Promise<VendorReport> {
    this.#running ??= this.#check(timeoutMs).finally(() => (this.#running = null));
    return this.#running;
  }

  async #check(timeoutMs: number): Promise<VendorReport> {
    const signal = AbortSignal.timeout(timeoutMs);
    const { registry } = this.#d;
    const chain = this.#d.chain();
    const one = async (provider: string, run: () => Promise<VendorCheck>): Promise<VendorCheck> => {
      try {
        return await run();
      } catch (e) {
        return { provider, status: 'unreachable', message: signal.aborted ? `no answer within ${timeoutMs} ms` : (e as Error).message };
      }
    };
    const checks: Promise<VendorCheck>[] = [];
    for (const p of this.#d.imageModels()) {
      if (!p.check) continue;
      const ids = chain.filter((id) => registry.get(id)?.provider === p.id);
      if (ids.length) checks.push(one(p.id, () => p.check!(ids, signal)));
    }
    for (const r of this.#d.reconstructors()) if (r.check) checks.push(one(r.id, () => r.check!(signal)));
    const vendors = await Promise.all(checks);
    for (const v of vendors) {
      // A model the vendor does not have is a configuration error: out of the chains, before a job tries it.
      for (const m of v.models ?? []) if (!m.available && registry.get(m.id)) registry.retire(m.id, `the ${v.provider} check found it unavailable${m.detail ? ` (${m.detail})` : ''}`);
      this.#d.onResult?.(v);
    }
    this.#last = { checkedAt: new Date().toISOString(), vendors, retiredModels: registry.retired() };
    return this.#last;
  }
}
