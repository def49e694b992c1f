import { definePlugin, type FitroomPlugin, type PluginApi } from '../../../core/plugin.ts';
import { standalonePlugins } from '../../../connectors/standalone/plugins.ts';
import { BuiltinProductReconstructor } from '../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { buildAtlas } from '../../../adapters/builtin/shoe3d/atlas.ts';
import { encodeRaster } from '../../../adapters/builtin/shoe3d/encode.ts';
import { vertexNormals } from '../../../adapters/builtin/shoe3d/mesh-ops.ts';
import { writeGlb } from '../../../adapters/gltf/write-glb.ts';
import { createShoe3dPlugin } from '../../../plugins/shoe3d/index.ts';
import { createRaster } from '../../../core/images.ts';
import { startTestService, type TestService } from '../../support/harness.ts';
import { makeShoeMesh, renderProductViews, rng } from '../../support/products.ts';

/**
 * The shoe-3d plugin with the builtin reconstructor bound, plus optional test bindings (timeouts,
 * reconstructors, a failing AR library) applied before any job runs. The composition root binds the
 * packshot ports, GLB I/O and the model stages.
 */
export function shoe3dPlugins(bind: (api: PluginApi) => void = () => undefined): FitroomPlugin[] {
  const bindings = definePlugin({
    name: 'shoe-3d-test-bindings',
    setup(api) {
      // the builtin reconstructor needs no credentials; bind it when the deployment did not
      const list = api.has(TOKENS.reconstructors) ? api.get(TOKENS.reconstructors) : [];
      if (!list.some((r) => r.id === 'builtin')) api.provide(TOKENS.reconstructors, [...list, new BuiltinProductReconstructor()]);
      bind(api);
    },
  });
  const installed = standalonePlugins().some((p) => p.name === 'shoe-3d');
  return installed ? [bindings] : [bindings, createShoe3dPlugin()];
}

export function startShoe3dService(bind?: (api: PluginApi) => void, opts: { env?: Record<string, string> } = {}): Promise<TestService> {
  return startTestService({ plugins: shoe3dPlugins(bind), env: opts.env });
}

import { pngDataUrl as dataUrl } from '../../support/images.ts';

export { dataUrl };

/** POST /api/v1/files/upload with a GLB (or, with null, a form without the file part). */
export async function uploadGlb(svc: TestService, key: string | null, bytes: Uint8Array | null, filename = 'model.glb'): Promise<{ status: number; body: any }> {
  const form = new FormData();
  if (bytes) form.append('file', new Blob([new Uint8Array(bytes)], { type: 'model/gltf-binary' }), filename);
  else form.append('note', 'no file here');
  const res = await fetch(`${svc.api}/api/v1/files/upload`, { method: 'POST', body: form, headers: key ? { 'x-api-key': key } : {} });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Orthographic packshots of the generated shoe on white, as data URLs. */
export async function shoePhotos(angles: number[], size = 320): Promise<string[]> {
  return Promise.all(renderProductViews(makeShoeMesh(), angles, { size }).map((v) => dataUrl(v.image)));
}

/** The generated shoe as a textured GLB (projection atlas); `noise` fills the texture with noise. */
export async function shoeGlb(textureSize = 256, noise = false): Promise<Uint8Array> {
  const shoe = makeShoeMesh(90, 36);
  const atlas = buildAtlas(shoe, textureSize);
  const normals = vertexNormals({ positions: atlas.positions, indices: atlas.indices });
  const tex = createRaster(textureSize, textureSize, [30, 50, 110, 255]);
  const r = rng(9);
  for (let i = 0; i < tex.data.length; i += 4) {
    if (noise) { tex.data[i] = r() * 255; tex.data[i + 1] = r() * 255; tex.data[i + 2] = r() * 255; }
    else if (((i / 4) % textureSize) % 16 < 3) tex.data[i] = 240; // stripes: something to enhance
  }
  return writeGlb({ positions: atlas.positions, normals, uvs: atlas.uvs, indices: atlas.indices, baseColor: await encodeRaster(tex, 'png') });
}

export function glbDataUrl(glb: Uint8Array): string {
  return `data:model/gltf-binary;base64,${Buffer.from(glb).toString('base64')}`;
}

/** Polls a job quickly, recording every status and progress value seen. */
export async function followJob(svc: TestService, key: string, jobId: string, timeoutMs = 120_000, headers: Record<string, string> = {}): Promise<{ job: any; statuses: string[]; progress: number[] }> {
  const statuses: string[] = [];
  const progress: number[] = [];
  const t0 = Date.now();
  for (;;) {
    const r = await svc.call('GET', `/api/v1/jobs/${jobId}`, { key, headers });
    if (r.status !== 200) throw new Error(`job read failed: ${r.status} ${r.text}`);
    if (statuses.at(-1) !== r.body.status) statuses.push(r.body.status);
    progress.push(r.body.progress);
    if (r.body.status === 'completed' || r.body.status === 'failed') return { job: r.body, statuses, progress };
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 60));
  }
}

/** Downloads a result URL (signed, no key needed). */
export async function download(url: string): Promise<{ status: number; bytes: Uint8Array; type: string | null }> {
  const res = await fetch(url);
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()), type: res.headers.get('content-type') };
}
