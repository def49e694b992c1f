import { FitroomError } from '../../core/errors.ts';
import { definePlugin, type FitroomPlugin, type PluginApi, type Token } from '../../core/plugin.ts';
import { AR_LIBRARY } from '../../core/ports/ar-library.ts';
import { BATCH_STORE } from '../../core/ports/batch-store.ts';
import { GLB_IO, type GlbIO } from '../../core/ports/glb-io.ts';
import { MODEL_STAGES } from '../../core/ports/model-stage.ts';
import { PACKSHOT_CLEANER } from '../../core/ports/packshot-cleaner.ts';
import { PACKSHOT_CORRECTOR } from '../../core/ports/packshot-corrector.ts';
import { PRODUCT_TYPE_CLASSIFIER } from '../../core/ports/product-type-classifier.ts';
import { DEFAULT_SHOE3D_TIMEOUTS, SHOE3D_TIMEOUTS } from '../../core/ports/shoe3d-timeouts.ts';
import { SINGLE_SHOE_GUARD } from '../../core/ports/single-shoe-guard.ts';
import { TOKENS } from '../../core/tokens.ts';
import { BatchService, registerBatchOperations } from './batches.ts';
import { registerShoe3dOperations } from './operations.ts';
import { FILE_UPLOAD_RESULT, SHOE3D_OPTIONS, SHOE3D_REQUEST, SHOE3D_RESULT } from './schemas.ts';
import { shoe3dJobKind } from './shoe3d-job.ts';

/**
 * Shoe and bag photos to GLB: POST /api/v1/shoe-3d (a `shoe-3d` job) and POST /api/v1/files/upload
 * (GLBs for `glbInput`). Uses the ProductReconstructors, the packshot ports (corrector, cleaner,
 * single-shoe guard, product-type classifier; each optional), GlbIO and the model stages
 * (MODEL_STAGES, in order), all bound by the composition root, and the AR host's library
 * (AR_LIBRARY, optional: `uploadToService` needs it). SHOE3D_TIMEOUTS may override the 3 / 5
 * minute stage timeouts (builtin reconstruction, texture passes; vendors have their own task timeouts). Digitization batches (plugins/shoe3d/batches.ts) queue many shoe-3d items
 * at a lower priority through the BatchStore.
 */
export function createShoe3dPlugin(): FitroomPlugin {
  return definePlugin({
    name: 'shoe-3d',
    uses: [
      GLB_IO,
      MODEL_STAGES,
      { token: AR_LIBRARY, optional: true },
      { token: PACKSHOT_CORRECTOR, optional: true },
      { token: PACKSHOT_CLEANER, optional: true },
      { token: SINGLE_SHOE_GUARD, optional: true },
      { token: PRODUCT_TYPE_CLASSIFIER, optional: true },
    ],
    setup(api) {
      const jobs = api.get(TOKENS.jobs);
      const files = api.get(TOKENS.files);
      const blobs = api.get(TOKENS.blobStore);
      const optional = <T,>(t: Token<T>): T | null => (api.has(t) ? api.get(t) : null);
      const io = (): GlbIO => required(api, GLB_IO, 'The shoe-3d GLB reader is not configured on this deployment');
      api.schema('Shoe3dOptions', SHOE3D_OPTIONS);
      api.schema('Shoe3dRequest', SHOE3D_REQUEST);
      api.schema('Shoe3dResult', SHOE3D_RESULT);
      api.schema('FileUploadResult', FILE_UPLOAD_RESULT);
      api.jobKind(shoe3dJobKind(() => ({
        corrector: optional(PACKSHOT_CORRECTOR),
        cleaner: optional(PACKSHOT_CLEANER),
        guard: optional(SINGLE_SHOE_GUARD),
        classifier: optional(PRODUCT_TYPE_CLASSIFIER),
        reconstructors: api.get(TOKENS.reconstructors),
        io: io(),
        stages: required(api, MODEL_STAGES, 'The shoe-3d model stages are not configured on this deployment'),
        files,
        images: api.get(TOKENS.images),
        codec: api.get(TOKENS.imageCodec),
        config: api.config,
        library: optional(AR_LIBRARY),
        timeouts: optional(SHOE3D_TIMEOUTS) ?? DEFAULT_SHOE3D_TIMEOUTS,
      })));
      const deps = { api, io, jobs, files, blobs };
      registerShoe3dOperations(deps);
      registerBatchOperations(api, new BatchService(deps, api.get(BATCH_STORE)));
    },
  });
}

function required<T>(api: PluginApi, t: Token<T>, message: string): T {
  if (!api.has(t)) throw new FitroomError('SERVICE_UNAVAILABLE', message);
  return api.get(t);
}

export const shoe3dPlugin = createShoe3dPlugin();
export default shoe3dPlugin;
