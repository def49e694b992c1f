/* global document */
import { api, config, log, setStatus, showDebug, waitUntilReady } from './common.js';

/**
 * Accessory placement: scale, rotation and offset of an accessory model relative to the shoe
 * frame, previewed live (model-viewer `scale` and `orientation`) and saved as the object's
 * `placement` property.
 */
const viewer = document.getElementById('viewer');
const ids = ['scale', 'yaw', 'pitch', 'roll', 'ox', 'oy', 'oz'];
const input = (id) => document.getElementById(id);

function read() {
  const v = Object.fromEntries(ids.map((id) => [id, Number(input(id).value)]));
  return { scale: v.scale, rotationDeg: [v.pitch, v.yaw, v.roll], offset: [v.ox, v.oy, v.oz] };
}

function preview() {
  const p = read();
  viewer.setAttribute('scale', `${p.scale} ${p.scale} ${p.scale}`);
  // model-viewer's orientation is roll pitch yaw
  viewer.setAttribute('orientation', `${p.rotationDeg[2]}deg ${p.rotationDeg[0]}deg ${p.rotationDeg[1]}deg`);
  showDebug({ placement: p });
}

async function start() {
  if (!config.autofit || config.autofit.status !== 'finished') await waitUntilReady();
  const placement = config.properties.placement;
  if (placement && typeof placement === 'object') {
    input('scale').value = String(placement.scale ?? 1);
    const r = placement.rotationDeg || [0, 0, 0];
    input('pitch').value = String(r[0]);
    input('yaw').value = String(r[1]);
    input('roll').value = String(r[2]);
    const o = placement.offset || [0, 0, 0];
    input('ox').value = String(o[0]);
    input('oy').value = String(o[1]);
    input('oz').value = String(o[2]);
  }
  viewer.addEventListener('load', () => {
    document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
  });
  viewer.setAttribute('src', config.urls.glb);
  preview();
  for (const id of ids) input(id).addEventListener('input', preview);
  document.getElementById('save').addEventListener('click', async () => {
    const msg = document.getElementById('message');
    try {
      await api('/api/set_object_properties', { method: 'POST', body: JSON.stringify({ id: config.objectId, properties: { placement: read() } }) });
      msg.textContent = 'Saved';
    } catch (e) {
      msg.textContent = `Not saved: ${e.message}`;
      log(e);
    }
  });
  setStatus('');
}

start().catch((e) => log(e));
