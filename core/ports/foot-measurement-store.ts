import { token } from '../plugin.ts';

/** A public client id of the foot-scan SDK (not a secret: it names the integration). */
export interface FootClient {
  id: string;
  name: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface FootDimensions {
  lengthMm: number;
  widthMm: number;
  girthMm?: number;
}

export interface FootScan {
  id: string;
  clientId: string;
  feet: { left?: FootDimensions; right?: FootDimensions };
  /** What the SDK says about the device (platform, model, sdk version...). */
  device: Record<string, unknown> | null;
  /** The sizes answered to the SDK. */
  sizes: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
}

/** FootMeasurementStore: client ids and stored scans (postgres adapter). */
export interface FootMeasurementStore {
  createClient(c: { id: string; name: string }): Promise<FootClient>;
  /** The client, revoked or not; null when unknown. */
  client(id: string): Promise<FootClient | null>;
  listClients(): Promise<FootClient[]>;
  /** Marks a client revoked; false when unknown or already revoked. */
  revokeClient(id: string, at: Date): Promise<boolean>;
  saveScan(scan: FootScan): Promise<void>;
  /** Newest first; scans past their expiry are never returned. */
  recent(opts: { limit: number; clientId?: string; now: Date }): Promise<FootScan[]>;
  /** false when no unexpired scan has this id. */
  deleteScan(id: string, now: Date): Promise<boolean>;
  purgeExpired(now: Date): Promise<number>;
}

export const FOOT_MEASUREMENT_STORE = token<FootMeasurementStore>('FootMeasurementStore');
