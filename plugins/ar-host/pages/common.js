/* global document, fetch, console, setTimeout */
/** Shared helpers of the viewer pages: configuration, logging, API calls. */
export const config = JSON.parse(document.getElementById('fitroom-config').textContent);

export const log = (...args) => {
  if (!config.params.noLogs) console.log('[fitroom]', ...args);
};

export function setStatus(text) {
  const el = document.getElementById('status');
  if (el) el.textContent = text;
}

export async function api(path, options = {}) {
  const res = await fetch(path, { credentials: 'same-origin', ...options, headers: { ...(options.body ? { 'content-type': 'application/json' } : {}), ...(options.headers || {}) } });
  const text = await res.text();
  let body;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const err = new Error(body && body.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return body;
}

/** Which model(s) to show for a mirror mode: the uploaded shoe, its mirror, or by foot side. */
export function modelsFor(mode, side) {
  const uploaded = { glb: config.urls.glb, usdz: config.urls.usdz };
  const mirrored = { glb: config.urls.mirrorGlb, usdz: config.urls.mirrorUsdz };
  switch (mode) {
    case 2: return [mirrored];
    case 3: return side === 'left' ? [uploaded, mirrored] : [mirrored, uploaded];
    case 4: return [side === 'left' ? uploaded : mirrored];
    case 5: return [side === 'right' ? uploaded : mirrored];
    default: return [uploaded];
  }
}

/** Waits for autofit to finish, reporting progress; resolves with the final status. */
export async function waitUntilReady() {
  for (;;) {
    const s = await api(config.urls.status);
    if (s.status === 'finished') {
      setStatus('');
      return s;
    }
    if (s.status === 'failed') {
      setStatus('The model could not be prepared.');
      throw new Error('autofit failed');
    }
    setStatus(`Preparing the model: ${s.status.replace('_', ' ')} ${s.progress}%`);
    await new Promise((r) => setTimeout(r, 1500));
  }
}

export function showDebug(extra = {}) {
  if (!config.params.debug) return;
  document.getElementById('debug').textContent = JSON.stringify({ params: config.params, autofit: config.autofit, properties: config.properties, ...extra }, null, 2);
}

export function showSettings() {
  if (!config.params.settings) return;
  const el = document.getElementById('settings');
  const p = config.params;
  el.textContent = '';
  const rows = [['Pose quality', p.poseQuality], ['Analysis size', `${p.nativeMlSize} px`], ['Mirror mode', p.mirrorMode], ['Turbo', p.turbo ? 'on' : 'off'], ['Async loading', p.asyncMode ? 'on' : 'off']];
  for (const [k, v] of rows) {
    const div = document.createElement('div');
    div.textContent = `${k}: ${v}`;
    el.appendChild(div);
  }
}

export function withCacheBuster(url) {
  return `${url}${url.includes('?') ? '&' : '?'}v=${Date.now()}`;
}
