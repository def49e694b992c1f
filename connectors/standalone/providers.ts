import { ConfigError } from '../../core/config.ts';
import type { FitroomConfig } from '../../core/config.ts';
import type { ServiceContainer } from '../../core/kernel.ts';
import { TOKENS } from '../../core/tokens.ts';
import type { ImageModelProvider } from '../../core/ports/image-model.ts';
import type { ProductReconstructor } from '../../core/ports/product-reconstructor.ts';
import { ModelRegistry } from '../../core/tryon/models.ts';
import { GeminiImageModel } from '../../adapters/gemini/image-model.ts';
import { FalImageModel } from '../../adapters/fal/image-model.ts';
import { MeshyProductReconstructor } from '../../adapters/meshy/product-reconstructor.ts';
import { TripoProductReconstructor } from '../../adapters/tripo/product-reconstructor.ts';
import { BuiltinTryOnProvider } from '../../adapters/builtin/tryon/provider.ts';
import { BuiltinProductReconstructor } from '../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { SharpImageCodec } from '../../adapters/sharp/image-codec.ts';

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
  if (ai.falKey) imageModels.push(new FalImageModel({ apiKey: ai.falKey }));
  else missing.push('fal (FAL_KEY)');
  if (ai.meshyApiKey) reconstructors.push(new MeshyProductReconstructor({ apiKey: ai.meshyApiKey }));
  else missing.push('meshy (MESHY_API_KEY)');
  if (ai.tripoApiKey) reconstructors.push(new TripoProductReconstructor({ apiKey: ai.tripoApiKey }));
  else missing.push('tripo (TRIPO_API_KEY)');
  // said once: the all-in-one service's worker process runs with the same settings
  if (missing.length > 0 && !process.env.FITROOM_WORKER_CHILD) log(`AI vendors without credentials, left out: ${missing.join(', ')}`);
  // the classical try-on engine needs no credentials: always present, last in the default chain
  imageModels.push(new BuiltinTryOnProvider(new SharpImageCodec()));
  reconstructors.push(new BuiltinProductReconstructor());

  // The configured reconstructor first (stable for the rest).
  reconstructors.sort((a, b) => Number(b.id === ai.reconstructor) - Number(a.id === ai.reconstructor));
  services.provide(TOKENS.imageModels, imageModels);
  services.provide(TOKENS.reconstructors, reconstructors);
}

/** Configuration errors of the AI backends, raised at start before anything else is opened. */
export function checkAiConfig(config: FitroomConfig): void {
  const { ai } = config;
  // An unknown model id in FITROOM_MODEL_CHAIN is a start-up error, not a failure of the first job.
  try {
    new ModelRegistry().resolveChain(ai.modelChain ?? undefined);
  } catch (e) {
    throw new ConfigError(`FITROOM_MODEL_CHAIN: ${(e as Error).message}`);
  }
  if (!RECONSTRUCTORS.includes(ai.reconstructor)) throw new ConfigError(`FITROOM_RECONSTRUCTOR must be one of ${RECONSTRUCTORS.join(', ')}, got "${ai.reconstructor}"`);
  if (ai.reconstructor === 'meshy' && !ai.meshyApiKey) throw new ConfigError('FITROOM_RECONSTRUCTOR is meshy but MESHY_API_KEY is not set');
  if (ai.reconstructor === 'tripo' && !ai.tripoApiKey) throw new ConfigError('FITROOM_RECONSTRUCTOR is tripo but TRIPO_API_KEY is not set');

}
