import type { RasterImage } from '../../../core/images.ts';
import type { ProductReconstructor, ReconstructionRequest, ReconstructionResult } from '../../../core/ports/product-reconstructor.ts';
import { writeGlb } from '../../gltf/write-glb.ts';
import { distanceTransform } from '../raster/distance-transform.ts';
import { buildAtlas } from './atlas.ts';
import { cameraFromSilhouette, type ViewCamera } from './camera.ts';
import { encodeRaster } from './encode.ts';
import { HullField, sampleField, type FieldGrid } from './hull-field.ts';
import { inflationField } from './inflate.ts';
import { bounds, dropSpecks, projectToSurface, simplify, taubinSmooth, transform, vertexNormals } from './mesh-ops.ts';
import { buildSilhouette, type Silhouette } from './silhouettes.ts';
import { surfaceNets, type TriMesh } from './surface-nets.ts';
import { bakeTexture, type Symmetry } from './texture-bake.ts';
import { validateGlb } from './validate-glb.ts';
import { FitroomError } from '../../../core/errors.ts';
import { estimateGround, estimateViews, frontBackSymmetryScore, mirrorSymmetryScore, type CameraScore } from './view-angles.ts';

/** Real-world size when the photos carry no scale: shoe length and bag width, metres. */
export const DEFAULT_SHOE_LENGTH_M = 0.28;
export const DEFAULT_OTHER_WIDTH_M = 0.3;

export interface QualitySettings {
  /** Voxels along the longest horizontal extent of the hull. */
  grid: number;
  /** Triangles after simplification. */
  triangles: number;
  /** Base colour atlas side, texels. */
  textureSize: number;
  /** Silhouette working height, pixels. */
  workHeight: number;
}

export const QUALITY: Record<'default' | 'high', QualitySettings> = {
  default: { grid: 160, triangles: 20000, textureSize: 1024, workHeight: 256 },
  high: { grid: 224, triangles: 40000, textureSize: 2048, workHeight: 384 },
};

/** Silhouette IoU above which a mirror symmetry is taken to hold. */
const SYMMETRY_IOU = 0.93;

/** The reconstructed model before writing: normalised geometry plus what produced it. */
export interface BuiltinModel {
  mesh: TriMesh;
  normals: Float32Array;
  uvs: Float32Array;
  texture: RasterImage;
  /** Metres per normalised unit and the translation applied. */
  cameras: ViewCamera[];
  notes: string[];
}

/**
 * ProductReconstructor 'builtin': a visual hull from cleaned packshots.
 *
 * Each photo's azimuth is estimated from the silhouettes whatever the order (view-angles.ts), then
 * the camera shared by the photos, its elevation and its distance (a long lens or a close,
 * perspective camera); the silhouettes are registered to a common frame (cameras around the
 * vertical axis; scales and offsets from frontier planes, corrected for perspective and aligned
 * by outline rays, registration.ts). When the photos look down into a shoe, its opening is carved (a shoe-last
 * assumption for the footbed's height). The hull is sampled as an implicit field and meshed with
 * surface nets, smoothed (Taubin), pulled back onto the hull and simplified with meshoptimizer; one view (or two opposite sides) gives an
 * inflated silhouette instead. Left-right symmetry is enforced on the hull when the silhouettes
 * show it and used to colour surfaces no photo saw. The photos are projected onto a projection
 * atlas and written as a GLB with a PBR material, scaled from product-type defaults (shoe 28 cm
 * long, other products 30 cm wide), sole on y = 0, shoe toe towards +X, validated before return.
 */
export class BuiltinProductReconstructor implements ProductReconstructor {
  readonly id = 'builtin' as const;
  private readonly quality: Record<'default' | 'high', QualitySettings>;

  constructor(quality: Partial<Record<'default' | 'high', Partial<QualitySettings>>> = {}) {
    this.quality = {
      default: { ...QUALITY.default, ...quality.default },
      high: { ...QUALITY.high, ...quality.high },
    };
  }

