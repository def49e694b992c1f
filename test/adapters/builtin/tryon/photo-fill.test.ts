/**
 * The skin synthesis on a constructed photo: a shaded, textured arm on a grey backdrop with a band
 * of it to repaint. The fill must carry the arm's texture (5x5 local std), colour and shading across
 * its width, join the skin above and below it without a step, and be the same on every run.
 */
import { describe, expect, it } from 'vitest';
import { localStd, synthesiseFill } from '../../../../adapters/builtin/tryon/photo-fill.ts';
import { linearToSrgb, SRGB_TO_LINEAR } from '../../../../adapters/builtin/tryon/color.ts';
import { distanceTransform } from '../../../../adapters/builtin/raster/distance-transform.ts';
import type { PersonBody } from '../../../../core/ports/person-analyzer.ts';

const W = 120;
const H = 160;
const ARM = [40, 80];
const BAND = [60, 100];

/** A deterministic hash noise in -0.5..0.5. */
const noise = (x: number, y: number) => {
  let t = Math.imul(x + 3, 0x27d4eb2d) ^ Math.imul(y + 11, 0x165667b1);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  return ((t ^ (t >>> 13)) >>> 0) / 4294967296 - 0.5;
};

function scene() {
  const data = new Uint8Array(W * H * 4);
  const mask = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      let rgb: number[];
      if (x >= ARM[0] && x < ARM[1]) {
        mask[i] = 255;
        // a rounded arm: darker towards its outline, with skin grain
        const t = (x + 0.5 - ARM[0]) / (ARM[1] - ARM[0]);
        const shade = 0.85 + 0.15 * Math.sin(Math.PI * t);
        const g = 10 * noise(x, y);
        rgb = [205 * shade + g, 160 * shade + g, 135 * shade + g];
        // the band holds an old dark sleeve
        if (y >= BAND[0] && y < BAND[1]) rgb = [30, 30, 35];
      } else rgb = [200 + 3 * noise(x, y), 200 + 3 * noise(x, y), 200 + 3 * noise(x, y)];
      for (let c = 0; c < 3; c++) data[i * 4 + c] = Math.max(0, Math.min(255, Math.round(rgb[c])));
      data[i * 4 + 3] = 255;
    }
  }
  return { image: { width: W, height: H, data }, mask };
}

function render() {
  const { image, mask } = scene();
  const body = { image, mask } as unknown as PersonBody;
  const canvas = new Float32Array(W * H * 3);
  for (let i = 0; i < W * H; i++) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = SRGB_TO_LINEAR[image.data[i * 4 + c]];
  const fill = new Uint8Array(W * H);
  const source = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = ARM[0]; x < ARM[1]; x++) {
      const i = y * W + x;
      if (y >= BAND[0] && y < BAND[1]) fill[i] = 1;
      else source[i] = 1;
    }
  }
  const depth = distanceTransform(mask, W, H, 'unset');
  const own = localStd(image.data, W, source, [0, 0, W, H], 1);
  synthesiseFill(canvas, fill, body, source, depth, () => 20, undefined, own);
  const out = new Uint8Array(W * H * 4);
  for (let i = 0; i < W * H; i++) {
    for (let c = 0; c < 3; c++) out[i * 4 + c] = Math.round(linearToSrgb(canvas[i * 3 + c]));
    out[i * 4 + 3] = 255;
  }
  return { out, fill, source, own, photo: image.data };
}

const lum = (d: Uint8Array, i: number) => 0.299 * d[i * 4] + 0.587 * d[i * 4 + 1] + 0.114 * d[i * 4 + 2];
/** Mean luminance over columns x0..x1 of rows y0..y1. */
function mean(d: Uint8Array, x0: number, x1: number, y0: number, y1: number): number {
  let s = 0;
  let c = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      s += lum(d, y * W + x);
      c++;
    }
  }
  return s / c;
}

describe('synthesiseFill (skin)', () => {
  const { out, fill, own, photo } = render();

  it('has the texture of the skin around it (5x5 local std within 0.75-1.33x)', () => {
    const std = localStd(out, W, fill, [0, 0, W, H], 1);
    expect(std / own).toBeGreaterThan(0.75);
    expect(std / own).toBeLessThan(1.33);
  });

  it('has its colour and is shaded across the limb (centre lighter than the outline)', () => {
    const centre = mean(out, 56, 64, BAND[0] + 5, BAND[1] - 5);
    const edges = (mean(out, ARM[0], ARM[0] + 4, BAND[0] + 5, BAND[1] - 5) + mean(out, ARM[1] - 4, ARM[1], BAND[0] + 5, BAND[1] - 5)) / 2;
    const skinCentre = mean(photo, 56, 64, 10, 50);
    expect(Math.abs(centre - skinCentre)).toBeLessThan(8);
    expect(centre - edges).toBeGreaterThan(8);
  });

  it('joins the skin above and below without a step (no flat band, no hard end)', () => {
    for (const [a, b] of [
      [BAND[0] - 4, BAND[0]],
      [BAND[1], BAND[1] + 4],
    ]) {
      const inside = a < BAND[0] ? mean(out, 50, 70, BAND[0], BAND[0] + 4) : mean(out, 50, 70, BAND[1] - 4, BAND[1]);
      expect(Math.abs(inside - mean(out, 50, 70, a, b))).toBeLessThan(6);
    }
  });

  it('gives the same pixels on every run', () => {
    expect(Buffer.from(render().out).equals(Buffer.from(out))).toBe(true);
  });
});
