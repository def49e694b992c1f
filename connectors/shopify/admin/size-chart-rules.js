/**
 * The size-chart editor's rules, shared by the admin page and its tests: the chart as the size-fitting
 * API takes it (`{version: 1, basis: "body", unit, sizes: [{label, measurements: {chest: {min, max}}}]}`),
 * checked cell by cell before it is sent.
 */

export const DIMENSIONS = ['chest', 'waist', 'hip', 'inseam', 'height'];
export const DIM_LABEL = { chest: 'Chest', waist: 'Waist', hip: 'Hip', inseam: 'Inseam', height: 'Height' };
/** Each size must give one of these for its garment (as the size-fitting API requires). */
const RELEVANT = { top: ['chest', 'waist'], bottom: ['waist', 'hip', 'inseam'], fullBody: ['chest', 'waist', 'hip', 'height'] };
/** Beyond any body measurement, per unit. */
const LIMIT = { cm: 300, in: 120 };

export const emptyRange = () => ({ min: '', max: '' });

/**
 * Every rule per cell, before anything is sent: numbers, both ends or neither, min below max, within
 * a body's range for the unit; labels given and unique; each size gives a measurement that matters for
 * the garment; sizes smallest first, a range not below or inside the previous size's, and overlapping
 * it by at most half of either range. Returns the errors by field key and the chart when there are none.
 */
export function validateChart(state) {
  const errors = {};
  const general = [];
  const limit = LIMIT[state.unit] ?? LIMIT.cm;
  if (!state.rows.length) general.push('Add at least one size.');
  if (!state.columns.length) general.push('Add at least one measurement.');
  const seen = new Map();
  const parsed = state.rows.map((r, i) => {
    const label = r.label.trim();
    if (!label) errors[`${i}.label`] = 'Enter a size label';
    else if (seen.has(label.toLowerCase())) errors[`${i}.label`] = `"${label}" is already a size`;
    seen.set(label.toLowerCase(), i);
    const ranges = {};
    for (const d of state.columns) {
      const cell = r.m[d] ?? emptyRange();
      const raw = { min: String(cell.min ?? '').trim(), max: String(cell.max ?? '').trim() };
      if (!raw.min && !raw.max) continue;
      const v = {};
      for (const end of ['min', 'max']) {
        const key = `${i}.${d}.${end}`;
        const n = Number(raw[end].replace(',', '.'));
        if (!raw[end]) errors[key] = `Enter the ${end} too`;
        else if (!Number.isFinite(n)) errors[key] = 'Enter a number';
        else if (n <= 0) errors[key] = 'Must be more than 0';
        else if (n > limit) errors[key] = `Too large for ${state.unit} (at most ${limit})`;
        else v[end] = n;
      }
      if (v.min !== undefined && v.max !== undefined) {
        if (v.min >= v.max) errors[`${i}.${d}.max`] = `Must be more than the min (${v.min})`;
        else ranges[d] = v;
      }
    }
    const relevant = RELEVANT[state.category] ?? [];
    if (!relevant.some((d) => ranges[d] || r.m[d]?.min || r.m[d]?.max) && !errors[`${i}.label`]) {
      errors[`${i}.label`] = `Give ${relevant.join(', ')} for a ${state.category === 'fullBody' ? 'full-body garment' : state.category}`;
    }
    return { label, ranges };
  });
  for (const d of state.columns) {
    let prev = null;
    parsed.forEach((row, i) => {
      const cur = row.ranges[d];
      if (!cur) return;
      if (prev) {
        const key = `${i}.${d}.min`;
        const overlap = prev.range.max - cur.min;
        const name = prev.label || `the size above`;
        if (cur.min < prev.range.min || cur.max <= prev.range.max) errors[key] ??= `Must come after ${name} (${prev.range.min}–${prev.range.max}): list sizes smallest first`;
        else if (overlap > Math.min(prev.range.max - prev.range.min, cur.max - cur.min) / 2) errors[key] ??= `Overlaps ${name} (${prev.range.min}–${prev.range.max}) by more than half its range`;
      }
      prev = { label: row.label, range: cur };
    });
  }
  const ok = !general.length && !Object.keys(errors).length;
  const sizeChart = ok ? { version: 1, basis: 'body', unit: state.unit, sizes: parsed.map((r) => ({ label: r.label, measurements: r.ranges })) } : null;
  return { errors, general, sizeChart };
}
