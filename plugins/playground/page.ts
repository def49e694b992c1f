import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const PAGES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pages');
/** The walkthrough's sample photos (real photos with their sources in examples/assets/PROVENANCE.md). */
const EXAMPLES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../examples/assets');

const ASSETS: Record<string, { file: () => string; type: string }> = {
  'model-viewer.min.js': { file: () => require.resolve('@google/model-viewer/dist/model-viewer.min.js'), type: 'text/javascript; charset=utf-8' },
  'playground.js': { file: () => path.join(PAGES_DIR, 'playground.js'), type: 'text/javascript; charset=utf-8' },
  'playground.css': { file: () => path.join(PAGES_DIR, 'playground.css'), type: 'text/css; charset=utf-8' },
  'face-photo.jpg': { file: () => path.join(EXAMPLES_DIR, 'face-photo.jpg'), type: 'image/jpeg' },
};
const cache = new Map<string, Buffer>();

export function playgroundAsset(name: string): { bytes: Buffer; type: string } | null {
  const a = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!a) return null;
  let bytes = cache.get(name);
  if (!bytes) {
    // the sample photos are not part of the npm package: without them the page hides the button
    if (!existsSync(a.file())) return null;
    cache.set(name, (bytes = readFileSync(a.file())));
  }
  return { bytes, type: a.type };
}

/** Only the host's own scripts; images and models come from the API host, dropped files from data: URLs. */
export const PLAYGROUND_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self' data: blob:",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function renderPlaygroundPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fitroom playground</title>
<link rel="stylesheet" href="/playground/assets/playground.css">
<script type="module" src="/playground/assets/model-viewer.min.js"></script>
<script type="module" src="/playground/assets/playground.js"></script>
</head>
<body>
<header><h1>Fitroom playground</h1><nav><a href="/docs">API reference</a></nav></header>
<main>
<section class="panel" id="setup">
  <label for="key">API key <small>(kept in this tab's session storage only; create one with <code>npx fitroom keys create --name me</code>)</small></label>
  <input id="key" type="password" autocomplete="off" spellcheck="false" placeholder="fr_live_…">
  <label for="operation">Operation</label>
  <select id="operation">
    <option value="digital-twin">Digital twin: a face and measurements</option>
    <option value="size-fitting">Size fitting: a twin against a size chart</option>
    <option value="virtual-fitting">Virtual fitting: a twin in garments</option>
    <option value="shoe-3d">Shoe-3d: product photos to a 3D model</option>
  </select>
  <form id="form" novalidate>
    <fieldset data-op="digital-twin">
      <div class="drop" data-field="faceImage" data-label="Face photo" data-sample="face-photo.jpg"></div>
      <div class="row"><label>Gender <select name="gender"><option>female</option><option>male</option></select></label>
      <label>Height cm <input name="height" type="number" value="168" min="50" max="250"></label>
      <label>Chest cm <input name="chest" type="number" value="92"></label>
      <label>Waist cm <input name="waist" type="number" value="74"></label></div>
    </fieldset>
    <fieldset data-op="size-fitting" hidden>
      <label>Digital twin id <input name="twinId" class="twin-id" spellcheck="false" placeholder="from a digital-twin job"></label>
      <label>Products (JSON) <textarea name="products" rows="8" spellcheck="false">[{"id":"tee","category":"top","sizeChart":{"version":1,"basis":"body","unit":"cm","sizes":[
 {"label":"S","measurements":{"chest":{"min":82,"max":90}}},
 {"label":"M","measurements":{"chest":{"min":90,"max":98}}},
 {"label":"L","measurements":{"chest":{"min":98,"max":106}}}]}}]</textarea></label>
    </fieldset>
    <fieldset data-op="virtual-fitting" hidden>
      <label>Digital twin id <input name="twinId" class="twin-id" spellcheck="false" placeholder="from a digital-twin job"></label>
      <div class="row"><div class="drop" data-field="topGarment" data-label="Top"></div><div class="drop" data-field="bottomGarment" data-label="Bottom"></div></div>
    </fieldset>
    <fieldset data-op="shoe-3d" hidden>
      <div class="drop" data-field="images" data-label="Photos of one shoe (1-12; with 4: 0°, 45°, 90°, 135°)" data-multiple="12"></div>
      <label class="check"><input name="uploadToService" type="checkbox" checked> Also make it an AR host object (uploadToService)</label>
    </fieldset>
    <button id="submit" type="submit">Submit</button>
  </form>
  <p id="message" role="status"></p>
</section>
<section class="panel" id="run" hidden>
  <h2 id="run-title"></h2>
  <ol id="stages" class="stages"></ol>
  <div class="bar"><progress id="progress" max="100"></progress><span id="progress-text"></span></div>
  <div id="result"></div>
  <h3>Trace</h3>
  <ol id="trace" class="trace"><li class="empty">The timeline appears when the job has run.</li></ol>
</section>
<section class="panel" id="curl-panel" hidden>
  <h3>The same with curl</h3>
  <pre id="curl"></pre>
  <p><a id="body-download" download="body.json" href="#">Download body.json</a> <small>(the request body; the key stays in <code>$KEY</code>)</small></p>
  <h3>Answer</h3>
  <pre id="answer"></pre>
</section>
</main>
</body>
</html>`;
}
