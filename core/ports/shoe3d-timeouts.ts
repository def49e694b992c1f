import { token } from '../plugin.ts';

/** Stage timeouts (ms) of the generation and texture passes per genaiQuality; spec: 3 and 5 minutes. */
export interface Shoe3dTimeouts {
  default: number;
  high: number;
}

export const DEFAULT_SHOE3D_TIMEOUTS: Shoe3dTimeouts = { default: 3 * 60_000, high: 5 * 60_000 };

/** Optional override of the timeouts (deployments with slow vendors, tests). */
export const SHOE3D_TIMEOUTS = token<Shoe3dTimeouts>('Shoe3dTimeouts');
