import { afterAll, afterEach, beforeAll } from 'vitest';
import nock from 'nock';
import sharp from 'sharp';
import { Document, NodeIO } from '@gltf-transform/core';
import { createRaster } from '../../core/images.ts';
import type { ModelCall } from '../../core/ports/image-model.ts';
import type { ReconstructionView } from '../../core/ports/product-reconstructor.ts';

/** Shared setup of the vendor adapter tests (gemini, fal, meshy, tripo) and the model chain's. */

type RGB = [number, number, number];

/** Poll intervals that keep queue round trips in tests to milliseconds. */
export const FAST_POLL = { pollIntervalMs: 10, maxPollIntervalMs: 20 } as const;

/** No real network in the file: unmatched requests fail, interceptors are dropped after each test. */
export function useNock(): void {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());
}

/** A reply that arrives late; nock's own .delay() crashes undici when the request is aborted meanwhile. */
export function late<T>(ms: number, value: T): () => Promise<T> {
  return () => new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

export async function png(w: number, h: number, rgb: RGB): Promise<Uint8Array> {
  return new Uint8Array(await sharp({ create: { width: w, height: h, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer());
}

/** The try-on images the image-model tests send and answer with: a skin-toned person, a blue garment, a blue result. */
export async function tryonImages(): Promise<{ person: Uint8Array; garment: Uint8Array; output: Uint8Array }> {
  return { person: await png(24, 32, [200, 150, 120]), garment: await png(16, 16, [20, 60, 200]), output: await png(24, 32, [20, 60, 200]) };
}

/** A try-on call with a person and a garment-grid reference, standard quality and a fresh signal. */
export function tryonCall(images: { person: Uint8Array; garment: Uint8Array }, base: Pick<ModelCall, 'model' | 'prompt'>, over: Partial<ModelCall> = {}): ModelCall {
  return {
    task: 'tryon',
    ...base,
    references: [
      { role: 'person', image: { bytes: images.person, contentType: 'image/png' } },
      { role: 'garment-grid', image: { bytes: images.garment, contentType: 'image/png' } },
    ],
    quality: 'standard',
    signal: new AbortController().signal,
    ...over,
  };
}

/** A real (tiny) GLB as a vendor would return: one triangle with a PBR material. */
export async function tinyGlb(material: string, rgba: [number, number, number, number], roughness: number): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const position = doc.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 0.28, 0, 0, 0, 0.1, 0])).setBuffer(buffer);
  const mat = doc.createMaterial(material).setBaseColorFactor(rgba).setMetallicFactor(0).setRoughnessFactor(roughness);
  const mesh = doc.createMesh('shoe').addPrimitive(doc.createPrimitive().setAttribute('POSITION', position).setMaterial(mat));
  doc.createScene().addChild(doc.createNode('shoe').setMesh(mesh));
  return new NodeIO().writeBinary(doc);
}

/** A 16x8 single-colour product view with its PNG encoding, as the reconstructors receive it. */
export async function productView(angleDeg: number | undefined, rgb: RGB): Promise<ReconstructionView> {
  const bytes = new Uint8Array(await sharp({ create: { width: 16, height: 8, channels: 4, background: { r: rgb[0], g: rgb[1], b: rgb[2], alpha: 1 } } }).png().toBuffer());
  return { image: createRaster(16, 8, [...rgb, 255]), encoded: { bytes, contentType: 'image/png' }, angleDeg };
}

/** A call for a dedicated try-on model: the person reference and one garment photo as sent (grid kept, as the job sends it). */
export function dedicatedCall(images: { person: Uint8Array; garment: Uint8Array }, model: string, over: Partial<ModelCall> = {}, garment: Partial<NonNullable<ModelCall['garments']>[number]> = {}): ModelCall {
  return tryonCall(images, { model, prompt: 'ignored by dedicated models' }, { garments: [{ slot: 'topGarment', image: { bytes: images.garment, contentType: 'image/png' }, ...garment }], ...over });
}
