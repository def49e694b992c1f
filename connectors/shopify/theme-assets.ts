import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WIDGET_FILE } from '../../plugins/storefront/widget-size.ts';

/** Theme Check's budget for one JavaScript asset of a theme app extension: 10 KB compressed. */
export const THEME_ASSET_BUDGET_GZIP = 10 * 1024;
export const THEME_ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'extensions', 'fitroom-theme', 'assets');
/** The dialog code the loader fetches on the first click: the storefront widget, shipped as an extension asset. */
export const DIALOG_ASSET = path.join(THEME_ASSETS, 'fitroom-dialog.js');

/** Each asset's bytes and gzip size (level 9, what a browser downloads from Shopify's CDN). */
export function themeAssetSizes(): { name: string; bytes: number; gzipped: number }[] {
  return readdirSync(THEME_ASSETS).filter((n) => n.endsWith('.js')).sort().map((name) => {
    const b = readFileSync(path.join(THEME_ASSETS, name));
    return { name, bytes: b.length, gzipped: gzipSync(b, { level: 9 }).length };
  });
}

// `npm run build:widget` (after the widget's own check): copies the widget into the extension as
// its dialog code and fails when an asset is over Theme Check's budget.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  copyFileSync(WIDGET_FILE, DIALOG_ASSET);
  let over = false;
  for (const a of themeAssetSizes()) {
    console.log(`extensions/fitroom-theme/assets/${a.name}: ${a.bytes} bytes, ${a.gzipped} bytes gzipped (budget ${THEME_ASSET_BUDGET_GZIP})`);
    over ||= a.gzipped > THEME_ASSET_BUDGET_GZIP;
  }
  if (over) {
    console.error('A theme app extension asset is over its size budget');
    process.exit(1);
  }
}
