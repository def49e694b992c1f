import { createHash } from 'node:crypto';
import type { ClothingSizeLabel } from '../../core/sizing/en13402.ts';
import type { Dimension, Gender, PoseId } from '../../core/twins/body.ts';

/** The body source as it enters a twin's identity: image sources by the SHA-256 of their bytes. */
export type TwinBodyIdentity =
  | { kind: 'photo'; sha256: string }
  | { kind: 'direct'; sha256: string }
  | { kind: 'measurements'; gender: Gender | null; measurements: Partial<Record<Dimension, number>> }
  | { kind: 'clothing_size'; gender: Gender; height: number; size: ClothingSizeLabel };

export interface TwinIdentity {
  /** SHA-256 hex of the face image bytes. */
  face: string;
  body: TwinBodyIdentity;
  /** The resolved pose (never `default`); null for silhouettes, which ignore the pose. */
  pose: PoseId | null;
  /** The twin's scope (twinScope): the same inputs give each account its own twin id. */
  scope?: string;
}

/** Bumped if the meaning of a twin's inputs ever changes, so old and new twins never share an id. */
const IDENTITY_VERSION = 1;

/** JSON with object keys sorted at every level: the same description always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The twin id: lowercase hex SHA-256 of the canonical description of face, body source and resolved pose. */
export function twinId(identity: TwinIdentity): string {
  return createHash('sha256').update(canonicalJson({ v: IDENTITY_VERSION, ...identity })).digest('hex');
}

export function sha256Bytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
