import type { VendorCheck } from '../../core/ports/image-model.ts';
import type { VendorDiscovery } from '../../core/ports/vendor-catalog.ts';

/** A discovery run that got no usable answer, classified as the live check classifies it. */
export function discoveryFailure(check: VendorCheck): VendorDiscovery {
  const status = check.status === 'unreachable' || check.status === 'account_refused' ? check.status : 'error';
  return { provider: check.provider, discoveredAt: new Date().toISOString(), status, coverage: 'none', models: [], ...(check.message ? { message: check.message } : {}) };
}

/** The one-request balance reads of vendors without a model list (Meshy, Tripo). */
export function balanceDiscovery(provider: string, balance: number | undefined, pinned: string): VendorDiscovery {
  return {
    provider,
    discoveredAt: new Date().toISOString(),
    status: 'ok',
    coverage: 'none',
    models: [],
    pinned: [pinned],
    ...(balance !== undefined ? { balance } : {}),
    ...(balance === 0 ? { message: 'no credits left: tasks will be refused' } : {}),
  };
}
