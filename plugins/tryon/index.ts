import { CPU_POOL } from '../../core/ports/cpu-pool.ts';
import { definePlugin } from '../../core/plugin.ts';
import { TWINS } from '../../core/ports/twin-store.ts';
import { TOKENS } from '../../core/tokens.ts';
import { INLINE_TWINS } from '../../core/tryon/inline-twins.ts';
import { PERSON_ANALYZER } from '../../core/ports/person-analyzer.ts';
import { TRYON_STORE } from '../../core/tryon/tryon-store.ts';
import { generateJobKind, poseTransferJobKind } from './generate-jobs.ts';
import { tryOnOperations } from './operations.ts';
import { TRYON_SCHEMAS } from './schemas.ts';
import { tryOnJobKind } from './tryon-job.ts';
import { TryOnService } from './tryon-service.ts';

/**
 * Virtual try-on: POST /api/v1/virtual-fitting, /api/v1/tryon/clothing, /api/v1/tryon/shoes,
 * /api/v1/generate and /api/v1/pose-transfer; the try-on, generation and pose-transfer job kinds;
 * the result cache (and its hourly purge) and the monthly AI quota.
 */
export const tryonPlugin = definePlugin({
  name: 'tryon',
  after: ['twins'],
  setup(api) {
    const optional = <T>(t: Parameters<typeof api.get<T>>[0]) => () => (api.has(t) ? api.get(t) : null);
    const providers = () => api.get(TOKENS.imageModels);
    const store = api.get(TRYON_STORE);
    const files = api.get(TOKENS.files);
    const codec = api.get(TOKENS.imageCodec);
    for (const [name, schema] of Object.entries(TRYON_SCHEMAS)) api.schema(name, schema);

    const kind = tryOnJobKind({ files, codec, config: api.config, store, providers, twins: optional(TWINS), inlineTwins: optional(INLINE_TWINS), personAnalyzer: optional(PERSON_ANALYZER) });
    const generate = generateJobKind({ files, codec, config: api.config, providers });
    api.jobKind(kind);
    api.jobKind(generate);
    api.jobKind(poseTransferJobKind({ files, codec, config: api.config, providers }));

    const service = new TryOnService({
      jobs: api.get(TOKENS.jobs),
      files,
      images: api.get(TOKENS.images),
      config: api.config,
      store,
      credentialStore: api.get(TOKENS.credentialStore),
      providers,
      twins: optional(TWINS),
      inlineTwins: optional(INLINE_TWINS),
      estimatedSeconds: kind.estimatedSeconds,
      pool: api.get(CPU_POOL),
    });
    for (const op of tryOnOperations({ service, jobs: api.get(TOKENS.jobs), generateSeconds: generate.estimatedSeconds })) api.operation(op);
    api.cron({
      task: 'fitroom_purge_tryon_results',
      pattern: '47 * * * *',
      run: async () => {
        await store.purgeExpired(new Date(), 1000);
      },
    });
  },
});

export default tryonPlugin;
