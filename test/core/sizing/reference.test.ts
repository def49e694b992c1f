import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INPUT_FILES, parseAnsurCsv, renderBodiesJson } from '../../../core/sizing/reference/derive.ts';
import { isHeldOut } from '../../../core/sizing/reference/held-out.ts';
import { HELD_OUT_BODIES, REFERENCE_BODIES, TRAINING_BODIES } from '../../../core/sizing/reference/reference-bodies.ts';

const REFERENCE_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../core/sizing/reference');
const DATA_DIR = process.env.FITROOM_ANSUR_DIR ?? '/work/shared/data/anthropometry';
const haveData = existsSync(path.join(DATA_DIR, INPUT_FILES.female));

describe('ANSUR II reference bodies', () => {
  it('holds both genders with plausible ranges and about 20% held out', () => {
    expect(REFERENCE_BODIES.length).toBe(4277);
    const female = REFERENCE_BODIES.filter((b) => b.gender === 'female');
    expect(female.length).toBe(1422);
    const heights = female.map((b) => b.measurements.height);
    expect(Math.min(...heights)).toBeGreaterThan(140);
    expect(Math.max(...heights)).toBeLessThan(185);
    const share = HELD_OUT_BODIES.length / REFERENCE_BODIES.length;
    expect(share).toBeGreaterThan(0.17);
    expect(share).toBeLessThan(0.23);
    expect(TRAINING_BODIES.length + HELD_OUT_BODIES.length).toBe(REFERENCE_BODIES.length);
  });

  it('flags held-out subjects by a hash of the subject id', () => {
    for (const b of REFERENCE_BODIES.slice(0, 200)) expect(b.heldOut).toBe(isHeldOut(b.gender, b.subjectId));
  });

  it('parses latin-1 CSV, case-insensitive subject id, mm to cm and kg x 10 to kg', () => {
    const header = 'subjectid,stature,chestcircumference,waistcircumference,buttockcircumference,crotchheight,weightkg,Gender,SubjectsBirthLocation';
    const csv = Buffer.from(`${header}\n12345,1756,1012,887,1003,851,812,Male,Mont\xe9r\xe9al\n`, 'latin1');
    const [b] = parseAnsurCsv(csv, 'male');
    expect(b).toEqual({
      subjectId: 12345,
      gender: 'male',
      measurements: { height: 175.6, chest: 101.2, waist: 88.7, hip: 100.3, inseam: 85.1 },
      weightKg: 81.2,
      heldOut: isHeldOut('male', 12345),
    });
    expect(() => parseAnsurCsv(csv, 'female')).toThrow(/gender Male/);
    expect(() => parseAnsurCsv(Buffer.from(header.replace('stature', 'height') + '\n'), 'male')).toThrow(/stature missing/);
  });

  it.runIf(haveData)('ships exactly what derive.ts makes from the source CSVs, with their hashes in PROVENANCE.md', () => {
    const provenance = readFileSync(path.join(REFERENCE_DIR, 'PROVENANCE.md'), 'utf8');
    const bodies = (['female', 'male'] as const).flatMap((g) => {
      const bytes = readFileSync(path.join(DATA_DIR, INPUT_FILES[g]));
      expect(provenance).toContain(createHash('sha256').update(bytes).digest('hex'));
      return parseAnsurCsv(bytes, g);
    });
    expect(renderBodiesJson(bodies)).toBe(readFileSync(path.join(REFERENCE_DIR, 'ansur2-bodies.json'), 'utf8'));
  });
});
