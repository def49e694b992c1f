import { ConfigError } from '../../core/config.ts';
import type { FitroomConfig } from '../../core/config.ts';
import type { ImageModelProvider } from '../../core/ports/image-model.ts';
import type { OutboundHttp } from '../../core/ports/outbound-http.ts';
import { FashnImageModel } from '../../adapters/fashn/image-model.ts';
import { VertexImageModel } from '../../adapters/vertex/image-model.ts';
import { CogImageModel, type CogInputMap } from '../../adapters/cog/image-model.ts';

/**
 * The dedicated try-on vendors from configuration: FASHN (FASHN_API_KEY), Vertex AI Virtual Try-On
 * (VERTEX_PROJECT, with VERTEX_CREDENTIALS_JSON or Google's Application Default Credentials), the
 * merchant's own Cog container (FITROOM_COG_URL) and Replicate (REPLICATE_API_TOKEN + REPLICATE_MODEL).
 * Each joins only when configured (they are optional extras: none is reported missing); a
 * misconfiguration stops the start and names the variable.
 */
export function tryOnProviders(config: FitroomConfig, outbound: OutboundHttp): ImageModelProvider[] {
  const t = config.ai.tryOn;
  const providers: ImageModelProvider[] = [];
  const build = (what: string, make: () => ImageModelProvider) => {
    try {
      providers.push(make());
    } catch (e) {
      throw new ConfigError(`${what}: ${(e as Error).message}`);
    }
  };
  if (t.fashnApiKey) build('FASHN_API_KEY', () => new FashnImageModel({ apiKey: t.fashnApiKey! }));
  if (t.vertexProject) {
    const credentials = t.vertexCredentialsJson ? jsonObject('VERTEX_CREDENTIALS_JSON', t.vertexCredentialsJson) : undefined;
    build('VERTEX_PROJECT', () => new VertexImageModel({ project: t.vertexProject!, location: t.vertexLocation, credentials }));
  }
  if (t.cogUrl) {
    const inputs = t.cogInputs ? (jsonObject('FITROOM_COG_INPUTS', t.cogInputs) as unknown as CogInputMap) : undefined;
    build('FITROOM_COG_URL', () => new CogImageModel({ id: 'cog', baseUrl: t.cogUrl!, token: t.cogToken ?? undefined, inputs, outbound }));
  }
  if (t.replicateApiToken) {
    const inputs = t.replicateInputs ? (jsonObject('REPLICATE_INPUTS', t.replicateInputs) as unknown as CogInputMap) : undefined;
    build('REPLICATE_MODEL', () => new CogImageModel({ id: 'replicate', token: t.replicateApiToken!, model: t.replicateModel ?? undefined, inputs }));
  }
  return providers;
}

function jsonObject(name: string, text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${name} is not valid JSON: ${(e as Error).message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(`${name} must be a JSON object`);
  return v as Record<string, unknown>;
}
