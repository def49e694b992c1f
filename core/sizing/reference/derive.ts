/**
 * Regenerates ansur2-bodies.json (and PROVENANCE.md) from the ANSUR II reference CSVs.
 *
 *   npm exec -- node core/sizing/reference/derive.ts /path/to/anthropometry
 *
 * The folder must hold ansur2-reference-female.csv and ansur2-reference-male.csv (latin-1, mm).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Gender } from '../../twins/body.ts';
import { bodyToRow, REFERENCE_COLUMNS } from './reference-body.ts';
import type { ReferenceBody } from './reference-body.ts';
import { isHeldOut } from './held-out.ts';
import { renderProvenance } from './provenance.ts';

export const INPUT_FILES: Record<Gender, string> = {
  female: 'ansur2-reference-female.csv',
  male: 'ansur2-reference-male.csv',
};

/** Parses one ANSUR II CSV (latin-1, integer mm, weightkg in kg x 10) into reference bodies. */
export function parseAnsurCsv(bytes: Uint8Array, gender: Gender): ReferenceBody[] {
  const text = new TextDecoder('latin1').decode(bytes);
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines.some((l) => l.includes('"'))) throw new Error('quoted CSV fields are not expected in ANSUR II files');
  const header = lines[0].split(',').map((h) => h.trim().toLowerCase());
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`column ${name} missing`);
    return i;
  };
  const idx = {
    id: col('subjectid'),
    gender: col('gender'),
    stature: col('stature'),
    chest: col('chestcircumference'),
    waist: col('waistcircumference'),
    hip: col('buttockcircumference'),
    inseam: col('crotchheight'),
    weight: col('weightkg'),
  };
  const expected = gender === 'female' ? 'Female' : 'Male';
  return lines.slice(1).map((line, n) => {
    const f = line.split(',');
    if (f.length !== header.length) throw new Error(`row ${n + 2}: ${f.length} fields, expected ${header.length}`);
    if (f[idx.gender] !== expected) throw new Error(`row ${n + 2}: gender ${f[idx.gender]} in the ${gender} file`);
    const num = (i: number): number => {
      const v = Number(f[i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`row ${n + 2}: bad value ${f[i]} in ${header[i]}`);
      return v;
    };
    const subjectId = num(idx.id);
    // mm -> cm and kg x 10 -> kg; both are integers, so one decimal is exact.
    const cm = (i: number): number => num(i) / 10;
    return {
      subjectId,
      gender,
      measurements: { height: cm(idx.stature), chest: cm(idx.chest), waist: cm(idx.waist), hip: cm(idx.hip), inseam: cm(idx.inseam) },
      weightKg: num(idx.weight) / 10,
      heldOut: isHeldOut(gender, subjectId),
    };
  });
}

/** One row per line: compact, yet diffable. */
export function renderBodiesJson(bodies: readonly ReferenceBody[]): string {
  const rows = bodies.map((b) => '    ' + JSON.stringify(bodyToRow(b)));
  return [
    '{',
    '  "source": "ANSUR II 2012 (US Army NSRDEC, NATICK/TR-15/007), reference subset; see PROVENANCE.md",',
    '  "units": "height, chest, waist, hip (buttock circumference), inseam (crotch height) in cm; weightKg in kg",',
    `  "columns": ${JSON.stringify(REFERENCE_COLUMNS)},`,
    '  "rows": [',
    rows.join(',\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}

function main(dir: string): void {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const inputs = (['female', 'male'] as const).map((gender) => {
    const file = path.join(dir, INPUT_FILES[gender]);
    const bytes = readFileSync(file);
    return { gender, name: INPUT_FILES[gender], sha256: createHash('sha256').update(bytes).digest('hex'), bodies: parseAnsurCsv(bytes, gender) };
  });
  const bodies = inputs.flatMap((i) => i.bodies);
  writeFileSync(path.join(here, 'ansur2-bodies.json'), renderBodiesJson(bodies));
  const provenance = renderProvenance(inputs.map(({ name, sha256, bodies: b }) => ({ name, sha256, rows: b.length })), bodies);
  writeFileSync(path.join(here, 'PROVENANCE.md'), provenance);
  const held = bodies.filter((b) => b.heldOut).length;
  console.log(`${bodies.length} bodies written (${held} held out, ${bodies.length - held} training)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? process.env.FITROOM_ANSUR_DIR;
  if (!dir) {
    console.error('usage: node core/sizing/reference/derive.ts <folder with ansur2-reference-*.csv>');
    process.exit(2);
  }
  main(dir);
}
