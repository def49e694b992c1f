import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { loadConfig } from '../../core/config.ts';
import type { ServiceContainer } from '../../core/kernel.ts';
import type { Token } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { createRaster } from '../../core/images.ts';
import { ProviderError, type ImageModelProvider, type ModelSpec } from '../../core/ports/image-model.ts';
import type { ProductReconstructor } from '../../core/ports/product-reconstructor.ts';
import type { VendorDiscovery } from '../../core/ports/vendor-catalog.ts';
import { DEFAULT_MODEL_CHAIN, modelRegistry } from '../../core/tryon/models.ts';
import { registerAiProviders } from './providers.ts';
import { checkVendors, formatChecks } from './doctor.ts';

/**
 * `fitroom vendors check [--live] [--3d]`: without --live, the free check of `doctor` (keys, model
 * lists, credits). With --live, the smallest real call per configured vendor: a tiny generated image
 * through the image model the chain would use (draft quality), its answer checked the way the adapter
 * reads it (an image that decodes), with latency and cost; Meshy and Tripo answer their balance (a 3D
 * task costs credits and minutes: only with --3d). It spends a little money: never run it in CI.
 */

export const VENDORS_USAGE = `  fitroom vendors check          asks each configured AI vendor: key, model list, credits (free)
  fitroom vendors check --live   the smallest real call per vendor (a tiny image, draft quality): answer's
                                   shape, latency, cost. Costs a few cents; --3d also runs one 3D task`;

export interface VendorsOut {
  log(line: string): void;
  error(line: string): void;
}

interface LiveResult {
  provider: string;
  outcome: 'ok' | 'shape' | 'refused' | 'offline' | 'failed';
  detail: string;
  latencyMs?: number;
  cost?: string;
}

/** Where each vendor publishes its prices, for the answers that carry no cost. */
const PRICE_PAGES: Record<string, string> = {
  gemini: 'https://ai.google.dev/gemini-api/docs/pricing',
  fal: 'https://fal.ai/pricing',
  meshy: 'https://docs.meshy.ai/en/api/pricing',
  tripo: 'https://platform.tripo3d.ai/pricing',
};

export async function vendorsCommand(command: string | undefined, args: string[], env: NodeJS.ProcessEnv, out: VendorsOut = { log: (l) => console.log(l), error: (l) => console.error(l) }): Promise<number> {
  if (command !== 'check') {
    out.error(`Usage:\n${VENDORS_USAGE}`);
    return 2;
  }
  const { values } = parseArgs({ args, options: { live: { type: 'boolean' }, '3d': { type: 'boolean' } }, allowPositionals: false });
  const config = loadConfig(env);
  const { ai } = config;
  const configured = [ai.geminiApiKey && 'gemini', ai.falKey && 'fal', ai.meshyApiKey && 'meshy', ai.tripoApiKey && 'tripo'].filter((x): x is string => Boolean(x));
  if (!configured.length) {
    out.log('No AI vendor is configured (GEMINI_API_KEY, FAL_KEY, MESHY_API_KEY, TRIPO_API_KEY): nothing to check. Every capability runs on the builtin engines.');
    return 0;
  }
  if (!values.live) {
    const check = await checkVendors(config);
    out.log(formatChecks([check]).split('\n\n')[0]);
    return check.level === 'fail' ? 1 : 0;
  }

  const bound = new Map<symbol, unknown>();
  const services: ServiceContainer = { get: <T>(t: Token<T>) => bound.get(t.key) as T, has: (t) => bound.has(t.key), provide: (t, v) => void bound.set(t.key, v) };
  registerAiProviders(config, services, () => undefined);
  // the model lists first: the live call goes to a model the vendor still offers
  const discovered = await services.get(TOKENS.vendorDiscovery).refresh(20_000);
  const chain = ai.modelChain ?? DEFAULT_MODEL_CHAIN;
  const results: LiveResult[] = [];
  for (const provider of services.get(TOKENS.imageModels)) {
    if (provider.id === 'builtin') continue;
    results.push(await liveImage(provider, chain, provider.id === 'fal' ? ai.falKey! : null));
  }
  for (const r of services.get(TOKENS.reconstructors)) {
    if (r.id === 'builtin') continue;
    results.push(await live3d(r, discovered.find((d) => d.provider === r.id), values['3d'] === true, services));
  }

  out.log('Live vendor check (real calls, billed by the vendors):');
  for (const r of results) {
    const mark = r.outcome === 'ok' ? 'ok  ' : 'FAIL';
    out.log(`${mark}  ${r.provider.padEnd(7)} ${r.detail}${r.latencyMs !== undefined ? `; ${r.latencyMs} ms` : ''}${r.cost ? `; cost: ${r.cost}` : ''}`);
  }
  if (results.length && results.every((r) => r.outcome === 'offline')) {
    out.error('No network: no vendor could be reached (check the connection, a proxy or a firewall). Jobs would fall back to the builtin engines.');
    return 1;
  }
  const bad = results.filter((r) => r.outcome !== 'ok');
  if (bad.length) out.error(`${bad.length} vendor${bad.length > 1 ? 's' : ''} failed the live check (see FAIL above).`);
  return bad.length ? 1 : 0;
}

