/**
 * VendorCatalog: what a configured AI vendor says about itself, read from its own model list or
 * account endpoints (Gemini `models.list`, fal's model search, Meshy's and Tripo's balances). Adapters
 * implement it in a small file of their own; the discovery service (core/vendor-discovery.ts) runs
 * them at start and on a schedule, keeps the results in a `DiscoveryStore` so every process shares
 * them, and applies them to the model registry (deprecated and retired models, model families).
 */

/** One model as the vendor lists it. */
export interface DiscoveredModel {
  /** The id a call uses (Gemini `gemini-3-pro-image`, fal `fal-ai/flux-pro/kontext`). */
  id: string;
  /** `active`: listed and usable; `deprecated`: listed, but the vendor announced its end. */
  state: 'active' | 'deprecated';
  /** The model the vendor names as its replacement, when it names one. */
  successor?: string;
  /** Preview or experimental releases are never picked when following a family. */
  preview?: boolean;
  displayName?: string;
  /** The vendor's own version label (Gemini `version`). */
  version?: string;
  /** Generation methods the vendor lists (Gemini `supportedGenerationMethods`). */
  methods?: string[];
}

/** What one vendor answered. */
export interface VendorDiscovery {
  provider: string;
  discoveredAt: string;
  /** `ok`: the vendor answered; `unreachable`: no answer; `account_refused`: the key was refused; `error`: anything else. */
  status: 'ok' | 'unreachable' | 'account_refused' | 'error';
  message?: string;
  /**
   * `complete`: the vendor's whole list (a catalogue model missing from it is retired); `partial`:
   * only the models asked about (fal's search by id); `none`: the vendor offers no model list.
   */
  coverage: 'complete' | 'partial' | 'none';
  models: DiscoveredModel[];
  /** Credits the vendor reports. */
  balance?: number;
  /**
   * The ids Fitroom asked about in this run (filled by the discovery service): only these can be found
   * missing, so a model configured after the run is never retired by an older list.
   */
  asked?: string[];
  /** Ids configured for this vendor that no list of its confirms (Meshy's and Tripo's pinned models). */
  pinned?: string[];
}

export interface VendorCatalog {
  readonly provider: string;
  /**
   * Reads the vendor's list. `ask` names the ids Fitroom uses and `families` the patterns of model
   * families it follows, for vendors whose list is searched rather than read whole.
   */
  discover(ask: { ids: readonly string[]; families: readonly string[] }, signal: AbortSignal): Promise<VendorDiscovery>;
}

/** Where discovery results live so every process (API, workers) and a restart see the same ones. */
export interface DiscoveryStore {
  load(): Promise<VendorDiscovery[]>;
  save(results: readonly VendorDiscovery[]): Promise<void>;
  /**
   * Claims the next discovery run: true for exactly one caller while the newest run is older than
   * `staleMs` (others read what it stores), so several processes starting at once ask the vendors once.
   */
  claim(staleMs: number): Promise<boolean>;
}
