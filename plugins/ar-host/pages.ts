import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ViewerParams } from './viewer-params.ts';

const require = createRequire(import.meta.url);
const PAGES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pages');

/**
 * Static files of the viewer pages, all served by the AR host itself so the pages work without
 * any third-party network access: model-viewer's bundle (three.js included) and the meshopt
 * decoder from node_modules, and the page scripts and style sheet from ./pages.
 */
const ASSETS: Record<string, { file: () => string; type: string }> = {
  'model-viewer.min.js': { file: () => require.resolve('@google/model-viewer/dist/model-viewer.min.js'), type: 'text/javascript; charset=utf-8' },
  'meshopt_decoder.js': { file: () => path.join(path.dirname(require.resolve('meshoptimizer/decoder')), 'meshopt_decoder.cjs'), type: 'text/javascript; charset=utf-8' },
  'config.js': { file: () => path.join(PAGES_DIR, 'config.js'), type: 'text/javascript; charset=utf-8' },
  'common.js': { file: () => path.join(PAGES_DIR, 'common.js'), type: 'text/javascript; charset=utf-8' },
  'viewer.js': { file: () => path.join(PAGES_DIR, 'viewer.js'), type: 'text/javascript; charset=utf-8' },
  'app.js': { file: () => path.join(PAGES_DIR, 'app.js'), type: 'text/javascript; charset=utf-8' },
  'editor.js': { file: () => path.join(PAGES_DIR, 'editor.js'), type: 'text/javascript; charset=utf-8' },
  'accessory-editor.js': { file: () => path.join(PAGES_DIR, 'accessory-editor.js'), type: 'text/javascript; charset=utf-8' },
  'style.css': { file: () => path.join(PAGES_DIR, 'style.css'), type: 'text/css; charset=utf-8' },
};

const cache = new Map<string, Buffer>();

export function pageAsset(name: string): { bytes: Buffer; type: string } | null {
  const a = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!a) return null;
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = readFileSync(a.file());
    cache.set(name, bytes);
  }
  return { bytes, type: a.type };
}

