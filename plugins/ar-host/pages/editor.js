/* global document */
import { api, config, log, setStatus, showDebug, waitUntilReady, withCacheBuster } from './common.js';

/**
 * Material editor: one row per part with its mode (embedded material, custom colour, hidden),
 * colour, roughness and metalness. Saving stores the colour preset through /api/set_materials and
 * reloads the model, which the server bakes with the saved preset.
 */
const OPTIONAL = /^(perforado_|grabado_|bordado_|picado_|ghost_|reflejo_ghost_|suelo)/;
const viewer = document.getElementById('viewer');
const presetSelect = document.getElementById('preset');
const tbody = document.querySelector('#parts tbody');
const message = document.getElementById('message');
let presets = {};
let current = config.colorId;

const toHex = (c) => {
  if (typeof c === 'string') return c.slice(0, 7).toLowerCase();
  if (!Array.isArray(c)) return '#808080';
  const enc = (v) => {
    const s = v <= 0.0031308 ? v * 12.92 : 1.055 * Math.pow(v, 1 / 2.4) - 0.055;
    return Math.round(Math.min(1, Math.max(0, s)) * 255).toString(16).padStart(2, '0');
  };
  return `#${enc(c[0])}${enc(c[1])}${enc(c[2])}`;
};

function modelUrl(colorId) {
  return `/api/get_gltf/${encodeURIComponent(config.objectId)}?color_id=${encodeURIComponent(colorId)}`;
}

function rowFor(part, setting) {
  const tr = document.createElement('tr');
  tr.dataset.part = part;
  const optional = OPTIONAL.test(part);
  let mode = optional ? 'hidden' : 'embedded';
  let color = '#808080';
  let roughness = 0.5;
  let metallic = 0;
  if (setting) {
    const m = setting.material;
    if (setting.visible === false) mode = 'hidden';
    else if (m === null || m === undefined) mode = optional ? 'hidden' : 'embedded';
    else if (Object.keys(m).length === 0) mode = 'hidden';
    else {
      mode = 'custom';
      if (m.baseColor !== undefined) color = toHex(m.baseColor);
      if (typeof m.roughness === 'number') roughness = m.roughness;
      if (typeof m.metallic === 'number') metallic = m.metallic;
    }
  }
  tr.innerHTML = `<td class="name"></td>
<td><input type="checkbox" class="shown"></td>
<td><select class="mode"><option value="embedded">${optional ? 'off' : 'embedded'}</option><option value="custom">custom</option><option value="hidden">hidden</option></select></td>
<td><input type="color" class="color"></td>
<td><input type="range" class="roughness" min="0" max="1" step="0.05"></td>
<td><input type="range" class="metallic" min="0" max="1" step="0.05"></td>`;
  tr.querySelector('.name').textContent = part;
  tr.querySelector('.shown').checked = mode !== 'hidden';
  tr.querySelector('.mode').value = mode;
  tr.querySelector('.color').value = color;
  tr.querySelector('.roughness').value = String(roughness);
  tr.querySelector('.metallic').value = String(metallic);
  const sync = () => {
    const modeSel = tr.querySelector('.mode');
    tr.querySelector('.shown').checked = modeSel.value !== 'hidden';
  };
  tr.querySelector('.mode').addEventListener('change', sync);
  tr.querySelector('.shown').addEventListener('change', (e) => {
    const modeSel = tr.querySelector('.mode');
    if (!e.target.checked) modeSel.value = 'hidden';
    else if (modeSel.value === 'hidden') modeSel.value = optional ? 'custom' : 'embedded';
  });
  // choosing a colour makes the part custom
  tr.querySelector('.color').addEventListener('input', () => {
    tr.querySelector('.mode').value = 'custom';
    tr.querySelector('.shown').checked = true;
  });
  return tr;
}

function render() {
  const parts = Array.isArray(config.properties.parts) ? config.properties.parts : [];
  const preset = presets[current] || { parts: {} };
  tbody.textContent = '';
  for (const part of parts) tbody.appendChild(rowFor(part, preset.parts[part]));
  presetSelect.textContent = '';
  const ids = new Set(['default', current, ...Object.keys(presets).filter((k) => !k.endsWith('_mirror'))]);
  for (const id of ids) {
    const opt = document.createElement('option');
    opt.value = id;
    opt.textContent = id;
    presetSelect.appendChild(opt);
  }
  presetSelect.value = current;
}

function collect() {
  const parts = {};
  for (const tr of tbody.querySelectorAll('tr')) {
    const mode = tr.querySelector('.mode').value;
    const part = tr.dataset.part;
    if (mode === 'hidden') parts[part] = { visible: false };
    else if (mode === 'embedded') parts[part] = { visible: true, material: null };
    else {
      parts[part] = {
        visible: true,
        material: { baseColor: tr.querySelector('.color').value, roughness: Number(tr.querySelector('.roughness').value), metallic: Number(tr.querySelector('.metallic').value) },
      };
    }
  }
  return { name: (presets[current] && presets[current].name) || current, parts };
}

async function loadPresets() {
  const m = await api(`/api/get_materials/${encodeURIComponent(config.objectId)}`);
  presets = m.materialsData || {};
  if (Array.isArray(m.parts) && m.parts.length) config.properties.parts = m.parts;
}

async function save() {
  message.textContent = 'Saving…';
  try {
    const preset = collect();
    await api('/api/set_materials', { method: 'POST', body: JSON.stringify({ id: config.objectId, color_id: current, preset }) });
    presets[current] = preset;
    message.textContent = 'Saved';
    document.body.dataset.saved = String(Number(document.body.dataset.saved || 0) + 1);
    viewer.setAttribute('src', withCacheBuster(modelUrl(current)));
  } catch (e) {
    message.textContent = e.status === 401 ? 'Sign in to save (dashboard session)' : e.status === 403 ? 'You may not change this object' : `Not saved: ${e.message}`;
    log(e);
  }
}

async function start() {
  if (!config.autofit || config.autofit.status !== 'finished') await waitUntilReady();
  await loadPresets();
  render();
  showDebug({ presets });
  viewer.addEventListener('load', () => {
    document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
  });
  viewer.setAttribute('src', modelUrl(current));
  presetSelect.addEventListener('change', () => {
    current = presetSelect.value;
    render();
    viewer.setAttribute('src', modelUrl(current));
  });
  document.getElementById('add-preset').addEventListener('click', () => {
    const id = document.getElementById('new-preset').value.trim();
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
      message.textContent = 'Preset ids use letters, digits, - and _';
      return;
    }
    presets[id] = presets[id] || { name: id, parts: JSON.parse(JSON.stringify((presets[current] || { parts: {} }).parts)) };
    current = id;
    render();
  });
  document.getElementById('save').addEventListener('click', save);
  setStatus('');
}

start().catch((e) => {
  setStatus(`Could not open the editor: ${e.message}`);
  log(e);
});
