import type { FitroomConfig } from '../../core/config.ts';
import type { ServiceContainer } from '../../core/kernel.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { Pool } from '../../adapters/postgres/db.ts';
import { TWIN_STORE } from '../../core/ports/twin-store.ts';
import { PostgresTwinStore } from '../../adapters/postgres/twin-store.ts';
import { TWIN_RENDERER } from '../../core/ports/twin-renderer.ts';
import { BuiltinTwinRenderer } from '../../adapters/builtin/body/twin-renderer.ts';
import { AR_OBJECT_STORE, AR_MODEL_PROCESSOR } from '../../core/ports/ar-object-store.ts';
import { PostgresArObjectStore } from '../../adapters/postgres/ar-object-store.ts';
import { BuiltinArModelProcessor } from '../../adapters/builtin/ar/model-processor.ts';
import { PooledArModelProcessor } from '../../adapters/builtin/ar/pooled-model-processor.ts';
import { TOKENS } from '../../core/tokens.ts';
import { GLB_IO } from '../../core/ports/glb-io.ts';
import { MODEL_STAGES } from '../../core/ports/model-stage.ts';
import { PACKSHOT_CORRECTOR } from '../../core/ports/packshot-corrector.ts';
import { PACKSHOT_CLEANER } from '../../core/ports/packshot-cleaner.ts';
import { SINGLE_SHOE_GUARD } from '../../core/ports/single-shoe-guard.ts';
import { PRODUCT_TYPE_CLASSIFIER } from '../../core/ports/product-type-classifier.ts';
import { GltfTransformGlbIO } from '../../adapters/builtin/shoe3d/glb-io.ts';
import { BuiltinPackshotCleaner, BuiltinPackshotCorrector, BuiltinProductTypeClassifier, BuiltinSingleShoeGuard } from '../../adapters/builtin/shoe3d/packshot-ports.ts';
import { EnhanceTextureStage } from '../../adapters/builtin/shoe3d/enhance-texture-stage.ts';
import { RefineLogosStage } from '../../adapters/builtin/shoe3d/refine-logos-stage.ts';
import { PreviewGridStage } from '../../adapters/builtin/shoe3d/preview-stage.ts';
import { ValidateStage } from '../../adapters/builtin/shoe3d/validate-stage.ts';
import { CompressStage } from '../../adapters/builtin/shoe3d/compress-stage.ts';
import { TRYON_STORE } from '../../core/tryon/tryon-store.ts';
import { PostgresTryOnStore } from '../../adapters/postgres/tryon-store.ts';
import { PERSON_ANALYZER } from '../../core/ports/person-analyzer.ts';
import { LearnedPersonAnalyzer } from '../../adapters/human/person-analyzer.ts';
import { PLATFORM_STORE } from '../../core/ports/platform-store.ts';
import { PostgresPlatformStore } from '../../adapters/postgres/platform-store.ts';
import { PLATFORM_APP_STORE } from '../../core/ports/platform-app-store.ts';
import { PostgresPlatformAppStore } from '../../adapters/postgres/platform-app-store.ts';
import { OWNER_DATA } from '../../core/ports/owner-data.ts';
import { PostgresOwnerData } from '../../adapters/postgres/owner-data.ts';
import { MONITORING_STORE } from '../../core/ports/monitoring-store.ts';
import { PostgresMonitoringStore } from '../../adapters/postgres/monitoring-store.ts';
import { FOOT_MEASUREMENT_STORE } from '../../core/ports/foot-measurement-store.ts';
import { PostgresFootMeasurementStore } from '../../adapters/postgres/foot-measurement-store.ts';
import { CPU_POOL } from '../../core/ports/cpu-pool.ts';
import { BATCH_STORE } from '../../core/ports/batch-store.ts';
import { PostgresBatchStore } from '../../adapters/postgres/batch-store.ts';
import { PLATFORM_USAGE } from '../../core/ports/platform-usage.ts';
import { PostgresPlatformUsage } from '../../adapters/postgres/platform-usage-store.ts';
import { PACKSHOT_CLASSIFIER } from '../../core/ports/packshot-classifier.ts';
import { PooledPackshotClassifier } from '../../adapters/builtin/shoe3d/pooled-packshot-classifier.ts';

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
  const codec = ctx.services.get(TOKENS.imageCodec);
  ctx.services.provide(TWIN_STORE, new PostgresTwinStore(ctx.pool));
  const personAnalyzer = new LearnedPersonAnalyzer();
  ctx.services.provide(PERSON_ANALYZER, personAnalyzer);
  ctx.services.provide(TWIN_RENDERER, new BuiltinTwinRenderer(codec, personAnalyzer));
  ctx.services.provide(TRYON_STORE, new PostgresTryOnStore(ctx.pool));
  ctx.services.provide(AR_OBJECT_STORE, new PostgresArObjectStore(ctx.pool));
  bindShoe3dAdapters(ctx);
  // baking and USDZ export (gltf-transform, models up to 30 MB) on pool threads, off the AR host's loop
  ctx.services.provide(AR_MODEL_PROCESSOR, new PooledArModelProcessor(new BuiltinArModelProcessor(codec), ctx.services.get(CPU_POOL)));
  ctx.services.provide(PLATFORM_STORE, new PostgresPlatformStore(ctx.pool));
  ctx.services.provide(PLATFORM_USAGE, new PostgresPlatformUsage(ctx.pool));
  ctx.services.provide(PLATFORM_APP_STORE, new PostgresPlatformAppStore(ctx.pool));
  ctx.services.provide(OWNER_DATA, new PostgresOwnerData(ctx.pool, ctx.blobs));
  ctx.services.provide(MONITORING_STORE, new PostgresMonitoringStore(ctx.pool));
  ctx.services.provide(FOOT_MEASUREMENT_STORE, new PostgresFootMeasurementStore(ctx.pool));
  ctx.services.provide(BATCH_STORE, new PostgresBatchStore(ctx.pool, ctx.config.webhook.maxAttempts));
  ctx.services.provide(PACKSHOT_CLASSIFIER, new PooledPackshotClassifier(ctx.services.get(CPU_POOL)));
}

/**
 * The shoe-3d ports: the packshot steps, GLB I/O and the model stages in the order they run on the
 * one document (texture enhancement, logo refinement, preview, then in "store results" validation
 * before compression, whose meshopt buffers the validator cannot read).
 */
function bindShoe3dAdapters(ctx: AdapterContext): void {
  const codec = ctx.services.get(TOKENS.imageCodec);
  const io = new GltfTransformGlbIO();
  ctx.services.provide(PACKSHOT_CORRECTOR, new BuiltinPackshotCorrector());
  ctx.services.provide(PACKSHOT_CLEANER, new BuiltinPackshotCleaner());
  ctx.services.provide(SINGLE_SHOE_GUARD, new BuiltinSingleShoeGuard());
  ctx.services.provide(PRODUCT_TYPE_CLASSIFIER, new BuiltinProductTypeClassifier());
  ctx.services.provide(GLB_IO, io);
  ctx.services.provide(MODEL_STAGES, [new EnhanceTextureStage(codec), new RefineLogosStage(codec), new PreviewGridStage(codec), new ValidateStage(), new CompressStage(codec, io)]);
}