  async reconstruct(req: ReconstructionRequest): Promise<ReconstructionResult> {
    const notes: string[] = [];
    const note = (m: string) => {
      notes.push(m);
      req.note?.(m);
    };
    const model = await this.build(req, note);
    await new Promise((r) => setImmediate(r));
    if (req.signal.aborted) throw req.signal.reason ?? new Error('aborted');
    const glb = await writeGlb({
      positions: model.mesh.positions,
      normals: model.normals,
      uvs: model.uvs,
      indices: model.mesh.indices,
      baseColor: await encodeRaster(model.texture, 'png'),
      name: req.productType === 'shoe' ? 'shoe' : 'product',
      roughness: 0.75,
      extras: { reconstruction: 'builtin visual hull', notes },
    });
    const report = await validateGlb(glb);
    if (report.errors > 0) throw Object.assign(new Error(`generated GLB failed validation: ${report.messages.join('; ')}`), { code: 'INTERNAL_ERROR' });
    req.onProgress?.(1);
    return { glb, notes };
  }

  /** Geometry and texture without writing the GLB (texture enhancement reuses it). */
  async build(req: ReconstructionRequest, note: (m: string) => void): Promise<BuiltinModel> {
    const q = this.quality[req.quality];
    const progress = (f: number) => req.onProgress?.(Math.min(0.99, f));
    // yields to the event loop between steps, so a stage timeout or a cancellation (timers and
    // notifications) is seen within one step, then stops the work
    const abort = async () => {
      await new Promise((r) => setImmediate(r));
      if (req.signal.aborted) throw req.signal.reason ?? new Error('aborted');
    };
    await abort();
    const sils: Silhouette[] = [];
    const given: (number | undefined)[] = [];
    const elevations: (number | undefined)[] = [];
    for (let i = 0; i < req.views.length; i++) {
      const v = req.views[i];
      const s = buildSilhouette(v.image, q.workHeight);
      if (!s) note(`view ${i + 1} has no object after cleanup and was skipped`);
      else {
        sils.push(s);
        given.push(v.angleDeg);
        elevations.push(v.elevationDeg);
      }
      await abort();
    }
    if (sils.length === 0) throw new FitroomError('IMAGE_INVALID', 'No photo shows a product that stands out from its background: send packshots of one shoe or bag on a plain, light background, filling a good part of the frame');
    progress(0.05);
    const views = await estimateViews(sils, given, elevations, abort);
    const { angles, choice } = views;
    note(`views: ${sils.length}; angles ${angles.map((a, i) => (views.top.includes(i) ? `top(${Math.round(a)})` : Math.round(a))).join('/')} deg (${choice.layout}${choice.scores.length > 1 ? `; silhouette consistency ${choice.scores.map((s) => `${s.layout} ${s.deficit.toFixed(4)}`).join(', ')}` : ''})`);
    if (views.topNote) note(views.topNote);
    const side = sils.map((_, i) => i).filter((i) => !views.top.includes(i));
    const cam = views.camera;
    if (cam) {
      const ranked = [...cam.scores].sort((p, q) => p.missPx - q.missPx).slice(0, 5);
      const fmt = (c: CameraScore) => `${c.elevationDeg} deg ${Number.isFinite(c.lengths) ? `${c.lengths} lengths` : 'orthographic'}: ${c.missPx.toFixed(3)} px`;
      note(`camera elevation ${cam.elevationDeg} deg, ${cam.hinted ? 'as hinted (options.views)' : 'estimated from the silhouettes'}; ${Number.isFinite(cam.lengths) ? `perspective, about ${cam.lengths} object lengths away` : 'orthographic (a long lens)'}, estimated (outline rays' mean miss after alignment, best of ${cam.scores.length}: ${ranked.map(fmt).join(', ')})`);
    } else if (views.directions > 1) {
      const e = sils[side[0]]?.elevationDeg ?? 0;
      note(`camera elevation ${e} deg, ${elevations.some((x, i) => x !== undefined && side.includes(i)) ? 'as hinted (options.views)' : 'assumed level'}; orthographic: photos from ${views.directions} directions cannot tell a raised or close camera`);
    }
    // symmetry from the photos taken from the side (a top view is not mirrored by another)
    const sideSils = side.map((i) => sils[i]), sideAngles = side.map((i) => angles[i]);
    const zSym = sideSils.length > 1 ? mirrorSymmetryScore(sideSils, sideAngles) : null;
    const xSym = sideSils.length > 1 ? frontBackSymmetryScore(sideSils, sideAngles) : null;
    const distinct = views.directions;
    await abort();
    // 1. implicit field: visual hull, or inflation when the views carry no depth
    let field: (x: number, y: number, z: number) => number;
    let hull: HullField | null = null;
    const symmetry: Symmetry = {};
    if (distinct === 1) {
      const ratio = req.productType === 'shoe' ? 0.37 : 0.4;
      field = inflationField(sils[0], ratio, angles[0] === 180);
      note(`${sils.length === 1 ? 'one view' : 'only opposite sides'}: closed shape by inflating the silhouette to ${Math.round(ratio * 100)}% of its width (assumed, not measured); hidden sides coloured from the mirror image`);
      symmetry.z = 0;
    } else {
      hull = new HullField(sils.map((sil, i) => ({ sil, azimuthDeg: angles[i] })));
      field = (x, y, z) => hull!.at(x, y, z);
      if ((cam?.elevationDeg ?? sils[side[0]]?.elevationDeg ?? 0) > 0) {
        const ground = await estimateGround(hull, sils, angles, abort);
        if (ground.floorY !== null) note(`ground: photos from above do not see under the product; the hull is cut ${((ground.floorY - ground.lowest) * 100).toFixed(1)}% of its height above its lowest point, the highest cut that still fills every photo's outline`);
      }
    }
    const b = hull ? hull.bounds() : inflationBounds(sils[0], req.productType === 'shoe' ? 0.37 : 0.4);
    if (hull && zSym !== null && zSym >= SYMMETRY_IOU) {
      symmetry.z = (b.min[2] + b.max[2]) / 2;
      if (mirrorClosed(sideAngles)) {
        note(`left-right symmetry holds (silhouette IoU ${zSym.toFixed(3)}); the views already constrain both sides alike, so it is used for colouring only`);
      } else {
        hull.symmetryZ = symmetry.z;
        note(`left-right symmetry holds (silhouette IoU ${zSym.toFixed(3)}): hull intersected with its mirror image`);
      }
    } else if (zSym !== null) {
      note(`left-right symmetry not assumed (silhouette IoU ${zSym.toFixed(3)})`);
    }
    if (xSym !== null && xSym >= SYMMETRY_IOU && req.productType !== 'shoe') {
      symmetry.x = (b.min[0] + b.max[0]) / 2;
      note(`front-back symmetry holds (silhouette IoU ${xSym.toFixed(3)}): used to colour unseen sides`);
    }
    const ext = Math.max(b.max[0] - b.min[0], b.max[2] - b.min[2], (b.max[1] - b.min[1]) * 0.5);
    const step = ext / q.grid;
    let grid = hull ? await hull.sampleGrid(b, step, req.signal) : sampleField(field, b, step, req.signal);
    let hollowed = false;
    if (hull && req.productType === 'shoe') {
      const carved = await carveShoeInside(grid, req.signal);
      hollowed = carved !== null;
      if (carved) {
        grid = carved.grid;
        // the hull where it was (its exact field keeps sub-voxel outlines), the carved inside on top
        const hullAt = field, inside = gridField(carved.cavity, -1.5 * step);
        field = (x, y, z) => Math.max(hullAt(x, y, z), inside(x, y, z));
        note(`shoe inside (shoe-last assumptions; photos do not see inside a shoe): hollow from ${pct(INSIDE_START)} to ${pct(INSIDE_END)} of the length from the heel end, above a footbed ${pct(FOOTBED_HEIGHT)} of the length over the sole's underside, inside walls ${pct(SHOE_WALL)} of the height thick; the opening is open to the top up to ${pct(OPENING_END)} of the length`);
      } else {
        note('shoe inside not carved: the hull shows no heel end taller than the toe');
      }
    }
    progress(0.3);
    await abort();
    // 2. mesh, smooth, back onto the surface, simplify
    let mesh = surfaceNets(grid);
    await abort();
    if (mesh.indices.length === 0) throw new FitroomError('IMAGE_INVALID', 'The photos do not show one consistent object from different sides (their outlines do not overlap): send views of the same product, each from a different side');
    if (req.productType === 'shoe') {
      const specks = dropSpecks(mesh, SPECK_SHARE);
      mesh = specks.mesh;
      if (specks.dropped) note(`${specks.dropped} loose piece(s) under ${SPECK_SHARE * 100}% of the surface dropped (a thin part such as a pull loop that fell apart)`);
    }
    taubinSmooth(mesh, 4);
    await abort();
    projectToSurface(mesh, field, step * 0.5, step * 0.5, 1);
    taubinSmooth(mesh, 1);
    mesh = await simplify(mesh, q.triangles, 0.0004);
    progress(0.45);
    await abort();
    // 3. orientation check for shoes: the heel end is the taller one; put the toe at +X
    let rotate = 0;
    if (req.productType === 'shoe' && distinct > 1) {
      const bb = bounds(mesh.positions);
      const len = bb.max[0] - bb.min[0];
      let hMin = 0, hMax = 0;
      for (let v = 0; v < mesh.positions.length; v += 3) {
        const x = mesh.positions[v], y = mesh.positions[v + 1];
        if (x < bb.min[0] + 0.2 * len) hMin = Math.max(hMin, y);
        if (x > bb.max[0] - 0.2 * len) hMax = Math.max(hMax, y);
      }
      if (hMax > hMin * 1.1) {
        rotate = 180;
        note('the taller (heel) end faced +X: model turned 180 degrees so the toe points to +X');
      }
    }
    // 4. texture in the normalised frame, where the photo cameras live
    const normals = vertexNormals(mesh);
    const atlas = buildAtlas(mesh, q.textureSize, 4, hollowed ? liningDensity(mesh, hull!) : undefined);
    progress(0.55);
    await abort();
    const cams: ViewCamera[] = sils.map((s, i) => cameraFromSilhouette(s, angles[i]));
    const baked = await bakeTexture(atlas, mirrorNormals(atlas.sourceVertex, normals), cams, { size: q.textureSize, depthTolerance: Math.max(2 * step, 3 / Math.min(...sils.map((s) => s.ppu))), symmetry, signal: req.signal });
    note(`texture ${q.textureSize}px, ${atlas.charts} charts; ${(baked.seenShare * 100).toFixed(1)}% of the surface coloured from photos, ${(baked.mirroredShare * 100).toFixed(1)}% from mirror images, the rest filled from neighbouring colours`);
    progress(0.85);
    await abort();
    // 5. metric scale and placement: sole on y = 0, centred on the vertical axis
    const bb = bounds(atlas.positions);
    const width = bb.max[0] - bb.min[0], depth = bb.max[2] - bb.min[2];
    const metres = req.productType === 'shoe' ? DEFAULT_SHOE_LENGTH_M / width : DEFAULT_OTHER_WIDTH_M / Math.max(width, depth);
    note(req.productType === 'shoe' ? `scale: shoe length set to ${Math.round(DEFAULT_SHOE_LENGTH_M * 1000) / 10} cm (product-type default; the photos carry no scale)` : `scale: widest side set to ${Math.round(DEFAULT_OTHER_WIDTH_M * 1000) / 10} cm (product-type default; the photos carry no scale)`);
    const out: TriMesh = { positions: atlas.positions, indices: atlas.indices };
    const cx = (bb.min[0] + bb.max[0]) / 2, cz = (bb.min[2] + bb.max[2]) / 2;
    transform(out, 1, [-cx, -bb.min[1], -cz]);
    transform(out, metres, [0, 0, 0], rotate);
    const outNormals = mirrorNormals(atlas.sourceVertex, normals);
    if (rotate) transform({ positions: outNormals, indices: new Uint32Array(0) }, 1, [0, 0, 0], rotate);
    const tris = out.indices.length / 3;
    note(`mesh: ${tris} triangles, ${(width * metres * 100).toFixed(1)} x ${((bb.max[1] - bb.min[1]) * metres * 100).toFixed(1)} x ${(depth * metres * 100).toFixed(1)} cm`);
    return { mesh: out, normals: outNormals, uvs: atlas.uvs, texture: baked.texture, cameras: cams, notes: [] };
  }
}

