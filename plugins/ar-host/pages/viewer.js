/* global document */
import { config, log, modelsFor, showDebug, showSettings, waitUntilReady } from './common.js';

const viewers = [document.getElementById('viewer'), document.getElementById('viewer-pair')].filter(Boolean);

async function start() {
  showSettings();
  showDebug();
  if (!config.autofit || config.autofit.status !== 'finished') await waitUntilReady();
  const side = config.properties.side;
  const models = modelsFor(config.params.mirrorMode, side);
  viewers.forEach((v, i) => {
    const m = models[i] || models[0];
    // A model given by URL has no USDZ route: model-viewer builds the Quick Look file itself.
    if (m.usdz) v.setAttribute('ios-src', m.usdz);
    v.setAttribute('src', m.glb);
    if (config.params.turbo) v.setAttribute('min-renderscale', '0.5');
    v.addEventListener('load', () => {
      log('model loaded', m.glb);
      document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
      showDebug({ loaded: m.glb });
    });
    v.addEventListener('error', (e) => {
      log('model failed', e.detail);
      document.body.dataset.error = 'model';
    });
  });
}

start().catch((e) => log(e));
