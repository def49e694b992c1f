import type { DiscoveryStore, VendorCatalog, VendorDiscovery } from './ports/vendor-catalog.ts';
import type { ModelRegistry } from './tryon/models.ts';

export interface VendorDiscoveryDeps {
  catalogs: () => readonly VendorCatalog[];
  registry: ModelRegistry;
  /** How old the newest results may be before a start or a warm-up reads the vendors again. */
  intervalMs: number;
  /** What changed (a model deprecated or retired, a family moving on), said once per change. */
  log?: (line: string) => void;
}

/**
 * Vendors kept current without a release: each configured vendor's model list (or account, for vendors
 * without one) is read at start and on a schedule, stored so every process and a restart share it, and
 * applied to the model registry: a model the vendor lists as deprecated is passed over by the chain (with
 * the successor the vendor names), one missing from a vendor's complete list is retired, and family
 * entries move to the newest active member. One process asks the vendors per interval (`claim`); the
 * others read what it stored.
 */
export class VendorDiscoveryService {
  readonly #d: VendorDiscoveryDeps;
  #store: DiscoveryStore | null = null;
  #results: VendorDiscovery[] = [];
  #running: Promise<VendorDiscovery[]> | null = null;
  /** What was last said per model, so a change is logged once. */
  readonly #said = new Map<string, string>();

  constructor(deps: VendorDiscoveryDeps) {
    this.#d = deps;
  }

  /** Where results are shared (the composition root sets it; the CLI runs without one). */
  useStore(store: DiscoveryStore): void {
    this.#store = store;
  }

  results(): readonly VendorDiscovery[] {
    return this.#results;
  }

  /** The time of the oldest result, or null before any. */
  discoveredAt(): string | null {
    if (!this.#results.length) return null;
    return this.#results.map((r) => r.discoveredAt).sort()[0];
  }

  /** Reads the stored results (another process's run) and applies them. */
  async load(): Promise<void> {
    if (!this.#store || !this.#d.catalogs().length) return;
    const stored = await this.#store.load();
    const providers = new Set(this.#d.catalogs().map((c) => c.provider));
    this.#apply(stored.filter((r) => providers.has(r.provider)));
  }

  /**
   * At start and in the warm-up: the stored results, and a fresh run when they are older than the
   * interval and this process wins the claim (without a store: a fresh run when stale).
   */
  async ensureFresh(timeoutMs: number): Promise<readonly VendorDiscovery[]> {
    await this.load();
    if (!this.#d.catalogs().length) return this.#results;
    const oldest = this.discoveredAt();
    const stale = oldest === null || Date.now() - Date.parse(oldest) >= this.#d.intervalMs || this.#results.length < this.#d.catalogs().length;
    if (!stale) return this.#results;
    if (this.#store && !(await this.#store.claim(Math.min(this.#d.intervalMs, 60_000)))) return this.#results;
    return this.refresh(timeoutMs);
  }

  /** Asks every configured vendor now (the scheduled task; concurrent callers share one run). */
  refresh(timeoutMs = 30_000): Promise<VendorDiscovery[]> {
    this.#running ??= this.#run(timeoutMs).finally(() => (this.#running = null));
    return this.#running;
  }

  async #run(timeoutMs: number): Promise<VendorDiscovery[]> {
    const signal = AbortSignal.timeout(timeoutMs);
    const { registry } = this.#d;
    const results = await Promise.all(
      this.#d.catalogs().map(async (c): Promise<VendorDiscovery> => {
        const mine = registry.all().filter((m) => m.provider === c.provider);
        const families = registry.families().filter((f) => mine.some((m) => m.id === f.id));
        const ids = mine.map((m) => m.id).filter((id) => !families.some((f) => f.id === id));
        try {
          return { ...(await c.discover({ ids, families: families.map((f) => f.follow) }, signal)), asked: ids };
        } catch (e) {
          return { provider: c.provider, discoveredAt: new Date().toISOString(), status: 'unreachable', coverage: 'none', models: [], message: signal.aborted ? `no answer within ${timeoutMs} ms` : (e as Error).message };
        }
      }),
    );
    // A vendor that did not answer keeps what it said last (a restart or an outage forgets nothing).
    const kept = results.map((r) => (r.status === 'ok' ? r : (this.#results.find((o) => o.provider === r.provider && o.status === 'ok') ?? r)));
    if (this.#store) await this.#store.save(results.filter((r) => r.status === 'ok'));
    this.#apply(kept);
    for (const r of results) if (r.status !== 'ok') this.#say(`${r.provider}:status`, `AI vendor ${r.provider}: model list not read (${r.status.replace('_', ' ')}${r.message ? `: ${r.message}` : ''}); the last known list stays in use`);
    return this.#results;
  }

  #apply(results: VendorDiscovery[]): void {
    const { registry } = this.#d;
    const merged = new Map(this.#results.map((r) => [r.provider, r]));
    for (const r of results) if (r.status === 'ok' || !merged.has(r.provider)) merged.set(r.provider, r);
    this.#results = [...merged.values()];
    for (const r of this.#results) {
      if (r.status !== 'ok' || r.coverage === 'none') continue;
      const listed = new Map(r.models.map((m) => [m.id, m]));
      const familyIds = new Set(registry.families().map((f) => f.id));
      const asked = new Set(r.asked ?? []);
      for (const spec of registry.all()) {
        if (spec.provider !== r.provider || familyIds.has(spec.id)) continue;
        const m = listed.get(spec.id);
        if (!m) {
          if (!asked.has(spec.id)) continue;
          // fal's search answers only for the ids asked: an id asked and not listed is gone too
          registry.retire(spec.id, `${r.provider}'s model list no longer has it (read ${r.discoveredAt})`);
          continue;
        }
        if (m.state === 'deprecated') {
          const notice = { provider: r.provider, ...(m.successor ? { successor: m.successor } : {}) };
          registry.deprecate(spec.id, notice);
          this.#say(spec.id, `AI vendor ${r.provider}: ${spec.id} is DEPRECATED${m.successor ? ` (successor: ${m.successor})` : ''}; the model chain passes it over from now on`);
        } else if (registry.deprecation(spec.id)) {
          registry.deprecate(spec.id, null);
          this.#say(spec.id, `AI vendor ${r.provider}: ${spec.id} is listed as active again`);
        }
      }
      for (const f of registry.families()) {
        if (registry.get(f.id)?.provider !== r.provider) continue;
        const target = registry.resolveFamily(f.id, r.models);
        if (target) this.#say(`family:${f.id}`, `model family ${f.id} (${f.follow}) calls ${target}`);
        else this.#say(`family:${f.id}`, `model family ${f.id} (${f.follow}): ${r.provider} lists no active model of it; the entry is passed over`);
      }
    }
  }

  #say(key: string, line: string): void {
    if (this.#said.get(key) === line) return;
    this.#said.set(key, line);
    this.#d.log?.(line);
  }
}
