import { ConfigError } from '../../core/config.ts';
import type { FitroomConfig } from '../../core/config.ts';
import type { ServiceContainer } from '../../core/kernel.ts';
import { TOKENS } from '../../core/tokens.ts';
import type { ImageModelProvider } from '../../core/ports/image-model.ts';
import type { ProductReconstructor } from '../../core/ports/product-reconstructor.ts';
import { DEFAULT_MODEL_CHAIN, modelRegistry, type ConfiguredModel } from '../../core/tryon/models.ts';
import { VendorStatus } from '../../core/vendor-status.ts';
import { VendorDiscoveryService } from '../../core/vendor-discovery.ts';
import type { VendorCatalog } from '../../core/ports/vendor-catalog.ts';
import { GeminiCatalog } from '../../adapters/gemini/discovery.ts';
import { FalCatalog } from '../../adapters/fal/discovery.ts';
import { MeshyCatalog } from '../../adapters/meshy/discovery.ts';
import { TripoCatalog } from '../../adapters/tripo/discovery.ts';
import { readFileSync } from 'node:fs';
import { GeminiImageModel } from '../../adapters/gemini/image-model.ts';
import { FalImageModel } from '../../adapters/fal/image-model.ts';
import { MeshyProductReconstructor } from '../../adapters/meshy/product-reconstructor.ts';
import { TripoProductReconstructor } from '../../adapters/tripo/product-reconstructor.ts';
import { BuiltinTryOnProvider } from '../../adapters/builtin/tryon/provider.ts';
import { BuiltinProductReconstructor } from '../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { SharpImageCodec } from '../../adapters/sharp/image-codec.ts';
import { SafeHttp } from '../../adapters/http/safe-http.ts';
import { tryOnProviders } from './tryon-vendors.ts';

const RECONSTRUCTORS = ['builtin', 'meshy', 'tripo'];

/**
 * AI backends from configuration: builtin engines are always present; a vendor adapter joins only
 * when its credentials are configured (a missing one is reported at start, not at the first job).
 */
export function registerAiProviders(config: FitroomConfig, services: ServiceContainer, log: (line: string) => void = (l) => console.log(`[fitroom] ${l}`)): void {
  const imageModels: ImageModelProvider[] = [];
  const reconstructors: ProductReconstructor[] = [];
  const { ai } = config;

  checkAiConfig(config);

  const missing: string[] = [];
  if (ai.geminiApiKey) imageModels.push(new GeminiImageModel({ apiKey: ai.geminiApiKey }));
  else missing.push('gemini (GEMINI_API_KEY)');
  if (ai.falKey) imageModels.push(new FalImageModel({ apiKey: ai.falKey, objectTtlSeconds: ai.falObjectTtlSeconds }));
  else missing.push('fal (FAL_KEY)');
  if (ai.meshyApiKey) reconstructors.push(new MeshyProductReconstructor({ apiKey: ai.meshyApiKey, aiModel: ai.meshyAiModel }));
  else missing.push('meshy (MESHY_API_KEY)');
  if (ai.tripoApiKey) reconstructors.push(new TripoProductReconstructor({ apiKey: ai.tripoApiKey, modelVersion: ai.tripoModelVersion }));
  else missing.push('tripo (TRIPO_API_KEY)');
  // dedicated try-on models (FASHN, Vertex, a Cog container, Replicate); result URLs of a Cog container go through the safe client
  imageModels.push(...tryOnProviders(config, services.has(TOKENS.outboundHttp) ? services.get(TOKENS.outboundHttp) : new SafeHttp({ allowedPrivateNetworks: config.allowedPrivateNetworks, ...config.fetch })));
  // said once: the all-in-one service's worker process runs with the same settings
  if (missing.length > 0 && !process.env.FITROOM_WORKER_CHILD) log(`AI vendors without credentials, left out: ${missing.join(', ')}`);
  // the classical try-on engine needs no credentials: always present, last in the default chain
  imageModels.push(new BuiltinTryOnProvider(new SharpImageCodec()));
  reconstructors.push(new BuiltinProductReconstructor());

  // The configured reconstructor first (stable for the rest).
  reconstructors.sort((a, b) => Number(b.id === ai.reconstructor) - Number(a.id === ai.reconstructor));
  services.provide(TOKENS.imageModels, imageModels);
  services.provide(TOKENS.reconstructors, reconstructors);
  retireLog = log;
  // The vendors' own model lists (and Meshy's and Tripo's balances): read at start and on a schedule.
  const catalogs: VendorCatalog[] = [];
  if (ai.geminiApiKey) catalogs.push(new GeminiCatalog({ apiKey: ai.geminiApiKey }));
  if (ai.falKey) catalogs.push(new FalCatalog({ apiKey: ai.falKey }));
  if (ai.meshyApiKey) catalogs.push(new MeshyCatalog({ apiKey: ai.meshyApiKey, aiModel: ai.meshyAiModel }));
  if (ai.tripoApiKey) catalogs.push(new TripoCatalog({ apiKey: ai.tripoApiKey, modelVersion: ai.tripoModelVersion }));
  const discovery = new VendorDiscoveryService({
    catalogs: () => catalogs,
    registry: modelRegistry,
    intervalMs: (ai.discoveryHours || 24 * 365) * 3_600_000,
    // said once: the all-in-one service's worker process reads the same lists
    log: (line) => (process.env.FITROOM_WORKER_CHILD ? undefined : log(line)),
  });
  services.provide(TOKENS.vendorDiscovery, discovery);
  services.provide(TOKENS.vendorStatus, new VendorStatus({
    discovery,
    imageModels: () => services.get(TOKENS.imageModels),
    reconstructors: () => services.get(TOKENS.reconstructors),
    chain: () => ai.modelChain ?? DEFAULT_MODEL_CHAIN,
    registry: modelRegistry,
    onResult: (v) => {
      // said once: the all-in-one service's worker process checks too (its chain is the one jobs use)
      if (process.env.FITROOM_WORKER_CHILD) return;
      if (v.status === 'ok') log(`AI vendor ${v.provider}: key accepted${v.models?.length ? `, ${v.models.map((m) => `${m.id} ${m.unverified ? 'pinned (not verifiable: no model list)' : 'present'}`).join(', ')}` : ''}${v.balance !== undefined ? `, ${v.balance} credits` : ''}${v.message ? ` (${v.message})` : ''}`);
      else log(`AI vendor ${v.provider}: ${v.status.replace('_', ' ')}${v.message ? `: ${v.message}` : ''}${v.status === 'unreachable' ? ' (carrying on; jobs fall back along the chain)' : ''}`);
    },
  }));
}