/** Where the hollow inside a shoe starts and ends, as shares of the length from the heel end (heel counter and toe cap). */
const INSIDE_START = 0.08;
const INSIDE_END = 0.92;
/** Where the opening, open to the top, ends (the throat; under the tongue the shoe is hollow but closed). */
const OPENING_END = 0.38;
/** How far (share of the height) a collar's walls may lean inwards towards the rim. */
const COLLAR_LEAN = 0.12;
/** Height of the footbed above the sole's underside, as a share of the shoe's length. */
const FOOTBED_HEIGHT = 0.1;
/** Half-width (share of the length) of the window over which the footbed follows the highest underside (a block heel's seat, not the ground under it). */
const FOOTBED_WINDOW = 0.06;
/** Thickness of the upper and lining around the inside, as a share of the height. */
const SHOE_WALL = 0.035;

/**
 * The inside of a shoe, which silhouettes never see: a visual hull is solid and closes the opening
 * with a lid at the rim's height. A shoe last puts the foot from the heel counter to the toe cap,
 * above a footbed that follows the sole. Every hull point inside that span, above the footbed and
 * farther than the walls' thickness from the outline of its horizontal slice, is carved out; over
 * the rear part (the heel end is the taller one) the hollow is open to the top. Returns the carved
 * grid, or null when the hull shows no heel end taller than the toe.
 */