/**
 * Only the host's own scripts run (plus WebAssembly for the meshopt decoder); model-viewer loads
 * models and textures through fetch and blob URLs; the app page needs the camera.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: mediastream:",
  "connect-src 'self' data: blob:",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

export const PAGE_HEADERS = {
  'Content-Security-Policy': PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Permissions-Policy': 'camera=(self), xr-spatial-tracking=(self)',
};

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Plain text with `backticks` set as code, everything escaped. */
function withCode(s: string): string {
  return escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** JSON inside a non-executed script block; `<` escaped so no text can close the block. */
function jsonBlock(value: unknown): string {
  return `<script type="application/json" id="fitroom-config">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;
}

export type PageName = 'viewer' | 'app' | 'editor' | 'accessory-editor';

const TITLES: Record<PageName, string> = {
  viewer: '3D viewer',
  app: 'Try-on',
  editor: 'Material editor',
  'accessory-editor': 'Accessory editor',
};

export interface PageConfig {
  page: PageName;
  objectId: string;
  name: string;
  colorId: string;
  params: ViewerParams;
  /** Object properties (side, dimensions, parts, placement). */
  properties: Record<string, unknown>;
  autofit: { status: string; progress: number } | null;
  urls: { glb: string; mirrorGlb: string; usdz: string; mirrorUsdz: string; status: string };
  /** A message above the model: what this page can and cannot do with it, and the next step. */
  notice?: string;
}

/** The HTML of a viewer page: model-viewer with AR (WebXR, Scene Viewer, Quick Look with the USDZ route). */
export function renderPage(cfg: PageConfig): string {
  const title = `${TITLES[cfg.page]} - ${cfg.name}`;
  // the second viewer of a pair looks from the other side, so the two shoes face each other like a pair
  const viewerTag = (id: string) =>
    `<model-viewer id="${id}" class="viewer" ar ar-modes="webxr scene-viewer quick-look" ar-placement="floor" camera-controls touch-action="pan-y" ` +
    `shadow-intensity="${cfg.params.turbo ? 0 : 1}" exposure="1" camera-orbit="${id === 'viewer-pair' ? 35 : -35}deg 70deg auto" interaction-prompt="none" ` +
    `loading="${cfg.params.asyncMode ? 'lazy' : 'eager'}" alt="${escapeHtml(cfg.name)}">` +
    `<button slot="ar-button" class="ar-button">View in your space</button><div slot="progress-bar"></div></model-viewer>`;
  const body: Record<PageName, string> = {
    viewer: `<main class="stage">${viewerTag('viewer')}${cfg.params.mirrorMode === 3 ? viewerTag('viewer-pair') : ''}</main>`,
    app: `<main class="stage app"><video id="camera" autoplay muted playsinline></video>${viewerTag('viewer')}${cfg.params.mirrorMode === 3 ? viewerTag('viewer-pair') : ''}<canvas id="analysis" hidden></canvas><p id="camera-note" class="notice" role="status" hidden></p></main>`,
    editor: `<main class="split"><section class="stage">${viewerTag('viewer')}</section>
<aside class="panel"><h1>${escapeHtml(cfg.name)}</h1>
<label>Colour preset <select id="preset"></select></label>
<label>New preset <input id="new-preset" placeholder="colour id, e.g. red" pattern="[A-Za-z0-9_-]{1,64}"><button id="add-preset" type="button">Add</button></label>
<table id="parts"><thead><tr><th>Part</th><th>Shown</th><th>Material</th><th>Colour</th><th>Rough.</th><th>Metal.</th></tr></thead><tbody></tbody></table>
<button id="save" type="button">Save preset</button> <span id="message" role="status"></span></aside></main>`,
    'accessory-editor': `<main class="split"><section class="stage">${viewerTag('viewer')}</section>
<aside class="panel"><h1>${escapeHtml(cfg.name)}</h1>
<label>Scale <input id="scale" type="number" min="0.01" max="100" step="0.01" value="1"></label>
<label>Yaw (deg) <input id="yaw" type="number" min="-180" max="180" step="1" value="0"></label>
<label>Pitch (deg) <input id="pitch" type="number" min="-180" max="180" step="1" value="0"></label>
<label>Roll (deg) <input id="roll" type="number" min="-180" max="180" step="1" value="0"></label>
<label>Offset x (m) <input id="ox" type="number" step="0.001" value="0"></label>
<label>Offset y (m) <input id="oy" type="number" step="0.001" value="0"></label>
<label>Offset z (m) <input id="oz" type="number" step="0.001" value="0"></label>
<button id="save" type="button">Save placement</button> <span id="message" role="status"></span></aside></main>`,
  };
  const script = cfg.page === 'viewer' ? 'viewer.js' : `${cfg.page}.js`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/tryon/assets/style.css">
${jsonBlock(cfg)}
<script src="/tryon/assets/config.js"></script>
<script type="module" src="/tryon/assets/model-viewer.min.js"></script>
<script type="module" src="/tryon/assets/${script}"></script>
</head>
<body class="page-${cfg.page}${cfg.params.turbo ? ' turbo' : ''}">
<header class="bar"><span class="title">${escapeHtml(cfg.name)}</span>${cfg.objectId ? ` <span class="object-id">AR object <code>${escapeHtml(cfg.objectId)}</code></span>` : ''} <span id="status" role="status"></span></header>
${cfg.notice ? `<aside id="notice" class="notice">${withCode(cfg.notice)}</aside>\n` : ''}${body[cfg.page]}
<pre id="debug" ${cfg.params.debug ? '' : 'hidden'}></pre>
<section id="settings" ${cfg.params.settings ? '' : 'hidden'}></section>
</body>
</html>`;
}

/** A page for requests the pages cannot serve: bad parameters or unknown objects. */
export function renderErrorPage(title: string, problems: string[], next: string[] = []): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/tryon/assets/style.css"></head>
<body class="error"><h1>${escapeHtml(title)}</h1><ul>${problems.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>${next.length ? `<h2>Next step</h2><ul class="next">${next.map((n) => `<li>${withCode(n)}</li>`).join('')}</ul>` : ''}</body>
</html>`;
}
