import { DIMENSIONS } from '../../twins/body.ts';
import type { Dimension } from '../../twins/body.ts';
import { IMPUTATION_SPACE } from '../imputation-method.ts';
import { GaussianBodyModel } from '../gaussian-body-model.ts';
import { crossValidateImputation } from '../imputation-cv.ts';
import type { CrossValidation } from '../imputation-cv.ts';
import { NearestBodies } from '../nearest-bodies.ts';
import { HELD_OUT_SHARE } from './held-out.ts';
import type { ReferenceBody } from './reference-body.ts';

export interface InputFile {
  name: string;
  sha256: string;
  rows: number;
}

const METHODS = {
  'Gaussian, log cm': (t: readonly ReferenceBody[]) => new GaussianBodyModel(t, 'log'),
  'Gaussian, cm': (t: readonly ReferenceBody[]) => new GaussianBodyModel(t, 'cm'),
  '10-NN mean': (t: readonly ReferenceBody[]) => new NearestBodies(t, 10),
  '1-NN': (t: readonly ReferenceBody[]) => new NearestBodies(t, 1),
};

/** The method with the lowest figure for each dimension. */
export function winners(cv: CrossValidation, by: CrossValidation['mae'] = cv.mae): Record<Dimension, string> {
  return Object.fromEntries(
    DIMENSIONS.map((d) => [d, cv.methods.reduce((best, m) => (by[m][d] < by[best][d] ? m : best))]),
  ) as Record<Dimension, string>;
}

const CHOSEN = IMPUTATION_SPACE === 'log' ? 'Gaussian, log cm' : 'Gaussian, cm';

function table(cv: CrossValidation, mae: CrossValidation['mae']): string {
  const head = `| Imputed | ${cv.methods.join(' | ')} |\n|---|${cv.methods.map(() => '---').join('|')}|`;
  const rows = DIMENSIONS.map((d) => `| ${d} | ${cv.methods.map((m) => mae[m][d].toFixed(2)).join(' | ')} |`);
  return [head, ...rows].join('\n');
}

/** PROVENANCE.md for the derived reference file, including the cross-validation behind the method choice. */
export function renderProvenance(inputs: readonly InputFile[], bodies: readonly ReferenceBody[]): string {
  const training = bodies.filter((b) => !b.heldOut);
  const count = (g: string, held: boolean) => bodies.filter((b) => b.gender === g && b.heldOut === held).length;
  const cv = crossValidateImputation(training, METHODS);
  const best = winners(cv);
  const bestLoss = winners(cv, cv.logLoss);
  const agrees = DIMENSIONS.every((d) => bestLoss[d] === CHOSEN);
  return `# ansur2-bodies.json — provenance

## Source

ANSUR II, the 2012 US Army Anthropometric Survey (US Army Natick Soldier Research, Development and
Engineering Center; report NATICK/TR-15/007, Gordon et al. 2014). The public working databases are
marked "Approved for public release; distribution is unlimited" — a US Government work in the
public domain. Obtained through the GitHub mirror \`senihberkay/US-Army-ANSUR-II\`, commit
9ebd111ef7964b9cc4113b347f60f7da1107e9c5; the inputs below are the project's reference subset of
those files (about 70% of the subjects, chosen by a hash of the subject id; see
\`/work/shared/data/anthropometry/ANSUR-II-README.md\`).

| Input | Rows | sha256 |
|---|---|---|
${inputs.map((i) => `| \`${i.name}\` | ${i.rows} | ${i.sha256} |`).join('\n')}

## What was derived

One row per subject: \`[subjectId, gender (F/M), height, chest, waist, hip, inseam, weightKg, heldOut]\`.

| Field | ANSUR II column | Conversion |
|---|---|---|
| height | \`stature\` | mm / 10 -> cm |
| chest | \`chestcircumference\` | mm / 10 -> cm |
| waist | \`waistcircumference\` (at the omphalion, i.e. the navel) | mm / 10 -> cm |
| hip | \`buttockcircumference\` | mm / 10 -> cm |
| inseam | \`crotchheight\` (floor to crotch) | mm / 10 -> cm |
| weightKg | \`weightkg\` (kg x 10) | / 10 -> kg |
| heldOut | — | 1 when the first 32 bits of SHA-256(\`ansur2:<gender>:<subjectId>\`) / 2^32 < ${HELD_OUT_SHARE} |

Files are read as latin-1; the first column is \`SubjectId\` (female) or \`subjectid\` (male).
Split: female ${count('female', false)} training + ${count('female', true)} held out; male ${count('male', false)} training + ${count('male', true)} held out.
Profiles are built from the training rows only; the held-out rows are for measuring accuracy
(\`npm run bench:sizing\`). ANSUR is a military population: it holds no women in EN 13402 3XL, so
plus sizes are served by extrapolation.

## Imputation method (cross-validated)

${cv.folds}-fold cross-validation on the ${cv.count} training bodies: each body is reduced to every subset of
2-4 supplied dimensions (${cv.subsets.length} subsets) and the others are predicted from the remaining folds.
Mean absolute error in cm per imputed dimension, averaged over the subsets lacking it.

Gender known:

${table(cv, cv.mae)}

Gender omitted (both genders searched):

${table(cv, cv.maeNoGender)}

Negative log predictive density per cm (gender known; lower is better). It also scores the
spread, which size fitting integrates over; the nearest-neighbour methods are read as normals with
their neighbours' spread:

${table(cv, cv.logLoss)}

The Gaussian methods are the conditional normal of a per-gender multivariate normal of the
centimetres or of their logarithms (the mean is least squares on the supplied subset; a
likelihood-weighted mixture of both genders when the gender is omitted); "10-NN mean" averages the
ten closest bodies in standard-deviation units; "1-NN" copies the closest body (the spec's floor).
Lowest MAE per dimension: ${DIMENSIONS.map((d) => `${d} ${best[d]}`).join(', ')}.
Lowest log loss per dimension: ${DIMENSIONS.map((d) => `${d} ${bestLoss[d]}`).join(', ')}.
Chosen in \`core/sizing/imputation-method.ts\`: ${CHOSEN}${agrees ? '' : ' (DIFFERS from the lowest log loss above: review IMPUTATION_SPACE)'}.

## Regenerate

    npm exec -- node core/sizing/reference/derive.ts /work/shared/data/anthropometry

Deterministic: the same inputs give byte-identical \`ansur2-bodies.json\` and this file.
`;
}