async function carveShoeInside(grid: FieldGrid, signal: AbortSignal): Promise<{ grid: FieldGrid; cavity: FieldGrid } | null> {
  const { nx, ny, nz, origin, step, values } = grid;
  const [ground, top] = insideHeights(grid);
  const H = top - ground;
  // x extent, the sole's underside per x column and the top height near each end
  let i0 = nx, i1 = -1;
  const under = new Float64Array(nx).fill(Infinity);
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
    if (values[(k * ny + j) * nx + i] >= 0) continue;
    if (i < i0) i0 = i;
    if (i > i1) i1 = i;
    under[i] = Math.min(under[i], origin[1] + j * step);
  }
  if (i1 <= i0) return null;
  const topNear = (f: number) => {
    const ic = Math.round(i0 + f * (i1 - i0));
    for (let j = ny - 1; j >= 0; j--) for (let k = 0; k < nz; k++) if (values[(k * ny + j) * nx + ic] < 0) return origin[1] + j * step;
    return ground;
  };
  const heelMin = topNear(0.12), heelMax = topNear(0.88);
  if (Math.max(heelMin, heelMax) < ground + 0.5 * H) return null;
  const len = (i1 - i0) * step, xMin = origin[0] + i0 * step, xMax = origin[0] + i1 * step;
  // shares of the length from the heel end to x
  const heelAtMin = heelMin >= heelMax;
  const share = (x: number) => (heelAtMin ? x - xMin : xMax - x) / len;
  // the footbed over the highest underside nearby: a block heel stands on the ground, its seat does not
  const r = Math.round((FOOTBED_WINDOW * len) / step);
  const footbed = new Float64Array(nx);
  for (let i = i0; i <= i1; i++) {
    let m = -Infinity;
    for (let q = Math.max(i0, i - r); q <= Math.min(i1, i + r); q++) if (Number.isFinite(under[q])) m = Math.max(m, under[q]);
    footbed[i] = (Number.isFinite(m) ? m : ground) + FOOTBED_HEIGHT * len;
  }
  const lowest = Math.min(...footbed.subarray(i0, i1 + 1));
  const wall = SHOE_WALL * H;
  const out = Float32Array.from(values);
  // the carving alone: positive where carved, -1.5 steps (no constraint) elsewhere
  const cavityValues = new Float32Array(values.length).fill(-1.5 * step);
  const slice = new Uint8Array(nx * nz);
  // a column once opened stays open up to the top (the thin lid along a sloping rim has no depth)
  const open = new Uint8Array(nx * nz);
  for (let j = 0; j < ny; j++) {
    const y = origin[1] + j * step;
    if (y <= lowest) continue;
    if (j % 4 === 0) {
      // a slice is a few milliseconds: yield so timeouts and cancellations are seen
      await new Promise((r) => setImmediate(r));
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
    }
    for (let k = 0; k < nz; k++) for (let i = 0; i < nx; i++) slice[k * nx + i] = values[(k * ny + j) * nx + i] < 0 ? 1 : 0;
    // horizontal depth inside this slice's outline, world units
    const depth = distanceTransform(slice, nx, nz, 'unset');
    for (let k = 0; k < nz; k++) {
      for (let i = 0; i < nx; i++) {
        if (!slice[k * nx + i]) continue;
        const x = origin[0] + i * step, f = share(x);
        const d = depth[k * nx + i] * step;
        let cavity = Math.max(wall - d, footbed[i] - y, (INSIDE_START - f) * len, (f - INSIDE_END) * len);
        // a column deep inside the opening lower down stays open to the top; columns nearer the
        // walls do not, so walls that lean inward towards the rim are kept
        if (open[k * nx + i]) cavity = Math.min(cavity, -step);
        if (cavity < 0 && f <= OPENING_END && d > wall + COLLAR_LEAN * H) open[k * nx + i] = 1;
        const idx = (k * ny + j) * nx + i;
        cavityValues[idx] = Math.max(-1.5 * step, Math.min(-cavity, 1.5 * step));
        if (-cavity > out[idx]) out[idx] = Math.min(-cavity, 1.5 * step);
      }
    }
  }
  return { grid: { ...grid, values: out }, cavity: { ...grid, values: cavityValues } };
}

