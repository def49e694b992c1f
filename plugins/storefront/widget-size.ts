import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The widget's size budget: 30 kB gzipped (model-viewer, loaded only for the 3D panel, excluded). */
export const WIDGET_BUDGET_GZIP = 30 * 1024;
export const WIDGET_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'widget', 'fitroom.js');

/** Bytes of a script as served and gzipped at level 9 (what a shopper's browser downloads). */
export function scriptSize(source: string | Buffer): { bytes: number; gzipped: number } {
  return { bytes: Buffer.byteLength(source), gzipped: gzipSync(source, { level: 9 }).length };
}

// `npm run build:widget`: the widget is plain JavaScript served as written (nothing to bundle), so
// its build checks the syntax and prints the size against the budget, failing above it.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const source = readFileSync(WIDGET_FILE, 'utf8');
  new Function(source); // a syntax error fails here, not in a shopper's browser
  const s = scriptSize(source);
  console.log(`widget/v1/fitroom.js: ${s.bytes} bytes, ${s.gzipped} bytes gzipped (budget ${WIDGET_BUDGET_GZIP})`);
  if (s.gzipped > WIDGET_BUDGET_GZIP) {
    console.error('The widget is over its size budget');
    process.exit(1);
  }
}