/** A model found retired while running is said once, loudly: it is a configuration error to fix. */
let retireLog: (line: string) => void = (l) => console.error(`[fitroom] ${l}`);
modelRegistry.onRetire((id, reason) => retireLog(`MODEL RETIRED: ${id} is left out of the model chain from now on (${reason}); update FITROOM_MODEL_CHAIN or FITROOM_MODELS`));

/**
 * FITROOM_MODELS (a JSON array) and FITROOM_MODELS_FILE (a file holding one): models added to the
 * catalogue or changed (ids, reference limits, parameters; `like` copies a known model; `retired`
 * takes one out), so a vendor's new or renamed model needs no release.
 */
export function configuredModels(ai: FitroomConfig['ai']): ConfiguredModel[] {
  const out: ConfiguredModel[] = [];
  const parse = (text: string, where: string) => {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`${where} is not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(v)) throw new ConfigError(`${where} must be a JSON array of models ({"id", "provider", "like", "maxReferences", "params", "retired"})`);
    out.push(...(v as ConfiguredModel[]));
  };
  if (ai.modelsFile) {
    let text: string;
    try {
      text = readFileSync(ai.modelsFile, 'utf8');
    } catch (e) {
      throw new ConfigError(`FITROOM_MODELS_FILE: cannot read ${ai.modelsFile}: ${(e as Error).message}`);
    }
    parse(text, `FITROOM_MODELS_FILE (${ai.modelsFile})`);
  }
  if (ai.models) parse(ai.models, 'FITROOM_MODELS');
  return out;
}

/** Configuration errors of the AI backends, raised at start before anything else is opened. */
export function checkAiConfig(config: FitroomConfig): void {
  const { ai } = config;
  try {
    modelRegistry.configure(configuredModels(ai));
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`FITROOM_MODELS: ${(e as Error).message}`);
  }
  // An unknown model id in FITROOM_MODEL_CHAIN is a start-up error, not a failure of the first job.
  try {
    modelRegistry.resolveChain(ai.modelChain ?? undefined);
  } catch (e) {
    throw new ConfigError(`FITROOM_MODEL_CHAIN: ${(e as Error).message}`);
  }
  if (!RECONSTRUCTORS.includes(ai.reconstructor)) throw new ConfigError(`FITROOM_RECONSTRUCTOR must be one of ${RECONSTRUCTORS.join(', ')}, got "${ai.reconstructor}"`);
  if (ai.reconstructor === 'meshy' && !ai.meshyApiKey) throw new ConfigError('FITROOM_RECONSTRUCTOR is meshy but MESHY_API_KEY is not set');
  if (ai.reconstructor === 'tripo' && !ai.tripoApiKey) throw new ConfigError('FITROOM_RECONSTRUCTOR is tripo but TRIPO_API_KEY is not set');

}
