import type { FitroomConfig } from '../../core/config.ts';
import type { ServiceContainer } from '../../core/kernel.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { Pool } from '../../adapters/postgres/db.ts';
import { TWIN_STORE } from '../../core/ports/twin-store.ts';
import { PostgresTwinStore } from '../../adapters/postgres/twin-store.ts';
import { TWIN_RENDERER } from '../../core/ports/twin-renderer.ts';
import { BuiltinTwinRenderer } from '../../adapters/builtin/body/twin-renderer.ts';

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
  ctx.services.provide(TWIN_STORE, new PostgresTwinStore(ctx.pool));
  ctx.services.provide(TWIN_RENDERER, new BuiltinTwinRenderer());
}
