import type { OperationContext, PluginApi } from '../../core/plugin.ts';
import type { ArObjectStore } from '../../core/ports/ar-object-store.ts';
import type { ArAuth, ArPrincipal } from './ar-auth.ts';
import { unauthorized } from './ar-auth.ts';
import type { ArObjectService } from './object-service.ts';
import type { SessionTokens } from './session-token.ts';

/** What the AR host's route modules share. */
export interface ArRouteDeps {
  api: PluginApi;
  objects: ArObjectService;
  store: ArObjectStore;
  auth: ArAuth;
  sessions: SessionTokens;
}

export function principalOf(deps: ArRouteDeps, ctx: OperationContext): ArPrincipal | null {
  return deps.auth.principal(ctx.caller);
}

export function requirePrincipal(deps: ArRouteDeps, ctx: OperationContext): ArPrincipal {
  const p = principalOf(deps, ctx);
  if (!p) throw unauthorized();
  return p;
}

/** Public reads may be embedded anywhere (shop pages load models from the AR host). */
export const PUBLIC_READ_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-cache' };
