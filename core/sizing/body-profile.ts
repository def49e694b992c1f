import { DIMENSIONS } from '../twins/body.ts';
import type { Dimension, Gender } from '../twins/body.ts';
import { EN13402_CHEST_BANDS } from './en13402.ts';
import type { ClothingSizeLabel } from './en13402.ts';
import type { EstimatedBodyProfile } from './estimated-profile.ts';
import { GaussianBodyModel } from './gaussian-body-model.ts';
import { IMPUTATION_METHOD } from './imputation-method.ts';
import type { ImputationMethod } from './imputation-method.ts';
import type { BodyImputer, Imputation } from './imputation.ts';
import { MEASUREMENT_BOUNDS } from './measurement-bounds.ts';
import { NearestBodies } from './nearest-bodies.ts';
import type { ReferenceBody } from './reference/reference-body.ts';
import { TRAINING_BODIES } from './reference/reference-bodies.ts';

/** Standard deviation (cm) assumed for a value someone measured with a tape. */
export const MEASURED_SD = 1.5;

/** Builds body profiles from a set of reference bodies (the training split by default). */
export class BodyProfiler {
  readonly #regression: BodyImputer;
  readonly #knn: BodyImputer | null;
  readonly #method: Readonly<Record<Dimension, ImputationMethod>>;

  constructor(bodies: readonly ReferenceBody[] = TRAINING_BODIES, method: Readonly<Record<Dimension, ImputationMethod>> = IMPUTATION_METHOD) {
    this.#method = method;
    this.#regression = new GaussianBodyModel(bodies);
    this.#knn = DIMENSIONS.some((d) => method[d] === 'knn') ? new NearestBodies(bodies, 10) : null;
  }

  /** Keeps every supplied value and imputes the others; never rejects a query. */
  fromMeasurements(m: Partial<Record<Dimension, number>>, gender: Gender | null): EstimatedBodyProfile {
    const known = pickKnown(m);
    const est = this.#impute(known, gender);
    const measurements = {} as Record<Dimension, number>;
    const supplied = {} as Record<Dimension, boolean>;
    const uncertainty = {} as Record<Dimension, number>;
    for (const d of DIMENSIONS) {
      supplied[d] = known[d] !== undefined;
      measurements[d] = supplied[d] ? known[d]! : round1(clampToBounds(d, est.mean[d]));
      uncertainty[d] = round1(supplied[d] ? MEASURED_SD : Math.max(MEASURED_SD, est.sd[d]));
    }
    return { gender, measurements, supplied, source: 'measurements', uncertainty };
  }

  /**
   * A clothing size fixes the primary girth to its EN 13402-3 band: the chest is the band
   * midpoint, with the standard deviation of a uniform spread over the band. The rest is imputed
   * from height and that chest; their uncertainty adds what the chest's own spread passes on.
   */
  fromClothingSize(height: number, size: ClothingSizeLabel, gender: Gender = 'female'): EstimatedBodyProfile {
    const [lo, hi] = EN13402_CHEST_BANDS[gender][size];
    const chest = (lo + hi) / 2;
    const chestSd = (hi - lo) / Math.sqrt(12);
    const profile = this.fromMeasurements({ height, chest }, gender);
    // Sensitivity of each imputed value to the chest, by central difference over 1 cm.
    const up = this.#impute({ height, chest: chest + 0.5 }, gender).mean;
    const down = this.#impute({ height, chest: chest - 0.5 }, gender).mean;
    const uncertainty = profile.uncertainty as Record<Dimension, number>;
    for (const d of DIMENSIONS) {
      if (d === 'height' || d === 'chest') continue;
      const slope = up[d] - down[d];
      uncertainty[d] = round1(Math.hypot(uncertainty[d], slope * chestSd));
    }
    uncertainty.chest = round1(Math.max(MEASURED_SD, chestSd));
    return { ...profile, source: 'clothing_size', uncertainty };
  }

  #impute(known: Partial<Record<Dimension, number>>, gender: Gender | null): Imputation {
    const reg = this.#regression.impute(known, gender);
    if (!this.#knn) return reg;
    const knn = this.#knn.impute(known, gender);
    const mean = {} as Record<Dimension, number>;
    const sd = {} as Record<Dimension, number>;
    for (const d of DIMENSIONS) {
      const src = this.#method[d] === 'knn' ? knn : reg;
      mean[d] = src.mean[d];
      sd[d] = src.sd[d];
    }
    return { mean, sd };
  }
}

let shared: BodyProfiler | null = null;
function defaultProfiler(): BodyProfiler {
  shared ??= new BodyProfiler();
  return shared;
}

/** Body profile from measurements (any subset, in cm); a null gender searches both genders. */
export function profileFromMeasurements(m: Partial<Record<Dimension, number>>, gender: Gender | null): EstimatedBodyProfile {
  return defaultProfiler().fromMeasurements(m, gender);
}

/** Body profile from height and an EN 13402-3 letter size; the spec defaults the gender to female. */
export function profileFromClothingSize(height: number, size: ClothingSizeLabel, gender: Gender | null = 'female'): EstimatedBodyProfile {
  return defaultProfiler().fromClothingSize(height, size, gender ?? 'female');
}

function pickKnown(m: Partial<Record<Dimension, number>>): Partial<Record<Dimension, number>> {
  const out: Partial<Record<Dimension, number>> = {};
  for (const d of DIMENSIONS) {
    const v = m[d];
    if (typeof v === 'number' && Number.isFinite(v)) out[d] = v;
  }
  return out;
}

function clampToBounds(d: Dimension, v: number): number {
  return Math.min(MEASUREMENT_BOUNDS[d].max, Math.max(MEASUREMENT_BOUNDS[d].min, v));
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}
