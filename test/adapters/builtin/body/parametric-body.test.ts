import { describe, expect, it } from 'vitest';
import type { BodyLandmarks, BodyProfile, PoseId, Point } from '../../../../core/twins/body.ts';
import { POSE_IDS } from '../../../../core/twins/body.ts';
import { buildBodyModel } from '../../../../adapters/builtin/body/body-model.ts';
import { POSES } from '../../../../adapters/builtin/body/poses.ts';
import { ellipseWidthFromCircumference, ellipsePerimeter, proportionsFor } from '../../../../adapters/builtin/body/proportions.ts';
import type { BodyRaster } from '../../../../adapters/builtin/body/rasterize-body.ts';
import { rasterizeBody } from '../../../../adapters/builtin/body/rasterize-body.ts';
import { labelComponents } from '../../../../adapters/builtin/body/mask-ops.ts';

const SIZE = { width: 384, height: 512 };

function profile(gender: 'male' | 'female' | null, m: BodyProfile['measurements']): BodyProfile {
  return { gender, measurements: m, supplied: { height: true, chest: true, waist: true, hip: true, inseam: true }, source: 'measurements' };
}
const FEMALE = profile('female', { height: 165, chest: 92, waist: 74, hip: 100, inseam: 77 });
const MALE = profile('male', { height: 180, chest: 104, waist: 90, hip: 101, inseam: 84 });

function render(p: BodyProfile, pose: PoseId, size = SIZE): BodyRaster {
  return rasterizeBody(buildBodyModel(p, POSES[pose]), size, POSES[pose]);
}

/** Width in px of the mask run containing the body's centre column at row y. */
function runWidth(r: BodyRaster, y: number): number {
  const w = r.image.width;
  const row = Math.round(y);
  const cx = Math.round(w / 2);
  let x0 = cx;
  let x1 = cx;
  while (x0 > 0 && r.mask[row * w + x0 - 1]) x0--;
  while (x1 < w - 1 && r.mask[row * w + x1 + 1]) x1++;
  return x1 - x0 + 1;
}

/** Rendered stature in px: from the head top landmark to the lowest mask row. */
function staturePx(r: BodyRaster): number {
  const { width: w, height: h } = r.image;
  let bottom = 0;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (r.mask[y * w + x]) bottom = y;
  return bottom + 1 - r.landmarks.headTop.y;
}

function distanceToMask(r: BodyRaster, p: Point): number {
  const { width: w, height: h } = r.image;
  let best = Infinity;
  for (let y = Math.max(0, Math.floor(p.y) - 4); y <= Math.min(h - 1, Math.ceil(p.y) + 4); y++) {
    for (let x = Math.max(0, Math.floor(p.x) - 4); x <= Math.min(w - 1, Math.ceil(p.x) + 4); x++) {
      if (r.mask[y * w + x]) best = Math.min(best, Math.hypot(x + 0.5 - p.x, y + 0.5 - p.y));
    }
  }
  return best;
}

describe('ellipse girth model', () => {
  it('inverts the perimeter: a circle of width d has circumference pi d', () => {
    expect(ellipseWidthFromCircumference(Math.PI * 30, 1)).toBeCloseTo(30, 6);
    const w = ellipseWidthFromCircumference(100, 0.7);
    expect(ellipsePerimeter(w / 2, (w / 2) * 0.7)).toBeCloseTo(100, 6);
  });
});

