/**
 * Writes the builtin engine's tops on every real top pair of test/fixtures/real-photos (pairs,
 * posePairs, ownGarmentPairs) to a folder, side by side with the photo, and prints per pair the
 * gate's verdict, the warp's figures and the four realism figures, for looking at:
 *   npm exec -- node test/adapters/builtin/tryon/render-real-samples.ts [outDir] [person,person...]
 * The analysed photos are cached in outDir/.bodies (the person analysis is the slow part).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import sharp from 'sharp';
import type { RasterImage } from '../../../../core/images.ts';
import type { PersonBody } from '../../../../core/ports/person-analyzer.ts';
import { LearnedPersonAnalyzer } from '../../../../adapters/human/person-analyzer.ts';
import { renderTryOn } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { cutOut } from '../../../../adapters/builtin/tryon/garment-pieces.ts';
import type { TryOnDiagnostics } from '../../../../adapters/builtin/tryon/diagnostics.ts';
import { checkTryOnResult, type GateCheckName } from '../../../../adapters/builtin/tryon/quality-gate.ts';
import { MARKS, REAL_PHOTOS, loadPhoto, measurePair, meetsTargets } from '../../../support/tryon-metrics.ts';
import { realismOfLayer } from '../../../support/realism-metrics.ts';
import { MODEL_CATALOGUE } from '../../../../core/tryon/models.ts';

const out = process.argv[2] ?? '/tmp/tryon-real';
const only = process.argv[3]?.split(',');
const cache = path.join(out, '.bodies');
mkdirSync(cache, { recursive: true });
const analyzer = new LearnedPersonAnalyzer();
// drawn at the API's standard quality (its long side), as a job would draw a larger photo
const longSide = Number(MODEL_CATALOGUE.find((m) => m.id === 'builtin-warp')!.params('standard').longSide);

async function analysed(file: string, photo: RasterImage): Promise<PersonBody> {
  const at = path.join(cache, `${file}.v8`);
  if (existsSync(at)) return deserialize(readFileSync(at)) as PersonBody;
  const body = (await analyzer.analyze(photo, new AbortController().signal)).body!;
  writeFileSync(at, serialize(body));
  return body;
}

async function sideBySide(name: string, a: RasterImage, b: RasterImage) {
  const h = b.height;
  const left = await sharp(Buffer.from(a.data), { raw: { width: a.width, height: a.height, channels: 4 } }).resize({ height: h }).png().toBuffer();
  const lw = Math.round((a.width * h) / a.height);
  await sharp({ create: { width: lw + b.width, height: h, channels: 4, background: '#fff' } })
    .composite([{ input: left, left: 0, top: 0 }, { input: Buffer.from(b.data), raw: { width: b.width, height: b.height, channels: 4 }, left: lw, top: 0 }])
    .png()
    .toFile(path.join(out, `${name}.png`));
}

const pairs = [...MARKS.pairs, ...MARKS.posePairs, ...MARKS.ownGarmentPairs].filter((p) => !only || only.includes(p.person));
const f2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : String(v));
for (const p of pairs) {
  const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', p.person));
  const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', p.topGarment));
  const body = await analysed(p.person, person);
  const diagnostics: TryOnDiagnostics = { layers: [] };
  const t0 = performance.now();
  const result = renderTryOn({ body, garments: { top: garment }, quality: 'standard', longSide, preserveBackground: true, diagnostics });
  const ms = Math.round(performance.now() - t0);
  const verdict = checkTryOnResult({ person: body, result, garments: { top: garment }, diagnostics });
  const layer = diagnostics.layers[0];
  const cut = cutOut(garment, 'top');
  const packshotMask = new Uint8Array(cut.labels.length);
  for (let i = 0; i < packshotMask.length; i++) packshotMask[i] = cut.labels[i] === 0 ? 1 : 0;
  const f = realismOfLayer(result, person, garment, packshotMask, layer, body.parts!);
  const marks = MARKS.persons[p.person];
  const m = marks ? measurePair(person, garment, result, marks) : undefined;
  const boxes = m ? (meetsTargets(m) ? 'boxes ok' : `boxes MISS (coverage ${m.coverage.toFixed(2)} face ${m.face.toFixed(3)} legs ${m.legs.toFixed(3)} background ${m.background.toFixed(3)} hem ${m.hemLeft.toFixed(2)})`) : 'no marks';
  const w = layer.warp!;
  const gateValue = (k: GateCheckName) => {
    const v = verdict.checks.find((c) => c.check === k)?.value;
    if (v === null || v === undefined) return '-';
    // the seam is a colour step (ΔE76); the other checks are shares
    return k === 'neck-seam' ? `${v.toFixed(1)}dE` : `${(v * 100).toFixed(1)}%`;
  };
  const name = `${p.person.replace(/\.\w+$/, '')}+${p.topGarment.replace(/\.\w+$/, '')}`;
  await sideBySide(name, person, result);
  console.log(
    `${name.padEnd(36)} ${verdict.passed ? 'PASS' : 'GATED'} ${ms}ms fold ${(w.folded * 100).toFixed(2)}% stretch ${f2(w.maxAreaRatio)} squeeze ${w.minAreaRatio.toFixed(3)}${w.fallback ? ` [${w.fallback}]` : ''} | skin ${f.skinFilled}px std ${f2(f.stdRatio)} dE ${f2(f.deltaE)} (wide ${f2(f.deltaEWide)}) streak ${f2(f.streak)} edge ${f2(f.edge)} old ${(f.oldShowing * 100).toFixed(1)}% gap ${((verdict.checks.find((c) => c.check === 'garment-gap')?.value ?? 0) * 100).toFixed(1)}% | ${(['old-cloth', 'limb-repainted', 'limb-synthesised', 'arm-widened', 'foreign-fragments', 'garment-lost', 'neck-fill', 'neck-seam', 'neck-outline'] as const).map((k) => `${k} ${gateValue(k)}`).join(' ')} arm-join ${verdict.checks.find((c) => c.check === 'arm-join')?.value?.toFixed(1) ?? '-'} | ${boxes}${verdict.reason ? ` | ${verdict.reason}` : ''}`,
  );
}
console.log(`written to ${out}`);
