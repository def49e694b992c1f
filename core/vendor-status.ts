import type { ImageModelProvider, VendorCheck } from './ports/image-model.ts';
import type { ProductReconstructor } from './ports/product-reconstructor.ts';
import type { Deprecation, FamilyState, ModelRegistry } from './tryon/models.ts';
import type { VendorDiscoveryService } from './vendor-discovery.ts';
import type { VendorDiscovery } from './ports/vendor-catalog.ts';

export interface VendorReport {
  checkedAt: string;
  vendors: VendorCheck[];
  /** Models taken out of the chains in this process (found missing here or answered "not found"). */
  retiredModels: { id: string; reason: string }[];
  /** Catalogue models their vendor lists as deprecated (passed over by the chain), with the successor it names. */
  deprecatedModels: ({ id: string } & Deprecation)[];
  /** Family entries and the model each calls now. */
  families: FamilyState[];
  /** When the vendors' model lists were last read (null: never, e.g. offline since the first start). */
  discoveredAt: string | null;
}

export interface VendorStatusDeps {
  imageModels: () => readonly ImageModelProvider[];
  reconstructors: () => readonly ProductReconstructor[];
  /** The configured model chain (ids). */
  chain: () => readonly string[];
  registry: ModelRegistry;
  /** Each vendor's answer, as it comes (the composition root logs them). */
  onResult?: (check: VendorCheck) => void;
  /** Reads the vendors' model lists first (deprecations, retirements, families); Meshy's and Tripo's balance. */
  discovery?: VendorDiscoveryService;
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
    return this.#last && this.#withRegistry(this.#last);
  }

  /**
   * The last report, refreshed first when older than `maxAgeMs` (concurrent callers share one run).
   * What discovery stored since (another process's scheduled run) is read each time.
   */
  async current(maxAgeMs: number, timeoutMs: number): Promise<VendorReport> {
    if (this.#last && Date.now() - Date.parse(this.#last.checkedAt) < maxAgeMs) {
      // bounded: a database outage must not hold the warm-up (it reports the outage itself)
      if (this.#d.discovery) await Promise.race([this.#d.discovery.load().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
      return this.#withRegistry(this.#last);
    }
    return this.refresh(timeoutMs);
  }

  /** The registry's state now: retirements, deprecations and families change between checks. */
  #withRegistry(r: VendorReport): VendorReport {
    const { registry } = this.#d;
    return { ...r, retiredModels: registry.retired(), deprecatedModels: registry.deprecated(), families: registry.families(), discoveredAt: this.#d.discovery?.discoveredAt() ?? null };
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
    // The model lists first: a deprecated or retired model leaves the chain and a family entry knows its
    // member before the per-model check below asks about the ids jobs will call.
    const discovery = this.#d.discovery;
    const found = discovery
      ? await Promise.race([discovery.ensureFresh(timeoutMs).catch(() => discovery.results()), new Promise<readonly VendorDiscovery[]>((r) => setTimeout(() => r(discovery.results()), timeoutMs).unref())])
      : [];
    const checks: Promise<VendorCheck>[] = [];
    for (const p of this.#d.imageModels()) {
      if (!p.check) continue;
      const ids = [...new Set(chain.map((id) => registry.target(id)).filter((id): id is string => id !== undefined && registry.get(id)?.provider === p.id))];
      if (ids.length) checks.push(one(p.id, () => p.check!(ids, signal)));
    }
    for (const r of this.#d.reconstructors()) {
      // Meshy and Tripo have no model list: their balance (read by discovery) proves the key, and the
      // pinned model is reported as unverified instead of "present".
      const d = found.find((x) => x.provider === r.id);
      if (d) {
        checks.push(
          Promise.resolve({
            provider: r.id,
            status: d.status === 'ok' ? 'ok' : d.status,
            ...(d.message ? { message: d.message } : {}),
            ...(d.balance !== undefined ? { balance: d.balance } : {}),
            ...(d.status === 'ok' ? { models: (d.pinned ?? []).map((id) => ({ id, available: true, unverified: true, detail: `${r.id} publishes no model list: the pinned model is checked by its first task` })) } : {}),
          }),
        );
      } else if (r.check) checks.push(one(r.id, () => r.check!(signal)));
    }
    const vendors = await Promise.all(checks);
    for (const v of vendors) {
      // A model the vendor does not have is a configuration error: out of the chains, before a job tries it.
      for (const m of v.models ?? []) if (!m.available && registry.get(m.id)) registry.retire(m.id, `the ${v.provider} check found it unavailable${m.detail ? ` (${m.detail})` : ''}`);
      this.#d.onResult?.(v);
    }
    this.#last = this.#withRegistry({ checkedAt: new Date().toISOString(), vendors, retiredModels: [], deprecatedModels: [], families: [], discoveredAt: null });
    return this.#last;
  }
}