/** The model of this provider the chain would call first (a family's member), still offered and not deprecated. */
function pickModel(provider: ImageModelProvider, chain: readonly string[]): ModelSpec | undefined {
  const usable = (id: string | undefined) => id !== undefined && !modelRegistry.retiredReason(id) && !modelRegistry.deprecation(id);
  // the chain's entries first, then the vendor's other catalogue models; a family entry stands for its member
  for (const id of [...chain, ...provider.models().map((m) => m.id)]) {
    const target = modelRegistry.target(id);
    const spec = target ? modelRegistry.get(target) : undefined;
    if (spec?.provider === provider.id && usable(target) && spec.tasks.includes('generate') && spec.maxReferences >= 1) return spec;
  }
  return undefined;
}

async function liveImage(provider: ImageModelProvider, chain: readonly string[], falKey: string | null): Promise<LiveResult> {
  const spec = pickModel(provider, chain);
  if (!spec) return { provider: provider.id, outcome: 'failed', detail: 'no usable model of this vendor in the catalogue (all retired or deprecated)' };
  // a 32x32 two-colour square: the smallest input every edit model accepts
  const tiny = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 230, g: 230, b: 230 } } })
    .composite([{ input: { create: { width: 16, height: 16, channels: 3, background: { r: 40, g: 90, b: 200 } } }, left: 8, top: 8 }])
    .png()
    .toBuffer();
  const started = performance.now();
  try {
    const images = await provider.run({
      task: 'generate',
      model: spec.id,
      prompt: 'Return this image unchanged.',
      references: [{ role: 'input', image: { bytes: new Uint8Array(tiny), contentType: 'image/png' } }],
      quality: 'draft',
      signal: AbortSignal.timeout(180_000),
    });
    const latencyMs = Math.round(performance.now() - started);
    const first = images[0];
    if (!first) return { provider: provider.id, outcome: 'shape', detail: `${spec.id}: the answer held no image`, latencyMs };
    const meta = await sharp(Buffer.from(first.bytes)).metadata().catch(() => null);
    if (!meta?.width || !meta.height) return { provider: provider.id, outcome: 'shape', detail: `${spec.id}: the answer's image does not decode (${first.contentType}, ${first.bytes.byteLength} bytes)`, latencyMs };
    return { provider: provider.id, outcome: 'ok', detail: `${spec.id} answered a ${meta.width}x${meta.height} ${meta.format} image`, latencyMs, cost: await priceOf(provider.id, spec.id, falKey) };
  } catch (e) {
    return { provider: provider.id, ...classify(e), latencyMs: Math.round(performance.now() - started), detail: `${spec.id}: ${(e as Error).message}` } as LiveResult;
  }
}