describe('parametric body silhouette', () => {
  for (const [name, p] of [['female', FEMALE], ['male', MALE]] as const) {
    it(`${name}: chest, waist and hip band widths per rendered height follow the profile within 5%`, () => {
      const r = render(p, name === 'female' ? 'girl_pose' : 'man_pose');
      const props = proportionsFor(p.gender);
      const H = staturePx(r);
      expect(H / r.pixelsPerCm).toBeCloseTo(p.measurements.height, -0.5); // within ~1.5 cm
      const bands = [
        ['chest', r.landmarks.chestLeft.y, props.chestDepthRatio],
        ['waist', r.landmarks.waistLeft.y, props.waistDepthRatio],
        ['hip', r.landmarks.hipLeft.y, props.hipDepthRatio],
      ] as const;
      for (const [girth, y, ratio] of bands) {
        const expected = ellipseWidthFromCircumference(p.measurements[girth], ratio) / p.measurements.height;
        const measured = runWidth(r, y) / H;
        expect(Math.abs(measured / expected - 1), `${girth}: ${measured} vs ${expected}`).toBeLessThan(0.05);
      }
    });
  }

  it('a wider hip profile gives a proportionally wider hip band and leaves the chest alone', () => {
    const narrow = render(FEMALE, 'man_pose');
    const wide = render(profile('female', { ...FEMALE.measurements, hip: 120 }), 'man_pose');
    const ratio = (r: BodyRaster, y: number) => runWidth(r, y) / staturePx(r);
    const hipGrowth = ratio(wide, wide.landmarks.hipLeft.y) / ratio(narrow, narrow.landmarks.hipLeft.y);
    expect(hipGrowth).toBeGreaterThan(1.15);
    expect(Math.abs(hipGrowth / 1.2 - 1)).toBeLessThan(0.05);
    const chestChange = ratio(wide, wide.landmarks.chestLeft.y) / ratio(narrow, narrow.landmarks.chestLeft.y);
    expect(Math.abs(chestChange - 1)).toBeLessThan(0.03);
  });

  it('the head is about 1/7.5 of the height and the crotch sits at the inseam', () => {
    const r = render(MALE, 'standing_arms_down');
    const H = staturePx(r);
    expect((r.landmarks.chin.y - r.landmarks.headTop.y) / H).toBeCloseTo(1 / 7.5, 2);
    const sole = r.landmarks.headTop.y + H;
    expect((sole - r.landmarks.crotch.y) / r.pixelsPerCm).toBeCloseTo(MALE.measurements.inseam, -0.5);
  });

  it('every pose gives one connected mask with all landmarks on it', () => {
    for (const pose of POSE_IDS) {
      const r = render(FEMALE, pose);
      const { sizes } = labelComponents(r.mask, SIZE.width, SIZE.height);
      expect(sizes.length - 1, pose).toBe(1);
      for (const [key, value] of Object.entries(r.landmarks) as [keyof BodyLandmarks, Point | number][]) {
        if (typeof value === 'number') continue;
        expect(distanceToMask(r, value), `${pose} ${key}`).toBeLessThanOrEqual(1.5);
      }
      // depth is positive exactly on the mask
      for (let i = 0; i < r.mask.length; i += 7) expect(r.depth[i] > 0, `${pose} depth ${i}`).toBe(r.mask[i] === 255);
    }
  });

  it('poses move the arms and legs as described', () => {
    const spread = (r: BodyRaster, a: Point, b: Point) => Math.abs(a.x - b.x) / r.pixelsPerCm;
    const down = render(MALE, 'standing_arms_down');
    const man = render(MALE, 'man_pose');
    const shoe = render(FEMALE, 'shoe_girl_pose');
    const girl = render(FEMALE, 'girl_pose');
    const walk = render(FEMALE, 'walking_pose');
    // arms hang closer to the body when down than in the A-stance
    expect(spread(man, man.landmarks.leftWrist, man.landmarks.rightWrist)).toBeGreaterThan(spread(down, down.landmarks.leftWrist, down.landmarks.rightWrist) + 15);
    expect(spread(man, man.landmarks.leftAnkle, man.landmarks.rightAnkle)).toBeGreaterThan(spread(down, down.landmarks.leftAnkle, down.landmarks.rightAnkle) + 5);
    // symmetric standing poses are mirror images around the centre
    expect(down.landmarks.leftWrist.x - SIZE.width / 2).toBeCloseTo(SIZE.width / 2 - down.landmarks.rightWrist.x, 3);
    // left is the subject's left: the image's right
    expect(man.landmarks.leftShoulder.x).toBeGreaterThan(man.landmarks.rightShoulder.x);
    // shoe pose: toes turned out and a deeper floor margin under the feet
    const toeGap = (r: BodyRaster) => r.landmarks.leftToe.x - r.landmarks.rightToe.x - (r.landmarks.leftAnkle.x - r.landmarks.rightAnkle.x);
    expect(toeGap(shoe)).toBeGreaterThan(toeGap(girl) + 5);
    expect(SIZE.height - shoe.landmarks.leftToe.y).toBeGreaterThan(SIZE.height - girl.landmarks.leftToe.y + 0.04 * SIZE.height);
    // walking: the forward swinging arm is shortened in front view, the back heel is lifted
    expect(Math.abs(walk.landmarks.leftWrist.y - walk.landmarks.rightWrist.y) / walk.pixelsPerCm).toBeGreaterThan(2);
    expect(walk.landmarks.rightAnkle.y).toBeLessThan(walk.landmarks.leftAnkle.y - 3);
    // girl pose is asymmetric (relaxed left knee)
    expect(Math.abs(girl.landmarks.leftKnee.y - girl.landmarks.rightKnee.y)).toBeGreaterThan(0.5);
  });

  it('renders at the requested size and is deterministic', () => {
    const a = render(FEMALE, 'walking_pose', { width: 300, height: 400 });
    const b = render(FEMALE, 'walking_pose', { width: 300, height: 400 });
    expect(a.image.width).toBe(300);
    expect(a.image.height).toBe(400);
    expect(Buffer.from(a.image.data).equals(Buffer.from(b.image.data))).toBe(true);
    expect(Buffer.from(a.depth.buffer).equals(Buffer.from(b.depth.buffer))).toBe(true);
  });

  it('shades by depth: the lit side of the torso is brighter than the far side and the background stays light', () => {
    const r = render(MALE, 'man_pose');
    const w = SIZE.width;
    const y = Math.round(r.landmarks.waistLeft.y);
    const lum = (x: number) => r.image.data[(y * w + x) * 4 + 1];
    const left = Math.round(r.landmarks.waistRight.x + 4); // image left, towards the key light
    const right = Math.round(r.landmarks.waistLeft.x - 4);
    expect(lum(left)).toBeGreaterThan(lum(right) + 10);
    expect(r.image.data[1]).toBeGreaterThan(230);
  });
});
