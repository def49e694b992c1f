import { token } from '../plugin.ts';

/** What Fitroom holds for a set of owner hashes (a customer, a shop). */
export interface OwnerDataSummary {
  jobs: { id: string; kind: string; status: string; createdAt: string; ownerHash: string }[];
  files: { id: string; contentType: string; createdAt: string; expiresAt: string | null }[];
  twins: { id: string; mode: string; createdAt: string }[];
  tryOnResults: number;
}

export interface OwnerDataCounts {
  jobs: number;
  files: number;
  twins: number;
  tryOnResults: number;
}

/**
 * OwnerData: data subject requests over everything keyed by owner hash (jobs and their traces and
 * deliveries, files and their blobs, twins, cached try-on results). postgres adapter.
 */
export interface OwnerData {
  summarize(ownerHashes: string[]): Promise<OwnerDataSummary>;
  /** Deletes the rows and returns what was deleted; the blobs of deleted files are removed too. */
  erase(ownerHashes: string[]): Promise<OwnerDataCounts>;
  /** The same, for what was created before a time only (retention: a shop's shoppers' photos). */
  eraseBefore(ownerHashes: string[], before: Date): Promise<OwnerDataCounts>;
}

export const OWNER_DATA = token<OwnerData>('OwnerData');
