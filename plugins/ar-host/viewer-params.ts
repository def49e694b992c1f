/**
 * URL parameters of the viewer pages. Every parameter is optional; a value outside its set is
 * refused with a message naming the parameter, the allowed values and what was sent.
 *
 * - `pose_quality` 1/2/3 (default 2): foot-pose analysis quality; sets how many camera frames per
 *   second the try-on app analyses (1: 10, 2: 20, 3: 30).
 * - `native_ml_size` 160/192/256 (default 192): side in pixels of the square the app downsamples
 *   camera frames to for analysis.
 * - `mirror_mode` or `mm` 1-5 (default 1): 1 the uploaded shoe, 2 its mirrored twin, 3 the pair
 *   side by side, 4 the shoe for the left foot, 5 the shoe for the right foot (4 and 5 pick the
 *   uploaded or the mirrored model from the side autofit detected).
 * - `turbo` 0/1: lighter rendering (no shadow, lower resolution).
 * - `no_logs` 0/1: no console logging from the page scripts.
 * - `settings` 0/1: show the settings panel.
 * - `async_mode` 0/1: load the model lazily, after the page is interactive.
 * - `debug` 0/1: show the parsed parameters and the object's autofit properties.
 */
export interface ViewerParams {
  poseQuality: 1 | 2 | 3;
  nativeMlSize: 160 | 192 | 256;
  mirrorMode: 1 | 2 | 3 | 4 | 5;
  turbo: boolean;
  noLogs: boolean;
  settings: boolean;
  asyncMode: boolean;
  debug: boolean;
}

export const DEFAULT_VIEWER_PARAMS: ViewerParams = {
  poseQuality: 2,
  nativeMlSize: 192,
  mirrorMode: 1,
  turbo: false,
  noLogs: false,
  settings: false,
  asyncMode: false,
  debug: false,
};

const ENUMS: { key: keyof ViewerParams; names: string[]; values: number[] }[] = [
  { key: 'poseQuality', names: ['pose_quality'], values: [1, 2, 3] },
  { key: 'nativeMlSize', names: ['native_ml_size'], values: [160, 192, 256] },
  { key: 'mirrorMode', names: ['mirror_mode', 'mm'], values: [1, 2, 3, 4, 5] },
];
const FLAGS: { key: keyof ViewerParams; name: string }[] = [
  { key: 'turbo', name: 'turbo' },
  { key: 'noLogs', name: 'no_logs' },
  { key: 'settings', name: 'settings' },
  { key: 'asyncMode', name: 'async_mode' },
  { key: 'debug', name: 'debug' },
];

export function parseViewerParams(query: Record<string, string>): { ok: true; params: ViewerParams } | { ok: false; errors: { field: string; message: string }[] } {
  const params: ViewerParams = { ...DEFAULT_VIEWER_PARAMS };
  const errors: { field: string; message: string }[] = [];
  const out = params as unknown as Record<string, unknown>;
  for (const e of ENUMS) {
    const given = e.names.filter((n) => query[n] !== undefined);
    if (given.length > 1 && query[given[0]] !== query[given[1]]) {
      errors.push({ field: given.join('/'), message: `${given.join(' and ')} disagree ("${query[given[0]]}" vs "${query[given[1]]}"); send one of them` });
      continue;
    }
    if (!given.length) continue;
    const raw = query[given[0]];
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!e.values.includes(n)) errors.push({ field: given[0], message: `must be one of ${e.values.join(', ')} (got "${raw}")` });
    else out[e.key] = n;
  }
  for (const f of FLAGS) {
    const raw = query[f.name];
    if (raw === undefined) continue;
    if (raw !== '0' && raw !== '1') errors.push({ field: f.name, message: `must be 0 or 1 (got "${raw}")` });
    else out[f.key] = raw === '1';
  }
  return errors.length ? { ok: false, errors } : { ok: true, params };
}
