import { token } from '../plugin.ts';

/**
 * Stage timeouts (ms) of the builtin reconstruction and the texture passes per genaiQuality; spec: 3 and
 * 5 minutes. A vendor reconstructor has its own task timeout (`ProductReconstructor.taskTimeoutMs`).
 */
export interface Shoe3dTimeouts {
  default: number;
  high: number;
}

export const DEFAULT_SHOE3D_TIMEOUTS: Shoe3dTimeouts = { default: 3 * 60_000, high: 5 * 60_000 };

/** Optional override of the timeouts (deployments with slow vendors, tests). */
export const SHOE3D_TIMEOUTS = token<Shoe3dTimeouts>('Shoe3dTimeouts');
