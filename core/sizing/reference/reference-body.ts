import type { Dimension, Gender } from '../../twins/body.ts';

/** One ANSUR II subject reduced to the five spec dimensions (cm) plus weight (kg). */
export interface ReferenceBody {
  subjectId: number;
  gender: Gender;
  measurements: Record<Dimension, number>;
  weightKg: number;
  /** Kept aside for accuracy evaluation; never used to build profiles. */
  heldOut: boolean;
}

/** Column order of the rows in ansur2-bodies.json. */
export const REFERENCE_COLUMNS = ['subjectId', 'gender', 'height', 'chest', 'waist', 'hip', 'inseam', 'weightKg', 'heldOut'] as const;

export type ReferenceRow = [number, 'F' | 'M', number, number, number, number, number, number, 0 | 1];

export function rowToBody(row: readonly unknown[]): ReferenceBody {
  const [subjectId, g, height, chest, waist, hip, inseam, weightKg, heldOut] = row as ReferenceRow;
  return {
    subjectId,
    gender: g === 'F' ? 'female' : 'male',
    measurements: { height, chest, waist, hip, inseam },
    weightKg,
    heldOut: heldOut === 1,
  };
}

export function bodyToRow(b: ReferenceBody): ReferenceRow {
  const m = b.measurements;
  return [b.subjectId, b.gender === 'female' ? 'F' : 'M', m.height, m.chest, m.waist, m.hip, m.inseam, b.weightKg, b.heldOut ? 1 : 0];
}
