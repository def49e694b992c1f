/**
 * What a shopper sees of a builtin twin made from a real face photo (examples/assets/face-photo.jpg,
 * public domain): hands with fingers at the wrists, the face's own pixels on the head, the face's
 * skin tone on the arms, and a shadow on the floor under the feet.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { LearnedPersonAnalyzer } from '../../../../adapters/human/person-analyzer.ts';
import { BuiltinTwinRenderer, type BuiltinTwinRender } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { PART } from '../../../../adapters/builtin/body/body-model.ts';
import { isSkin } from '../../../../adapters/builtin/body/face.ts';
import { BACKGROUND_RGB } from '../../../../adapters/builtin/body/rasterize-body.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { deltaE76, srgbToLab } from '../../../../adapters/builtin/tryon/color.ts';
import { PERSON_PART, type PersonAnalysis } from '../../../../core/ports/person-analyzer.ts';
import type { RasterImage } from '../../../../core/images.ts';
import type { BodyProfile } from '../../../../core/twins/body.ts';
import { renderTryOn } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { checkTryOnResult } from '../../../../adapters/builtin/tryon/quality-gate.ts';
import type { TryOnDiagnostics } from '../../../../adapters/builtin/tryon/diagnostics.ts';

const FACE_PHOTO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/assets/face-photo.jpg');
const signal = new AbortController().signal;
const profile: BodyProfile = {
  gender: 'female',
  measurements: { height: 165, chest: 92, waist: 74, hip: 100, inseam: 77 },
  supplied: { height: true, chest: true, waist: true, hip: true, inseam: true },
  source: 'measurements',
};

let face: RasterImage;
let analysis: PersonAnalysis;
let twin: BuiltinTwinRender;

beforeAll(async () => {
  const codec = new SharpImageCodec();
  face = await codec.decode(new Uint8Array(readFileSync(FACE_PHOTO)), { maxPixels: 1e7 });
  const analyzer = new LearnedPersonAnalyzer();
  analysis = await analyzer.analyze(face, signal);
  twin = await new BuiltinTwinRenderer(codec, analyzer).render({ kind: 'profile', profile, pose: 'standing_arms_down', face }, { signal });
}, 180_000);

const rgb = (img: RasterImage, i: number) => [img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2]];
const lab = (img: RasterImage, i: number) => Array.from(srgbToLab(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2]));
const median = (pts: number[][]) => [0, 1, 2].map((c) => pts.map((p) => p[c]).sort((a, b) => a - b)[pts.length >> 1]);

describe('a twin from a real face photo', () => {
  it('has hands at the wrists, with the fingers apart in the silhouette', () => {
    expect(twin.notes).toContain('head: the face with its hair from the face image; body in its skin tone');
    const W = twin.image.width;
    for (const side of ['left', 'right'] as const) {
      const wrist = twin.landmarks[`${side}Wrist`];
      const part = side === 'left' ? PART.leftHand : PART.rightHand;
      let top = Infinity;
      let bottom = -Infinity;
      for (let i = 0; i < twin.bodyParts.length; i++) {
        if (twin.bodyParts[i] !== part) continue;
        const y = Math.floor(i / W);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
      // the hand starts at the wrist and reaches down about a hand's length (18 cm)
      expect(Math.abs(top - wrist.y), side).toBeLessThan(4 * twin.pixelsPerCm);
      expect(bottom - wrist.y, side).toBeGreaterThan(12 * twin.pixelsPerCm);
      // across the fingers the hand's rows break into several runs (a mitten would be one)
      let most = 0;
      for (let y = Math.round(wrist.y + 11 * twin.pixelsPerCm); y <= bottom; y++) {
        let runs = 0;
        for (let x = 1; x < W; x++) if (twin.bodyParts[y * W + x] === part && twin.bodyParts[y * W + x - 1] !== part) runs++;
        most = Math.max(most, runs);
      }
      expect(most, side).toBeGreaterThanOrEqual(3);
    }
  });

  it("draws the photo's own face pixels on the head", () => {
    // the mapping the compositor uses: the face label's width onto faceSize, its centroid onto faceCenter
    const { image, parts } = analysis.body!;
    let x0 = Infinity, x1 = -Infinity, cx = 0, cy = 0, n = 0;
    for (let i = 0; i < parts!.length; i++) {
      if (parts![i] !== PERSON_PART.face) continue;
      const x = i % image.width;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      cx += x;
      cy += Math.floor(i / image.width);
      n++;
    }
    cx /= n;
    cy /= n;
    const s = twin.landmarks.faceSize / (x1 - x0 + 1);
    const W = twin.image.width;
    let close = 0;
    let all = 0;
    const r = Math.round(twin.landmarks.faceSize * 0.25);
    for (let dy = -r; dy <= r; dy++) {
      for (let dx = -r; dx <= r; dx++) {
        const tx = Math.round(twin.landmarks.faceCenter.x) + dx;
        const ty = Math.round(twin.landmarks.faceCenter.y) + dy;
        const sx = Math.round(cx + (tx + 0.5 - twin.landmarks.faceCenter.x) / s - 0.5);
        const sy = Math.round(cy + (ty + 0.5 - twin.landmarks.faceCenter.y) / s - 0.5);
        const a = rgb(twin.image, ty * W + tx);
        const b = rgb(image, sy * image.width + sx);
        all++;
        // bilinear samples of the photo at most a pixel away: within 40 levels for a face's texture
        if (Math.max(...a.map((v, c) => Math.abs(v - b[c]))) <= 40) close++;
      }
    }
    expect(close / all).toBeGreaterThan(0.9);
  });

  it("gives the arms the face's skin tone (median within 10 ΔE76)", () => {
    const { image, parts } = analysis.body!;
    const skin: number[][] = [];
    for (let i = 0; i < parts!.length; i++) if (parts![i] === PERSON_PART.face && isSkin(image.data[i * 4], image.data[i * 4 + 1], image.data[i * 4 + 2])) skin.push(lab(image, i));
    for (const part of [PART.leftArm, PART.rightArm]) {
      const arm: number[][] = [];
      for (let i = 0; i < twin.bodyParts.length; i++) if (twin.bodyParts[i] === part) arm.push(lab(twin.image, i));
      expect(arm.length).toBeGreaterThan(500);
      expect(deltaE76(median(arm), median(skin)), `part ${part}`).toBeLessThan(10);
    }
  });

  it('casts a shadow on the floor under the feet', () => {
    const W = twin.image.width;
    const lum = (i: number) => 0.299 * twin.image.data[i * 4] + 0.587 * twin.image.data[i * 4 + 1] + 0.114 * twin.image.data[i * 4 + 2];
    const backdrop = 0.299 * BACKGROUND_RGB[0] + 0.587 * BACKGROUND_RGB[1] + 0.114 * BACKGROUND_RGB[2];
    // the floor just below each foot's outline, in the foot's columns
    for (const side of ['left', 'right'] as const) {
      const part = side === 'left' ? PART.leftFoot : PART.rightFoot;
      let bottom = -1;
      let xs = 0;
      let n = 0;
      for (let i = 0; i < twin.bodyParts.length; i++) {
        if (twin.bodyParts[i] !== part) continue;
        bottom = Math.max(bottom, Math.floor(i / W));
        xs += i % W;
        n++;
      }
      const x = Math.round(xs / n);
      const under = lum((bottom + 2) * W + x);
      expect(under / backdrop, side).toBeLessThan(0.85);
      // the same row far to the side is the plain backdrop
      expect(lum((bottom + 2) * W + 5) / backdrop, side).toBeGreaterThan(0.98);
    }
  });

  it('is dressed without any of its skin repainted: a twin wears no old top (the sample tee repainted 33 % of the bare arms in speckled skin before)', async () => {
    const top = await new SharpImageCodec().decode(new Uint8Array(readFileSync(path.resolve(path.dirname(FACE_PHOTO), 'top.png'))), { maxPixels: 1e7 });
    const body = { image: twin.image, mask: twin.mask, depth: twin.depth, landmarks: twin.landmarks, pixelsPerCm: twin.pixelsPerCm, pose: twin.pose, parts: twin.parts };
    const diagnostics: TryOnDiagnostics = { layers: [] };
    const result = renderTryOn({ body, garments: { top }, quality: 'standard', preserveBackground: true, diagnostics });
    const verdict = checkTryOnResult({ person: body, result, garments: { top }, diagnostics });
    expect(verdict.passed, verdict.reason).toBe(true);
    expect(verdict.checks.find((c) => c.check === 'limb-repainted')?.value).toBe(0);
    expect(diagnostics.layers[0].fill?.some((v) => v > 0) ?? false).toBe(false);
  });
});

