import type { KeyKind } from '../credentials.ts';

export interface ApiKeyRecord {
  id: string;
  name: string;
  kind: KeyKind;
  /** Lowercase hex SHA-256 of the key; the key itself is never stored. */
  keyHash: string;
  /** First characters of the key, for recognising it in listings. */
  prefix: string;
  accountId: string | null;
  isActive: boolean;
  expiresAt: Date | null;
  /** 0 means unlimited. */
  maxUsage: number;
  usageCount: number;
  monthlyQuota: number | null;
  createdAt: Date;
  revokedAt: Date | null;
  rotatedFrom: string | null;
}

/** CredentialStore: persistence of API key records (postgres adapter). */
export interface CredentialStore {
  insert(rec: ApiKeyRecord): Promise<ApiKeyRecord>;
  get(id: string): Promise<ApiKeyRecord | null>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** The record findByHash would answer from this process's cache right now, or undefined (then ask findByHash). */
  cachedByHash?(keyHash: string): ApiKeyRecord | undefined;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks inactive; returns null when the id is unknown. */
  revoke(id: string, at: Date): Promise<ApiKeyRecord | null>;
  setRotatedFrom(id: string, from: string): Promise<void>;
  incrementUsage(id: string, by?: number): Promise<void>;
}