/** Loose pieces with less than this share of a shoe's triangles are dropped. */
const SPECK_SHARE = 0.005;

/** Texel density (relative) of a shoe's lining: faces well inside the hull, which photos do not see. */
const LINING_DENSITY = 0.4;

function liningDensity(mesh: TriMesh, hull: HullField): Float32Array {
  const { positions: p, indices: idx } = mesh;
  const out = new Float32Array(idx.length / 3);
  for (let f = 0; f < out.length; f++) {
    let x = 0, y = 0, z = 0;
    for (let k = 0; k < 3; k++) { const v = idx[f * 3 + k] * 3; x += p[v] / 3; y += p[v + 1] / 3; z += p[v + 2] / 3; }
    out[f] = hull.at(x, y, z) < -0.5 * SHOE_WALL ? LINING_DENSITY : 1;
  }
  return out;
}

const pct = (f: number) => `${Math.round(f * 1000) / 10}%`;

/** Lowest and highest height of the sampled grid's inside points. */
function insideHeights(grid: FieldGrid): [number, number] {
  let j0 = Infinity, j1 = -Infinity;
  const { nx, ny, nz, values } = grid;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++) {
        if (values[(k * ny + j) * nx + i] < 0) {
          if (j < j0) j0 = j;
          if (j > j1) j1 = j;
        }
      }
    }
  }
  return Number.isFinite(j0) ? [grid.origin[1] + j0 * grid.step, grid.origin[1] + j1 * grid.step] : [0, 1];
}

