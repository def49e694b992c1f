import type { FitroomPlugin } from '../../core/plugin.ts';
import { corePlugin } from '../../core/api.ts';
import { twinsPlugin } from '../../plugins/twins/index.ts';
import { arHostPlugin } from '../../plugins/ar-host/index.ts';
import { shoe3dPlugin } from '../../plugins/shoe3d/index.ts';
import { tryonPlugin } from '../../plugins/tryon/index.ts';
import { storefrontPlugin } from '../../plugins/storefront/index.ts';
import { monitoringPlugin } from '../../plugins/monitoring/index.ts';
import { footMeasurementsPlugin } from '../../plugins/foot-measurements/index.ts';
import { texturePainterPlugin } from '../../plugins/texture-painter/index.ts';
import { discoveryPlugin } from '../../plugins/discovery/index.ts';
import { playgroundPlugin } from '../../plugins/playground/index.ts';

/** The capabilities the standalone service installs, in the order they are listed in the README. */
export function standalonePlugins(): FitroomPlugin[] {
  return [corePlugin, twinsPlugin, tryonPlugin, shoe3dPlugin, discoveryPlugin, arHostPlugin, storefrontPlugin, monitoringPlugin, footMeasurementsPlugin, texturePainterPlugin, playgroundPlugin];
}
