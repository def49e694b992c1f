import { FitroomError } from '../../core/errors.ts';
import { definePlugin, type FitroomPlugin } from '../../core/plugin.ts';
import { AR_OBJECT_STORE } from '../../core/ports/ar-object-store.ts';
import { TOKENS } from '../../core/tokens.ts';
import { DEFAULT_SHOE3D_TIMEOUTS, SHOE3D_ENGINE, SHOE3D_TIMEOUTS, type Shoe3dEngine } from '../../core/ports/shoe3d-engine.ts';
import { registerShoe3dOperations } from './operations.ts';
import { BatchService, registerBatchOperations } from './batches.ts';
import { BATCH_STORE } from '../../core/ports/batch-store.ts';
import { FILE_UPLOAD_RESULT, SHOE3D_OPTIONS, SHOE3D_REQUEST, SHOE3D_RESULT } from './schemas.ts';
import { shoe3dJobKind } from './shoe3d-job.ts';

/**
 * Shoe and bag photos to GLB: POST /api/v1/shoe-3d (a `shoe-3d` job) and POST /api/v1/files/upload
 * (GLBs for `glbInput`). Needs a Shoe3dEngine bound to SHOE3D_ENGINE (the builtin one is
 * adapters/builtin/shoe3d/engine.ts) and the ProductReconstructors; uploads to the AR host go
 * through the ArObjectStore and the AR host's autofit job. SHOE3D_TIMEOUTS may override the
 * 3 / 5 minute stage timeouts. Digitization batches (plugins/shoe3d/batches.ts) queue many shoe-3d
 * items at a lower priority through the BatchStore.
 */
export function createShoe3dPlugin(): FitroomPlugin {
  return definePlugin({
    name: 'shoe-3d',
    setup(api) {
      const jobs = api.get(TOKENS.jobs);
      const files = api.get(TOKENS.files);
      const blobs = api.get(TOKENS.blobStore);
      const engine = (): Shoe3dEngine => {
        if (!api.has(SHOE3D_ENGINE)) throw new FitroomError('SERVICE_UNAVAILABLE', 'The shoe-3d engine is not configured on this deployment');
        return api.get(SHOE3D_ENGINE);
      };
      api.schema('Shoe3dOptions', SHOE3D_OPTIONS);
      api.schema('Shoe3dRequest', SHOE3D_REQUEST);
      api.schema('Shoe3dResult', SHOE3D_RESULT);
      api.schema('FileUploadResult', FILE_UPLOAD_RESULT);
      api.jobKind(shoe3dJobKind(() => ({
        engine: engine(),
        reconstructors: api.get(TOKENS.reconstructors),
        files,
        images: api.get(TOKENS.images),
        codec: api.get(TOKENS.imageCodec),
        blobs,
        jobs,
        config: api.config,
        arStore: api.has(AR_OBJECT_STORE) ? api.get(AR_OBJECT_STORE) : null,
        timeouts: api.has(SHOE3D_TIMEOUTS) ? api.get(SHOE3D_TIMEOUTS) : DEFAULT_SHOE3D_TIMEOUTS,
      })));
      const deps = { api, engine, jobs, files, blobs };
      registerShoe3dOperations(deps);
      registerBatchOperations(api, new BatchService(deps, api.get(BATCH_STORE)));
    },
  });
}

export const shoe3dPlugin = createShoe3dPlugin();
export default shoe3dPlugin;