/** Trilinear interpolation of a sampled field (values beyond the grid are taken as outside). */
function gridField(grid: FieldGrid, beyond = 1.5 * grid.step): (x: number, y: number, z: number) => number {
  const { nx, ny, nz, origin, step, values } = grid;
  return (x, y, z) => {
    const gx = (x - origin[0]) / step, gy = (y - origin[1]) / step, gz = (z - origin[2]) / step;
    if (gx < 0 || gy < 0 || gz < 0 || gx >= nx - 1 || gy >= ny - 1 || gz >= nz - 1) return beyond;
    const i = Math.floor(gx), j = Math.floor(gy), k = Math.floor(gz);
    const fx = gx - i, fy = gy - j, fz = gz - k;
    const at = (a: number, b: number, c: number) => values[((k + c) * ny + (j + b)) * nx + (i + a)];
    const lerp = (a: number, b: number, t: number) => a + (b - a) * t;
    return lerp(
      lerp(lerp(at(0, 0, 0), at(1, 0, 0), fx), lerp(at(0, 1, 0), at(1, 1, 0), fx), fy),
      lerp(lerp(at(0, 0, 1), at(1, 0, 1), fx), lerp(at(0, 1, 1), at(1, 1, 1), fx), fy),
      fz,
    );
  };
}

/** Normals of the atlas vertices, copied from their source vertices. */
function mirrorNormals(source: Uint32Array, normals: Float32Array): Float32Array {
  const out = new Float32Array(source.length * 3);
  for (let v = 0; v < source.length; v++) {
    out[v * 3] = normals[source[v] * 3];
    out[v * 3 + 1] = normals[source[v] * 3 + 1];
    out[v * 3 + 2] = normals[source[v] * 3 + 2];
  }
  return out;
}

function inflationBounds(sil: Silhouette, ratio: number): { min: [number, number, number]; max: [number, number, number] } {
  const u0 = (sil.left - sil.axisX) / sil.ppu, u1 = (sil.right - sil.axisX) / sil.ppu;
  const half = ((u1 - u0) * ratio) / 2;
  const m = 0.02 * (u1 - u0);
  return { min: [Math.min(u0, -u1) - m, 0, -half - m], max: [Math.max(u1, -u0) + m, 1, half + m] };
}

/**
 * Whether mirroring the product left-right maps the set of silhouette constraints onto itself:
 * the mirror of a view at a is a view at -a, and opposite views constrain alike (mod 180).
 */
function mirrorClosed(angles: number[]): boolean {
  const mod = angles.map((a) => ((Math.round(a) % 180) + 180) % 180);
  return mod.every((a) => mod.some((b) => Math.abs(((b + a) % 180)) < 1 || Math.abs(((b + a) % 180) - 180) < 1));
}
