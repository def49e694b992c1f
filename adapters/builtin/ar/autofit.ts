import { cloneDocument, prune } from '@gltf-transform/functions';
import type { Document } from '@gltf-transform/core';
import type { GlbLimits } from '../../gltf/inspect-glb.ts';
import { bakeWorldTransforms } from './bake-transforms.ts';
import { quietLogger, readGlb, writeGlb } from './gltf-io.ts';
import { multiply4, scale4 } from './linalg.ts';
import type { Mat4 } from './linalg.ts';
import { mirrorDocument } from './mirror.ts';
import { isStructuralPart } from './part-names.ts';
import { estimateShoePose } from './shoe-pose.ts';
import type { ShoeSide } from './shoe-pose.ts';
import { collectTriangles, partName } from './surface.ts';

export type UnitsGuess = 'm' | 'cm' | 'mm' | 'unknown';

/** What autofit found out about the shoe; stored as the AR object's properties. */
export interface AutofitProperties {
  /** Metres, in the aligned frame: length along Z, width along X, height along Y. */
  dimensions: { length: number; width: number; height: number };
  side: ShoeSide;
  mirrorSide: ShoeSide;
  /** Model units → metres. */
  scaleFactor: number;
  unitsGuess: UnitsGuess;
  /** Heel-to-toe length in the uploaded file's units. */
  sourceLength: number;
  /** 0..1 margins of the orientation decisions. */
  confidence: { up: number; forward: number; side: number };
  /** Column-major matrix applied to the uploaded model (world space → aligned metres). */
  transform: number[];
  parts: string[];
}

export interface AutofitResult {
  glb: Uint8Array;
  mirrorGlb: Uint8Array;
  properties: AutofitProperties;
}

export interface AutofitOptions {
  /** Length used when the file's units cannot be inferred. */
  defaultLength?: number;
  limits?: Partial<GlbLimits>;
  /** Stage reports: `analysing` and `exporting` with a 0..1 fraction of the whole run. */
  onProgress?: (stage: 'analysing' | 'exporting', fraction: number) => void;
}

export const DEFAULT_SHOE_LENGTH = 0.27;

/**
 * Infers units from the heel-to-toe length: adult and child shoes measure 0.15-0.40 m, so a
 * length in that range is taken as metres, 15-40 as centimetres, 150-400 as millimetres;
 * anything else is scaled to the default length.
 */
export function guessUnits(length: number, defaultLength = DEFAULT_SHOE_LENGTH): { unitsGuess: UnitsGuess; scaleFactor: number } {
  if (length >= 0.15 && length <= 0.4) return { unitsGuess: 'm', scaleFactor: 1 };
  if (length >= 15 && length <= 40) return { unitsGuess: 'cm', scaleFactor: 0.01 };
  if (length >= 150 && length <= 400) return { unitsGuess: 'mm', scaleFactor: 0.001 };
  return { unitsGuess: 'unknown', scaleFactor: length > 0 ? defaultLength / length : 1 };
}

/**
 * Aligns an uploaded shoe: sole on y = 0, toe towards +Z, heel at the origin, metric scale; and
 * builds the mirrored shoe of the pair. Floor and overlay parts follow the shoe but do not
 * influence the alignment.
 */
export async function autofitShoe(glb: Uint8Array, options: AutofitOptions = {}): Promise<AutofitResult> {
  const report = options.onProgress ?? (() => undefined);
  const { doc } = await readGlb(glb, options.limits);
  report('analysing', 0.1);
  const soup = collectTriangles(doc, isStructuralPart);
  if (soup.count === 0) throw new Error('the model has no triangle meshes');
  const pose = estimateShoePose(soup);
  report('analysing', 0.6);
  const units = guessUnits(pose.length, options.defaultLength);
  const matrix: Mat4 = multiply4(scale4([units.scaleFactor, units.scaleFactor, units.scaleFactor]), pose.matrix);

  bakeWorldTransforms(doc, matrix);
  await doc.transform(prune({ keepLeaves: true, keepAttributes: true, keepExtras: true, keepSolidTextures: true }));
  report('exporting', 0.7);
  const mirror = cloneDocument(doc).setLogger(quietLogger);
  mirrorDocument(mirror);
  await mirror.transform(prune({ keepLeaves: true, keepAttributes: true, keepExtras: true, keepSolidTextures: true }));
  const parts = listParts(doc);
  const aligned = await writeGlb(doc);
  const mirrored = await writeGlb(mirror);
  report('exporting', 1);
  const f = units.scaleFactor;
  return {
    glb: aligned,
    mirrorGlb: mirrored,
    properties: {
      dimensions: { length: round(pose.length * f), width: round(pose.width * f), height: round(pose.height * f) },
      side: pose.side,
      mirrorSide: pose.side === 'left' ? 'right' : 'left',
      scaleFactor: units.scaleFactor,
      unitsGuess: units.unitsGuess,
      sourceLength: pose.length,
      confidence: { up: round(pose.confidence.up, 3), forward: round(pose.confidence.forward, 3), side: round(pose.confidence.side, 3) },
      transform: matrix,
      parts,
    },
  };
}

function listParts(doc: Document): string[] {
  const names: string[] = [];
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  scene?.traverse((node) => {
    if (node.getMesh()) names.push(partName(node));
  });
  return names;
}

function round(v: number, digits = 4): number {
  const k = 10 ** digits;
  return Math.round(v * k) / k;
}
