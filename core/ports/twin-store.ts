import { token } from '../plugin.ts';
import type { EstimatedBodyProfile } from '../sizing/estimated-profile.ts';
import type { BodyLandmarks, BodyRender, Gender, PoseId } from '../twins/body.ts';

/** The spec's DigitalTwinResponse `mode`: which body source made the twin. */
export type TwinMode = 'direct' | 'photo' | 'measurements' | 'clothing_size';

/** What is kept of a twin's render besides its pixels (the image and body buffers are files). */
export interface TwinRenderMeta {
  width: number;
  height: number;
  landmarks: BodyLandmarks;
  pixelsPerCm: number;
  pose: BodyRender['pose'];
  notes: string[];
}

/** A generated digital twin. `id` is the SHA-256 of its canonical inputs (face, body source, resolved pose). */
export interface TwinRecord {
  id: string;
  mode: TwinMode;
  /** The resolved pose; null for a pre-rendered silhouette, which has none. */
  pose: PoseId | null;
  gender: Gender | null;
  /** The body profile behind measurement and clothing-size twins; null for photo and direct twins. */
  profile: EstimatedBodyProfile | null;
  render: TwinRenderMeta;
  /** Internal file: the rendered twin (PNG). */
  imageFileId: string;
  /** Internal file: the body mask and depth buffers. */
  buffersFileId: string;
  /** Credential hash that first generated it (files are stored under it). */
  ownerHash: string;
  /** Who may use the twin id (twinScope): another scope gets 404 as for a twin that does not exist. */
  scope: string;
  createdAt: Date;
  /** createdAt + the twin cache lifetime (30 days by default). */
  expiresAt: Date;
}

/** TwinStore: persisted twin records, keyed by twin id. */
export interface TwinStore {
  get(id: string): Promise<TwinRecord | null>;
  /** Inserts, or replaces a record with the same id (a twin regenerated after expiry); returns the replaced one. */
  put(rec: TwinRecord): Promise<TwinRecord | null>;
  /** Records whose expiry is at or before `before`, oldest first. */
  expired(before: Date, limit: number): Promise<TwinRecord[]>;
  /** Deletes the record if it is still expired at `before` (a regenerated twin is kept); true when deleted. */
  deleteExpired(id: string, before: Date): Promise<boolean>;
}

export const TWIN_STORE = token<TwinStore>('TwinStore');

/**
 * What the twins plugin offers other plugins (try-on draws garments onto a twin's render):
 * published under TWINS by the twins plugin; resolve it in a plugin set up `after: ['twins']`.
 */
export interface TwinDirectory {
  /** The twin when it exists, has not expired and belongs to `scope` (twinScope of the caller). */
  find(id: string, scope: string): Promise<TwinRecord | null>;
  /** The twin's full body render (image, mask, depth, landmarks, parts when kept) on the same terms as find. */
  loadRender(id: string, scope: string): Promise<BodyRender | null>;
}

/** Who made a twin or asks for one: a caller, or the record of the job acting for it. */
export interface TwinOwner {
  accountId: string | null;
  ownerHash: string;
}

/**
 * Twins are scoped to the account that made them (any key or token of the account), or to the
 * credential when it has no account. A twin id of another scope answers as if it did not exist,
 * so a guessed or leaked id reveals nobody's measurements.
 */
export function twinScope(o: TwinOwner): string {
  return o.accountId ? `account:${o.accountId}` : o.ownerHash;
}

export const TWINS = token<TwinDirectory>('Twins');
