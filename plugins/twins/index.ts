import { definePlugin } from '../../core/plugin.ts';
import { TWIN_RENDERER } from '../../core/ports/twin-renderer.ts';
import { TWIN_STORE, TWINS } from '../../core/ports/twin-store.ts';
import { TOKENS } from '../../core/tokens.ts';
import { twinOperations } from './operations.ts';
import { TWIN_SCHEMAS } from './schemas.ts';
import { twinJobKind } from './twin-job.ts';
import { TwinService } from './twin-service.ts';
import { TwinsInline } from './inline-twins.ts';
import { INLINE_TWINS } from '../../core/tryon/inline-twins.ts';

/**
 * Digital twins and size fitting: POST /api/v1/digital-twin (a job that resolves the body, renders
 * it and stores it for 30 days), GET /api/v1/digital-twin/{id}, POST /api/v1/size-fitting, and an
 * hourly purge of expired twins and their files. Publishes the twins under TWINS for try-on.
 */
export const twinsPlugin = definePlugin({
  name: 'twins',
  setup(api) {
    const twins = new TwinService({
      store: api.get(TWIN_STORE),
      files: api.get(TOKENS.files),
      fileStore: api.get(TOKENS.fileStore),
      blobs: api.get(TOKENS.blobStore),
      codec: api.get(TOKENS.imageCodec),
      http: api.get(TOKENS.outboundHttp),
      config: api.config,
    });
    api.provide(TWINS, twins);
    for (const [name, schema] of Object.entries(TWIN_SCHEMAS)) api.schema(name, schema);
    // Resolved when a job runs, so the API process starts even where only workers render.
    const renderer = () => api.get(TWIN_RENDERER);
    const kind = twinJobKind({ twins, renderer, codec: api.get(TOKENS.imageCodec) });
    api.jobKind(kind);
    api.provide(INLINE_TWINS, new TwinsInline(twins, renderer, api.get(TOKENS.imageCodec), api.config));
    for (const op of twinOperations({ twins, jobs: api.get(TOKENS.jobs), config: api.config, estimatedSeconds: kind.estimatedSeconds })) api.operation(op);
    api.cron({
      task: 'fitroom_purge_twins',
      pattern: '41 * * * *',
      run: async () => {
        await twins.purgeExpired();
      },
    });
  },
});

export default twinsPlugin;
