import { definePlugin } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { AR_LIBRARY } from '../../core/ports/ar-library.ts';
import { AR_MODEL_PROCESSOR, AR_OBJECT_STORE } from '../../core/ports/ar-object-store.ts';
import { ArAuth } from './ar-auth.ts';
import { autofitJobKind } from './autofit-job.ts';
import type { ArRouteDeps } from './context.ts';
import { registerFileRoutes } from './file-routes.ts';
import { ArObjectService } from './object-service.ts';
import { registerObjectRoutes } from './object-routes.ts';
import { registerPageRoutes } from './page-routes.ts';
import { AR_SCHEMAS } from './schemas.ts';
import { registerSessionRoutes } from './session-routes.ts';
import { SessionTokens } from './session-token.ts';
import { registerTryOnRoutes } from './tryon-routes.ts';

/**
 * The AR host (AR_PORT): shoe uploads with autofit, object metadata and colour presets, GLB and
 * USDZ files, try-on shortcuts, bug reports and the viewer pages. Needs the ArObjectStore and
 * ArModelProcessor ports bound by the composition root; provides the AR library service
 * (AR_LIBRARY) through which other plugins add models with autofit.
 */
export const arHostPlugin = definePlugin({
  name: 'ar-host',
  setup(api) {
    const store = api.get(AR_OBJECT_STORE);
    const models = api.get(AR_MODEL_PROCESSOR);
    const sessions = new SessionTokens(api.get(TOKENS.signingSecret));
    const auth = new ArAuth(api.get(TOKENS.credentials), sessions);
    const objects = new ArObjectService({ store, blobs: api.get(TOKENS.blobStore), jobs: api.get(TOKENS.jobs), models, codec: api.get(TOKENS.imageCodec) });
    for (const [name, schema] of Object.entries(AR_SCHEMAS)) api.schema(name, schema);
    api.auth('bearer', auth.resolver());
    api.jobKind(autofitJobKind(objects, models));
    // other plugins add models to the library through this service (shoe-3d's uploadToService)
    api.provide(AR_LIBRARY, objects.library());
    const deps: ArRouteDeps = { api, objects, store, auth, sessions };
    registerObjectRoutes(deps);
    registerFileRoutes(deps);
    registerTryOnRoutes(deps);
    registerSessionRoutes(deps);
    registerPageRoutes(deps);
  },
});

export default arHostPlugin;
