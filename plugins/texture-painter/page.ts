import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const PAGES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pages');

/** The page's own files and model-viewer's bundle, served by the API host (no third-party network). */
const ASSETS: Record<string, { file: () => string; type: string }> = {
  'model-viewer.min.js': { file: () => require.resolve('@google/model-viewer/dist/model-viewer.min.js'), type: 'text/javascript; charset=utf-8' },
  'painter.js': { file: () => path.join(PAGES_DIR, 'painter.js'), type: 'text/javascript; charset=utf-8' },
  'painter.css': { file: () => path.join(PAGES_DIR, 'painter.css'), type: 'text/css; charset=utf-8' },
};
const cache = new Map<string, Buffer>();

export function painterAsset(name: string): { bytes: Buffer; type: string } | null {
  const a = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!a) return null;
  let bytes = cache.get(name);
  if (!bytes) cache.set(name, (bytes = readFileSync(a.file())));
  return { bytes, type: a.type };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Only the host's scripts run; the model comes from the GLB's origin, textures live in blob and data URLs. */
export function painterHeaders(glbOrigin: string | null): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src 'self' data: blob:${glbOrigin ? ` ${glbOrigin}` : ''}`,
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
  return { 'Content-Security-Policy': csp, 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };
}

export function renderPainterPage(cfg: { glb: string; limits: { maxSide: number; maxPaintedPixels: number } }): string {
  const json = JSON.stringify(cfg).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Texture painter</title>
<link rel="stylesheet" href="/texture-painter/assets/painter.css">
<script type="application/json" id="painter-config">${json}</script>
<script type="module" src="/texture-painter/assets/model-viewer.min.js"></script>
<script type="module" src="/texture-painter/assets/painter.js"></script>
</head>
<body>
<header><h1>Texture painter</h1><span id="painter-status" role="status">Loading the model…</span></header>
<main>
<section class="model"><model-viewer id="viewer" src="${esc(cfg.glb)}" camera-controls touch-action="pan-y" interaction-prompt="none" shadow-intensity="0.6" exposure="1" alt="The model being painted"></model-viewer></section>
<section class="paint">
<div class="tools">
<label>Colour <input id="colour" type="color" value="#c62828"></label>
<label>Brush <input id="brush" type="range" min="2" max="96" value="24"></label>
<label>Mode <select id="mode"><option value="blend">Blend paint into the material</option><option value="inpaint">Remove (fill from around)</option></select></label>
<label>Edges <select id="wrap"><option value="none">Separate</option><option value="x">Wrap left-right</option><option value="y">Wrap top-bottom</option><option value="xy">Tile both</option></select></label>
<label class="wide">Prompt (AI models only) <input id="prompt" maxlength="500" placeholder="e.g. embroidered thread"></label>
<button id="enhance" type="button">Enhance</button> <button id="undo" type="button">Undo paint</button>
</div>
<div class="canvas-wrap"><canvas id="texture" width="16" height="16"></canvas><canvas id="mask" width="16" height="16" hidden></canvas></div>
</section>
</main>
</body>
</html>`;
}
