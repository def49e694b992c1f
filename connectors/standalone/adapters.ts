import type { FitroomConfig } from '../../core/config.ts';
import type { ServiceContainer } from '../../core/kernel.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { Pool } from '../../adapters/postgres/db.ts';

export interface AdapterContext {
  config: FitroomConfig;
  pool: Pool;
  blobs: BlobStore;
  services: ServiceContainer;
}

/**
 * Binds the adapters of the capability plugins' ports (PostgreSQL stores, builtin engines).
 * One line per port; plugins resolve them by token in their setup.
 */
export function bindPluginAdapters(ctx: AdapterContext): void {
  void ctx;
}
