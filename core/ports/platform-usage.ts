import { token } from '../plugin.ts';

/** What a shop's usage is counted as: a try-on started, a size recommended, a size chart saved. */
export type PlatformMetric = 'tryon' | 'size_recommendation' | 'size_chart';

/**
 * PlatformUsage: counters per shop, metric and calendar month (UTC), for the figures a commerce
 * platform's admin shows (postgres adapter). Not billing: billing records its own charges. The
 * shop's counters go with the rest of its platform rows (`PlatformStore.deleteInstall`, shop/redact).
 */
export interface PlatformUsage {
  count(platform: string, shop: string, metric: PlatformMetric, at?: Date): Promise<void>;
  /** The counts of the month that contains `at` (missing metrics are 0). */
  month(platform: string, shop: string, at: Date): Promise<Record<PlatformMetric, number>>;
  /** The count over all months (has the shop ever done it). */
  total(platform: string, shop: string, metric: PlatformMetric): Promise<number>;
}

export const PLATFORM_USAGE = token<PlatformUsage>('PlatformUsage');
