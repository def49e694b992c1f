import type { FileRecord } from '../files.ts';

/** FileStore: metadata of stored files (owner, type, expiry). */
export interface FileStore {
  insert(f: FileRecord): Promise<void>;
  get(id: string): Promise<FileRecord | null>;
  /** Expired files, oldest first, for the purge task. */
  expired(before: Date, limit: number): Promise<FileRecord[]>;
  delete(id: string): Promise<void>;
}