/** fal publishes prices per endpoint (`GET /v1/models/pricing`); the others on their price pages. */
async function priceOf(provider: string, model: string, falKey: string | null): Promise<string> {
  if (provider === 'fal' && falKey) {
    try {
      const res = await fetch(`https://api.fal.ai/v1/models/pricing?endpoint_id=${encodeURIComponent(model)}`, { headers: { authorization: `Key ${falKey}` }, signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as { prices?: { endpoint_id?: string; unit_price?: number; unit?: string; currency?: string }[] };
      const p = body.prices?.find((x) => x.endpoint_id === model);
      if (res.ok && p && typeof p.unit_price === 'number') return `${p.unit_price} ${p.currency ?? 'USD'} per ${p.unit ?? 'unit'} (fal pricing API)`;
    } catch {
      // fall through to the price page
    }
  }
  return `not reported in the answer; see ${PRICE_PAGES[provider] ?? 'the vendor\'s price list'}`;
}

async function live3d(r: ProductReconstructor, d: VendorDiscovery | undefined, runTask: boolean, services: ServiceContainer): Promise<LiveResult> {
  if (!d) return { provider: r.id, outcome: 'failed', detail: 'no balance read' };
  if (d.status !== 'ok') return { provider: r.id, outcome: d.status === 'unreachable' ? 'offline' : 'refused', detail: `balance: ${d.status.replace('_', ' ')}${d.message ? `: ${d.message}` : ''}` };
  const credits = d.balance !== undefined ? `${d.balance} credits` : 'balance answered';
  if (!runTask) return { provider: r.id, outcome: 'ok', detail: `key accepted, ${credits}; ${d.pinned?.join(', ') ?? 'the pinned model'} not verifiable without a task (add --3d to run one: credits and 1-5 minutes)`, cost: 'none (balance read)' };
  const raster = createRaster(64, 64, [0, 0, 0, 0]);
  for (let y = 16; y < 48; y++) for (let x = 8; x < 56; x++) raster.data.set([60, 60, 70, 255], (y * 64 + x) * 4);
  const png = await sharp(Buffer.from(raster.data), { raw: { width: 64, height: 64, channels: 4 } }).png().toBuffer();
  const started = performance.now();
  try {
    const result = await r.reconstruct({ views: [{ image: raster, encoded: { bytes: new Uint8Array(png), contentType: 'image/png' }, angleDeg: 0 }], productType: 'other', quality: 'default', signal: AbortSignal.timeout(15 * 60_000) });
    const latencyMs = Math.round(performance.now() - started);
    const after = (await services.get(TOKENS.vendorDiscovery).refresh(20_000)).find((x) => x.provider === r.id)?.balance;
    const spent = d.balance !== undefined && after !== undefined ? `${Math.round((d.balance - after) * 100) / 100} credits (balance ${d.balance} -> ${after})` : 'see the vendor\'s task history';
    return { provider: r.id, outcome: 'ok', detail: `a ${result.glb.byteLength}-byte GLB`, latencyMs, cost: spent };
  } catch (e) {
    return { provider: r.id, ...classify(e), latencyMs: Math.round(performance.now() - started), detail: (e as Error).message } as LiveResult;
  }
}

/** A failure as the merchant acts on it: no network, a refusal (key, credits, input), or an answer of the wrong shape. */
function classify(e: unknown): Pick<LiveResult, 'outcome'> {
  if (!(e instanceof ProviderError)) return { outcome: 'failed' };
  if (e.status === undefined && /network error|timed out|fetch failed|ENOTFOUND|ECONNREFUSED|EAI_AGAIN/i.test(e.message)) return { outcome: 'offline' };
  if (e.status !== undefined && e.status >= 400) return { outcome: 'refused' };
  // the vendor answered, but not in the shape the adapter reads (no candidates, no image, unreadable body)
  return { outcome: 'shape' };
}
