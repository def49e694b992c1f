import { createHash } from 'node:crypto';
import type { Gender } from '../../twins/body.ts';

/** Share of subjects kept aside for evaluation. */
export const HELD_OUT_SHARE = 0.2;

/** Deterministic split: the first 32 bits of SHA-256("ansur2:<gender>:<id>") as a fraction of 2^32. */
export function isHeldOut(gender: Gender, subjectId: number): boolean {
  const h = createHash('sha256').update(`ansur2:${gender}:${subjectId}`).digest();
  return h.readUInt32BE(0) / 2 ** 32 < HELD_OUT_SHARE;
}
