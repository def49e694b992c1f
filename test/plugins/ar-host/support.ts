import { definePlugin } from '../../../core/plugin.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { AR_MODEL_PROCESSOR, AR_OBJECT_STORE } from '../../../core/ports/ar-object-store.ts';
import type { ArObjectStore } from '../../../core/ports/ar-object-store.ts';
import type { FitroomPlugin } from '../../../core/plugin.ts';
import { PostgresArObjectStore } from '../../../adapters/postgres/ar-object-store.ts';
import { BuiltinArModelProcessor } from '../../../adapters/builtin/ar/model-processor.ts';
import { arHostPlugin } from '../../../plugins/ar-host/index.ts';
import { ADMIN_KEY, startTestService } from '../../support/harness.ts';
import { standalonePlugins } from '../../../connectors/standalone/plugins.ts';
import type { TestService } from '../../support/harness.ts';

/**
 * Binds the AR host's ports for a test service. The store needs the service's pool, which exists
 * only once the service is composed, so it is bound as a forwarder that is connected right after.
 */
function arBindings(holder: { store: ArObjectStore | null }): FitroomPlugin {
  const forward = new Proxy({} as ArObjectStore, {
    get: (_t, prop) => {
      if (!holder.store) throw new Error('AR object store not connected yet');
      const v = (holder.store as unknown as Record<string | symbol, unknown>)[prop];
      return typeof v === 'function' ? v.bind(holder.store) : v;
    },
  });
  return definePlugin({
    name: 'ar-bindings',
    setup(api) {
      api.provide(AR_OBJECT_STORE, forward);
      api.provide(AR_MODEL_PROCESSOR, new BuiltinArModelProcessor(api.get(TOKENS.imageCodec)));
    },
  });
}

export interface ArTestService extends TestService {
  ar: string;
  store: ArObjectStore;
  /** Request against the AR host. */
  arCall(method: string, path: string, opts?: { bearer?: string; cookie?: string; body?: unknown; form?: FormData; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers; text: string; bytes: Uint8Array }>;
  /** A signed dashboard session through the admin API. */
  session(userId: string, opts?: { group?: string | null; admin?: boolean; ttlSeconds?: number }): Promise<string>;
  usage(keyId: string): Promise<number>;
}

export async function startArService(opts: { plugins?: FitroomPlugin[]; worker?: boolean; env?: Record<string, string> } = {}): Promise<ArTestService> {
  const holder: { store: ArObjectStore | null } = { store: null };
  // once the standalone service installs the AR host itself, its own bindings apply
  const installed = standalonePlugins().some((p) => p.name === arHostPlugin.name);
  const svc = await startTestService({ plugins: [...(installed ? [] : [arBindings(holder), arHostPlugin]), ...(opts.plugins ?? [])], worker: opts.worker, env: opts.env });
  holder.store = installed ? svc.fitroom.get(AR_OBJECT_STORE) : new PostgresArObjectStore(svc.fitroom.pool);
  const ar = svc.ar!;
  const creds = svc.fitroom.get(TOKENS.credentialStore);
  return {
    ...svc,
    ar,
    store: holder.store,
    async arCall(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
      if (o.cookie) headers.cookie = o.cookie;
      let body: BodyInit | undefined;
      if (o.form) body = o.form;
      else if (o.body !== undefined) {
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${ar}${path}`, { method, headers, body, redirect: 'manual' });
      const bytes = new Uint8Array(await res.arrayBuffer());
      const text = new TextDecoder().decode(bytes);
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, headers: res.headers, text, bytes };
    },
    async session(userId, s = {}) {
      const r = await svc.call('POST', '/admin/v1/ar/sessions', { headers: { 'x-admin-key': ADMIN_KEY }, body: { userId, ...s } });
      if (r.status !== 201) throw new Error(`session failed: ${r.status} ${r.text}`);
      return r.body.token as string;
    },
    async usage(keyId) {
      return (await creds.get(keyId))!.usageCount;
    },
  };
}

export function glbForm(glb: Uint8Array, fields: Record<string, string> = {}, filename = 'shoe.glb'): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([glb as BlobPart], { type: 'model/gltf-binary' }), filename);
  return form;
}

/** Polls autofit until it reaches a final status. */
export async function waitForAutofit(svc: ArTestService, id: string, colorId = 'default', timeoutMs = 90_000): Promise<any> {
  const t0 = Date.now();
  for (;;) {
    const r = await svc.arCall('GET', `/tryon/api/autofit_status?id=${id}&color_id=${colorId}`);
    if (r.status !== 200) throw new Error(`status read failed: ${r.status} ${r.text}`);
    if (r.body.status === 'finished' || r.body.status === 'failed') return r.body;
    if (Date.now() - t0 > timeoutMs) throw new Error(`autofit did not finish: ${r.text}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
