import { HullField, type HullView } from './hull-field.ts';
import { alignByRays, refinePerspective, registerViews } from './registration.ts';
import { silhouetteDistance, silhouetteSpan, viewRayPoint, viewTrig, type Silhouette } from './silhouettes.ts';

/**
 * View angles for the builtin reconstruction.
 *
 * Assumption from the request order: n views were taken while turning the product one way round
 * through half a turn in equal steps, starting with the side view (toe to the right): 2 views =
 * 0/90, 3 = 0/60/120, 4 = 0/45/90/135, 6 = 0/30/.../150. Orthographic silhouettes of opposite views
 * carry the same constraint, so half a turn gives the most distinct silhouettes per photo.
 *
 * Up to 4 views the order does not matter: `estimateAngles` tries every assignment of the photos to
 * a half or a full turn. With more views, the other usual layouts (a full turn and both turning
 * directions) are scored by silhouette consistency: every silhouette pixel's ray must meet the hull
 * carved from the other views; the layout with clearly the smallest deficit wins and near ties keep
 * the assumption. Angles given with the views are used as they are.
 */
/** Called between scoring steps: yields to the event loop (and may throw when the work is cancelled). */
export type Pause = () => Promise<void>;
const yieldOnly: Pause = () => new Promise((r) => setImmediate(r));

export interface AngleChoice {
  angles: number[];
  layout: string;
  /** Consistency deficit per layout considered (mean world-unit miss per silhouette pixel). */
  scores: { layout: string; deficit: number }[];
}

export async function chooseAngles(sils: Silhouette[], given: (number | undefined)[], pause: Pause = yieldOnly): Promise<AngleChoice> {
  const n = sils.length;
  if (given.length === n && given.every((a) => typeof a === 'number' && Number.isFinite(a))) {
    return { angles: given as number[], layout: 'given', scores: [] };
  }
  if (given.some((a) => typeof a === 'number') && n >= 2 && n <= MAX_RANKED) {
    // some photos hinted: the estimate among the assignments that keep the hints, else the hints
    // with the other photos as the unconstrained estimate placed them
    const keep = await estimateAngles(sils, n > MAX_ESTIMATED, given, pause);
    if (keep.angles.length) return { ...keep, layout: `${keep.layout}, keeping the hinted views` };
    const free = await estimateAngles(sils, n > MAX_ESTIMATED, [], pause);
    return { ...free, angles: free.angles.map((a, i) => given[i] ?? a), layout: `${free.layout}; hinted views as given (no layout agrees with them)` };
  }
  if (n === 1) return { angles: [0], layout: 'single', scores: [] };
  if (n === 2) {
    // a second view that mirrors the first is the other side, not the front
    const iou = mirrorIoU(sils[0], sils[1]);
    if (iou > 0.9) return { angles: [0, 180], layout: 'opposite sides', scores: [{ layout: 'mirror-iou', deficit: 1 - iou }] };
    return { angles: [0, 90], layout: 'side and front', scores: [{ layout: 'mirror-iou', deficit: 1 - iou }] };
  }
  if (n <= MAX_ESTIMATED) return estimateAngles(sils, false, [], pause);
  if (n <= MAX_RANKED) return estimateAngles(sils, true, [], pause);
  const layouts: { layout: string; angles: number[] }[] = [
    { layout: 'half turn', angles: range(n, 180 / n) },
    { layout: 'half turn, reversed', angles: range(n, -180 / n) },
    { layout: 'full turn', angles: range(n, 360 / n) },
    { layout: 'full turn, reversed', angles: range(n, -360 / n) },
  ];
  const scores: AngleChoice['scores'] = [];
  for (const l of layouts) {
    scores.push({ layout: l.layout, deficit: consistencyDeficit(sils, l.angles) });
    await pause();
  }
  let best = 0;
  for (let i = 1; i < scores.length; i++) {
    // another layout must be clearly better than the assumption to replace it
    if (scores[i].deficit < scores[best].deficit * 0.8 - 1e-4) best = i;
  }
  return { angles: layouts[best].angles, layout: layouts[best].layout, scores };
}

/** Up to this many views, every assignment of photos to angles is tried (4! x 2 layouts = 48 scores). */
const MAX_ESTIMATED = 4;
/**
 * Up to this many views, the assignments tried are those that agree with the width ranking: photos
 * sorted by silhouette width take the positions sorted by expected width, and only positions of
 * (nearly) the same expected width swap (6 views: 4 assignments per half turn).
 */
const MAX_RANKED = 8;

/**
 * Angles from the images alone, whatever order the photos came in: every assignment of the photos
 * to the positions of a half turn (0/45/90/135 for 4) and of a full turn (0/90/180/270) is scored by
 * silhouette consistency plus a width prior: an elongated product (shoe, bag) looks widest from the
 * side and narrowest from the front, its width at azimuth a close to sqrt((L cos a)^2 + (W sin a)^2)
 * with L and W the widest and narrowest silhouettes. Consistency alone cannot tell a side from a
 * front when the views are 90 degrees apart (any two perpendicular silhouettes are consistent); the
 * prior can. Assignments that score the same (a mirror-image turn) are decided by the request order,
 * so photos sent in the usual order are never mirrored.
 */
export async function estimateAngles(sils: Silhouette[], ranked = false, hints: (number | undefined)[] = [], pause: Pause = yieldOnly): Promise<AngleChoice> {
  const n = sils.length;
  const widths = sils.map((s) => {
    const [a, b] = silhouetteSpan(s);
    return b - a;
  });
  const L = Math.max(...widths), W = Math.min(...widths);
  const expectedWidth = (deg: number) => Math.hypot(L * Math.cos((deg * Math.PI) / 180), W * Math.sin((deg * Math.PI) / 180));
  const layouts = [{ layout: 'half turn', angles: range(n, 180 / n) }, { layout: 'full turn', angles: range(n, 360 / n) }];
  let best: { angles: number[]; layout: string; score: number; fromOrder: number } | null = null;
  const scores: AngleChoice['scores'] = [];
  for (const l of layouts) {
    for (const p of ranked ? rankedAssignments(widths, l.angles.map(expectedWidth)) : permutations(n)) {
      // photo p[k] takes position k
      const angles = new Array<number>(n);
      p.forEach((photo, k) => (angles[photo] = l.angles[k]));
      if (hints.some((h, i) => typeof h === 'number' && angleGap(h, angles[i]) > HINT_TOLERANCE)) continue;
      const prior = angles.reduce((acc, a, i) => acc + ((expectedWidth(a) - widths[i]) / L) ** 2, 0) / n;
      const score = CONSISTENCY_WEIGHT * consistencyDeficit(sils, angles) + prior;
      await pause();
      // how far the assignment is from "the photos came in turning order" (0 for the identity)
      const fromOrder = p.reduce((acc, photo, k) => acc + Math.abs(photo - k), 0);
      if (!best || score < best.score - TIE || (Math.abs(score - best.score) <= TIE && fromOrder < best.fromOrder)) best = { angles, layout: l.layout, score, fromOrder };
      if (fromOrder === 0) scores.push({ layout: l.layout, deficit: score });
    }
  }
  if (!best) return { angles: [], layout: 'none', scores };
  scores.push({ layout: 'estimated', deficit: best.score });
  return { angles: best.angles, layout: best.fromOrder === 0 ? `${best.layout}, in the order sent` : `${best.layout}, estimated from the images`, scores };
}

/** A hinted azimuth and a layout position this close (degrees) agree. */
const HINT_TOLERANCE = 12;

function angleGap(a: number, b: number): number {
  const d = Math.abs(normalizeDeg(a) - normalizeDeg(b));
  return Math.min(d, 360 - d);
}

/** Consistency deficits are world units (object heights); a miss of 1 % of the height weighs like a 30 % width error. */
const CONSISTENCY_WEIGHT = 10;
const TIE = 1e-4;

/**
 * Assignments p (photo p[k] takes position k) that keep the width ranking: the widest photos take
 * the positions expected widest; positions whose expected widths are within 3 % of the widest
 * swap freely among themselves.
 */
function rankedAssignments(widths: number[], expected: number[]): number[][] {
  const n = widths.length;
  const photos = Array.from({ length: n }, (_, i) => i).sort((a, b) => widths[b] - widths[a]);
  const positions = Array.from({ length: n }, (_, i) => i).sort((a, b) => expected[b] - expected[a]);
  const groups: number[][] = [];
  for (const pos of positions) {
    const g = groups[groups.length - 1];
    if (g && Math.abs(expected[g[0]] - expected[pos]) <= 0.03 * expected[positions[0]]) g.push(pos);
    else groups.push([pos]);
  }
  let out: number[][] = [new Array<number>(n)];
  let next = 0;
  for (const g of groups) {
    const members = photos.slice(next, next + g.length);
    next += g.length;
    const grown: number[][] = [];
    for (const base of out) {
      for (const perm of permutations(g.length)) {
        const p = base.slice();
        g.forEach((pos, k) => (p[pos] = members[perm[k]]));
        grown.push(p);
      }
    }
    out = grown;
  }
  return out;
}

function permutations(n: number): number[][] {
  const out: number[][] = [];
  const walk = (prefix: number[], rest: number[]) => {
    if (!rest.length) return void out.push(prefix);
    rest.forEach((x, i) => walk([...prefix, x], [...rest.slice(0, i), ...rest.slice(i + 1)]));
  };
  walk([], Array.from({ length: n }, (_, i) => i));
  return out;
}

function range(n: number, stepDeg: number): number[] {
  return Array.from({ length: n }, (_, i) => normalizeDeg(i * stepDeg));
}

export function normalizeDeg(a: number): number {
  let r = a % 360;
  if (r < 0) r += 360;
  return r;
}

/**
 * Mean positive field value (world units) along the rays of each view's silhouette pixels, with
 * the field built from the other views: 0 when the silhouettes are consistent.
 */
export function consistencyDeficit(sils: Silhouette[], angles: number[]): number {
  const views: HullView[] = sils.map((sil, i) => ({ sil, azimuthDeg: angles[i] }));
  const field = new HullField(views);
  let r = 0;
  for (const s of sils) for (const v of silhouetteSpan(s)) r = Math.max(r, Math.abs(v));
  const steps = 40;
  let total = 0, count = 0;
  for (let i = 0; i < sils.length; i++) {
    const sil = sils[i];
    const g = sil.coarse;
    const trig = viewTrig(angles[i], sil.elevationDeg);
    const p = [0, 0, 0];
    for (let gy = 0; gy < g.height; gy += 2) {
      for (let gx = 0; gx < g.width; gx += 2) {
        if (!g.mask[gy * g.width + gx]) continue;
        const px = g.x0 + (gx + 0.5) / g.scale, py = g.y0 + (gy + 0.5) / g.scale;
        const u = (px - sil.axisX) / sil.ppu - sil.shift;
        const v = (sil.bottom - py) / sil.ppu + sil.vMin;
        let best = Infinity;
        for (let t = 0; t <= steps; t++) {
          viewRayPoint(sil, trig, u, v, -r + (2 * r * t) / steps, p);
          const f = field.at(p[0], p[1], p[2], true, i);
          if (f < best) best = f;
          if (best <= 0) break;
        }
        total += Math.max(0, best);
        count++;
      }
    }
  }
  return count ? total / count : 0;
}

/** What a registration sets on a silhouette, to keep the best of several hypotheses. */
type Registered = Pick<Silhouette, 'ppu' | 'shift' | 'vMin' | 'centreY' | 'inverseDistance' | 'elevationDeg'>;

function registered(s: Silhouette): Registered {
  return { ppu: s.ppu, shift: s.shift, vMin: s.vMin, centreY: s.centreY, inverseDistance: s.inverseDistance, elevationDeg: s.elevationDeg };
}

/** Puts back a registration kept by `registered`. */
function restore(sils: Silhouette[], state: Registered[]): void {
  state.forEach((v, i) => Object.assign(sils[i], v));
}

/** Elevation from which a hinted photo counts as a top view (looking down onto the product). */
export const TOP_VIEW_MIN_DEG = 60;

/** Every photo's view: azimuth, which photos look straight down, the camera of the others. */
export interface ViewEstimate {
  angles: number[];
  choice: AngleChoice;
  /** Photos taken from straight above (elevation 90), hinted or recognised. */
  top: number[];
  /** How the top views were found, for the trace. */
  topNote: string | null;
  camera: { elevationDeg: number; lengths: number; scores: CameraScore[]; hinted: boolean } | null;
  /** Distinct directions the photos were taken from (a top view counts as one). */
  directions: number;
}

/**
 * Views of all photos. Photos hinted as top views keep elevation 90; the others are placed round
 * the product (`chooseAngles`) and share one camera (`estimateCamera`). A top view's azimuth says
 * where the toe points in it (0 right, 90 down, 180 left, 270 up); unless hinted, each is tried and
 * the one whose outline rays miss least is kept. From 4 photos on, a photo whose outline looks like
 * a footprint (long, with no flat sole line at the bottom) is also tried as a top view, and kept as
 * one when that explains the photos clearly better. Leaves the silhouettes registered.
 */
export async function estimateViews(sils: Silhouette[], given: (number | undefined)[], elevations: (number | undefined)[], pause: Pause = yieldOnly): Promise<ViewEstimate> {
  const hintedTop = sils.map((_, i) => i).filter((i) => (elevations[i] ?? 0) >= TOP_VIEW_MIN_DEG);
  const initial = sils.map(registered);
  const first = await viewsWithTop(sils, given, elevations, hintedTop, pause);
  if (hintedTop.length || sils.length < 4) return { ...first.estimate, topNote: hintedTop.length ? `photo(s) ${hintedTop.map((i) => i + 1).join(', ')} from straight above, as hinted` : null };
  const candidate = footprintCandidate(sils, elevations);
  if (candidate === null) return first.estimate;
  const kept = sils.map(registered);
  // the second hypothesis starts from the silhouettes as they were built
  restore(sils, initial);
  const second = await viewsWithTop(sils, given, elevations, [candidate], pause);
  if (second.missPx < first.missPx * TOP_GAIN) {
    return { ...second.estimate, topNote: `photo ${candidate + 1} recognised as a top view (outline rays miss ${second.missPx.toFixed(3)} px as one, ${first.missPx.toFixed(3)} px as a view from the side)` };
  }
  restore(sils, kept);
  return first.estimate;
}

/** A top view hypothesis must leave this share of the other's miss, or less. */
const TOP_GAIN = 0.7;

async function viewsWithTop(sils: Silhouette[], given: (number | undefined)[], elevations: (number | undefined)[], top: number[], pause: Pause): Promise<{ estimate: ViewEstimate; missPx: number }> {
  const side = sils.map((_, i) => i).filter((i) => !top.includes(i));
  const sideSils = side.map((i) => sils[i]);
  const choice = await chooseAngles(sideSils, side.map((i) => given[i]), pause);
  const angles = new Array<number>(sils.length).fill(0);
  side.forEach((i, k) => (angles[i] = choice.angles[k]));
  const hints = side.map((i) => elevations[i]).filter((e): e is number => e !== undefined);
  const hinted = hints.length ? Math.round((hints.reduce((a, e) => a + e, 0) / hints.length) * 10) / 10 : undefined;
  const sideDirections = new Set(choice.angles.map((a) => Math.round(((a % 180) + 180) % 180))).size;
  let camera: ViewEstimate['camera'] = null;
  let missPx = Infinity;
  if (sideSils.length >= 3 && sideDirections >= 3) {
    const cam = await estimateCamera(sideSils, choice.angles, hinted, pause);
    camera = { ...cam, hinted: hinted !== undefined };
    missPx = Math.min(...cam.scores.map((c) => c.missPx));
  } else if (sideDirections > 1) {
    registerViews(sideSils, choice.angles, hinted ?? 0);
  }
  if (top.length) {
    const common = camera?.elevationDeg ?? hinted ?? 0;
    const inverseDistance = sideSils[0]?.inverseDistance ?? 0;
    const fixed = sils.map((_, i) => (top.includes(i) ? 90 : undefined));
    const before = sils.map(registered);
    // each top view's toe direction: as hinted, else the one the others explain best
    for (const t of top) {
      let best: { az: number; miss: number; state: Registered[] } | null = null;
      for (const az of given[t] !== undefined ? [given[t]!] : [0, 90, 180, 270]) {
        restore(sils, before);
        angles[t] = az;
        registerViews(sils, angles, common, fixed);
        refinePerspective(sils, angles, inverseDistance);
        const miss = alignByRays(sils, angles);
        if (!best || miss < best.miss) best = { az, miss, state: sils.map(registered) };
        await pause();
      }
      angles[t] = best!.az;
      restore(sils, best!.state);
      missPx = best!.miss;
    }
  }
  return { estimate: { angles, choice, top, topNote: null, camera, directions: sideDirections + (top.length ? 1 : 0) }, missPx };
}

/**
 * The photo most like a top view of the product, or null: the longest silhouette (long side over
 * short side at least 2.2) whose bottom outline touches its lowest row over less than 45 % of its
 * width (a side or front view stands on a flat sole line; a footprint's outline curves).
 */
function footprintCandidate(sils: Silhouette[], elevations: (number | undefined)[]): number | null {
  let best: number | null = null, bestAspect = 0;
  sils.forEach((s, i) => {
    if (elevations[i] !== undefined) return;
    const w = s.right - s.left, h = Math.max(1, s.bottom - s.top);
    // the footprint's long axis lies either way in the photo (toe to a side, or up or down)
    const aspect = Math.max(w / h, h / w);
    if (aspect < 2.2 || groundContact(s) >= 0.45) return;
    if (aspect > bestAspect) [best, bestAspect] = [i, aspect];
  });
  return best;
}

/** Share of a silhouette's width whose lowest pixel lies within 1.5 % of its height of the lowest row. */
function groundContact(s: Silhouette): number {
  const g = s.work;
  const low = new Float64Array(g.width).fill(-1);
  for (let x = 0; x < g.width; x++) for (let y = g.height - 1; y >= 0; y--) if (g.mask[y * g.width + x]) { low[x] = y; break; }
  const cols = Array.from(low).filter((y) => y >= 0);
  if (!cols.length) return 0;
  const bottom = Math.max(...cols), band = 0.015 * (s.bottom - s.top) * g.scale + 0.5;
  return cols.filter((y) => bottom - y <= band).length / cols.length;
}

/** A camera hypothesis and its score: the mean miss of the outline rays in pixels (registration.ts `alignByRays`). */
export interface CameraScore {
  elevationDeg: number;
  /** Camera distance in object lengths; Infinity = orthographic (a long lens). */
  lengths: number;
  missPx: number;
}

/**
 * The camera shared by the photos: its elevation and its distance. Each hypothesis registers the
 * photos for its elevation from frontier planes (`registerViews`), corrects them for its
 * perspective (`refinePerspective`), aligns them by outline rays (`alignByRays`) and is scored by
 * how far the rays through the photos' outlines still miss the hull of the other photos: with the
 * right camera every ray meets it. Looking down and a close camera both show the near ground lower
 * than the far ground, but only the right pair explains the top outline too. A coarse pass over
 * elevations (orthographic and 5 lengths away), then every distance around the best elevation;
 * level and orthographic wins near ties. `elevationDeg` fixes the elevation (a hint). Leaves the
 * silhouettes registered for the chosen camera.
 */
export async function estimateCamera(sils: Silhouette[], angles: number[], elevationDeg?: number, pause: Pause = yieldOnly): Promise<{ elevationDeg: number; lengths: number; scores: CameraScore[] }> {
  registerViews(sils, angles, elevationDeg ?? 0);
  const b = new HullField(sils.map((sil, i) => ({ sil, azimuthDeg: angles[i] }))).bounds();
  // one object length in the level registration's world units (every registration keeps them)
  const length = Math.max(b.max[0] - b.min[0], b.max[2] - b.min[2]);
  const centreY = Math.max(0, b.max[1]) / 2;
  const scores: CameraScore[] = [];
  const states = new Map<string, Registered[]>();
  const tryCamera = async (e: number, lengths: number) => {
    const key = `${e}/${lengths}`;
    if (states.has(key)) return;
    for (const s of sils) s.centreY = centreY;
    registerViews(sils, angles, e);
    refinePerspective(sils, angles, Number.isFinite(lengths) ? 1 / (lengths * length) : 0);
    const missPx = alignByRays(sils, angles);
    scores.push({ elevationDeg: e, lengths, missPx });
    states.set(key, sils.map(registered));
    await pause();
  };
  const elevations = elevationDeg === undefined ? COARSE_ELEVATIONS : [elevationDeg];
  for (const e of elevations) for (const l of [Infinity, 5]) await tryCamera(e, l);
  const bestOf = () => scores.reduce((a, s) => (s.missPx < a.missPx ? s : a));
  const e0 = bestOf().elevationDeg;
  const around = elevationDeg === undefined ? [e0 - ELEVATION_STEP, e0, e0 + ELEVATION_STEP].filter((e) => e >= 0) : [elevationDeg];
  for (const e of around) for (const l of DISTANCES) await tryCamera(e, l);
  let best = bestOf();
  // the plain camera (level, or the hinted elevation, orthographic) unless another is clearly better
  const plain = scores.find((s) => s.elevationDeg === (elevationDeg ?? 0) && !Number.isFinite(s.lengths))!;
  if (best.missPx > plain.missPx * CAMERA_GAIN) best = plain;
  restore(sils, states.get(`${best.elevationDeg}/${best.lengths}`)!);
  return { elevationDeg: best.elevationDeg, lengths: best.lengths, scores };
}

const COARSE_ELEVATIONS = [0, 5, 10, 15, 20, 30];
const ELEVATION_STEP = 2.5;
/** Camera distances tried around the best elevation, object lengths: a long lens to a close shot. */
const DISTANCES = [Infinity, 8, 5, 3.5];
/** Another camera must leave this share of the plain camera's miss, or less, to be chosen. */
const CAMERA_GAIN = 0.85;

/** IoU of silhouette `a` with the horizontal mirror of `b`, both in normalised world units. */
export function mirrorIoU(a: Silhouette, b: Silhouette, mirror = true): number {
  let r = 0;
  for (const s of [a, b]) for (const v of silhouetteSpan(s)) r = Math.max(r, Math.abs(v));
  const nu = 96, nv = 48;
  let inter = 0, union = 0;
  for (let j = 0; j < nv; j++) {
    const t = (j + 0.5) / nv;
    // heights relative to each silhouette's own extent (raised cameras see different heights)
    const va = a.vMin + (t * (a.bottom - a.top)) / a.ppu, vb = b.vMin + (t * (b.bottom - b.top)) / b.ppu;
    for (let i = 0; i < nu; i++) {
      const u = -r + (2 * r * (i + 0.5)) / nu;
      const ina = silhouetteDistance(a, a.coarse, u, va) < 0;
      const inb = silhouetteDistance(b, b.coarse, mirror ? -u : u, vb) < 0;
      if (ina && inb) inter++;
      if (ina || inb) union++;
    }
  }
  return union ? inter / union : 0;
}

/**
 * Left-right (z) mirror symmetry of the product judged from view pairs: a z-symmetric object seen
 * at azimuth a looks like the mirror image of its view at 180 - a (a front view mirrors itself).
 * Returns the mean IoU over the pairs the layout offers, or null when it offers none.
 */
export function mirrorSymmetryScore(sils: Silhouette[], angles: number[]): number | null {
  const scores: number[] = [];
  for (let i = 0; i < sils.length; i++) {
    for (let j = i; j < sils.length; j++) {
      const d = normalizeDeg(angles[i] + angles[j]);
      if (Math.abs(d - 180) < 5) scores.push(mirrorIoU(sils[i], sils[j]));
    }
  }
  return scores.length ? scores.reduce((s, v) => s + v, 0) / scores.length : null;
}

/**
 * Front-back (x) mirror symmetry: an x-symmetric object looks the same (unmirrored) at a and at
 * 180 - a; its side view at 0 then mirrors itself.
 */
export function frontBackSymmetryScore(sils: Silhouette[], angles: number[]): number | null {
  const scores: number[] = [];
  for (let i = 0; i < sils.length; i++) {
    for (let j = i; j < sils.length; j++) {
      const d = normalizeDeg(angles[i] + angles[j]);
      if (Math.abs(d - 180) < 5 && i !== j) scores.push(mirrorIoU(sils[i], sils[j], false));
      if (i === j && (Math.abs(normalizeDeg(angles[i])) < 5 || Math.abs(normalizeDeg(angles[i]) - 180) < 5)) scores.push(mirrorIoU(sils[i], sils[i]));
    }
  }
  return scores.length ? scores.reduce((s, v) => s + v, 0) / scores.length : null;
}

/**
 * The ground under photos taken from above. Raised views cannot see under the product: the hull's
 * underside is a wedge below the real base, bounded by the tilted planes through each photo's
 * lowest outline. The ground is the highest plane the hull can be cut at while every photo's
 * silhouette is still filled (a cut above the real base removes its bottom edge from the photos).
 * Found by bisection on the share of silhouette pixels (lower third of each photo) whose ray
 * misses the cut hull. Leaves `hull.floorY` set (or null when nothing can be cut).
 */
export async function estimateGround(hull: HullField, sils: Silhouette[], angles: number[], pause: Pause = yieldOnly): Promise<{ floorY: number | null; lowest: number }> {
  const b = hull.bounds();
  hull.floorY = null;
  const lowest = lowestInside(hull, b);
  const rays = bottomRays(sils, angles);
  const missShare = (floorY: number) => {
    hull.floorY = floorY;
    let miss = 0;
    for (const ray of rays) {
      let best = Infinity;
      for (let t = 0; t <= RAY_STEPS && best > 0; t++) best = Math.min(best, hull.at(ray.x + t * ray.dx, ray.y + t * ray.dy, ray.z + t * ray.dz, true));
      if (best > ray.tolerance) miss++;
    }
    return rays.length ? miss / rays.length : 0;
  };
  let lo = lowest, hi = lowest + 0.25 * (b.max[1] - lowest);
  // the uncut hull's own misses (registration and outline noise) plus a small allowance
  const allowed = missShare(-Infinity) + GROUND_MISS;
  if (missShare(lo + 0.004) > allowed) {
    hull.floorY = null;
    return { floorY: null, lowest };
  }
  for (let k = 0; k < 10; k++) {
    const mid = (lo + hi) / 2;
    if (missShare(mid) <= allowed) lo = mid;
    else hi = mid;
    await pause();
  }
  hull.floorY = lo;
  return { floorY: lo, lowest };
}

/** Share of bottom rays that may miss the cut hull beyond those the uncut hull misses. */
const GROUND_MISS = 0.004;
const RAY_STEPS = 48;

/** Lowest inside height of the hull on a coarse lattice. */
function lowestInside(hull: HullField, b: { min: [number, number, number]; max: [number, number, number] }): number {
  const n = 40;
  let low = b.max[1];
  for (let i = 0; i <= n; i++) for (let k = 0; k <= n; k++) for (let j = 0; j <= n; j++) {
    const y = b.min[1] + ((b.max[1] - b.min[1]) * j) / n;
    if (y >= low) break;
    if (hull.at(b.min[0] + ((b.max[0] - b.min[0]) * i) / n, y, b.min[2] + ((b.max[2] - b.min[2]) * k) / n, true) <= 0) { low = y; break; }
  }
  return low;
}

/** Rays through the coarse silhouette pixels of each photo's lower third, from far behind to far in front. */
function bottomRays(sils: Silhouette[], angles: number[]): { x: number; y: number; z: number; dx: number; dy: number; dz: number; tolerance: number }[] {
  let r = 0;
  for (const s of sils) for (const v of silhouetteSpan(s)) r = Math.max(r, Math.abs(v));
  const out: { x: number; y: number; z: number; dx: number; dy: number; dz: number; tolerance: number }[] = [];
  const a = [0, 0, 0], b = [0, 0, 0];
  sils.forEach((sil, i) => {
    if (sil.elevationDeg >= TOP_VIEW_MIN_DEG) return; // looks down onto the product, not along the ground
    const g = sil.coarse;
    const trig = viewTrig(angles[i], sil.elevationDeg);
    const pixel = 1 / (g.scale * sil.ppu);
    for (let gy = 0; gy < g.height; gy++) {
      const py = g.y0 + (gy + 0.5) / g.scale;
      if (py < sil.bottom - (sil.bottom - sil.top) / 3) continue;
      for (let gx = 0; gx < g.width; gx++) {
        if (!g.mask[gy * g.width + gx]) continue;
        const px = g.x0 + (gx + 0.5) / g.scale;
        const u = (px - sil.axisX) / sil.ppu - sil.shift;
        const v = (sil.bottom - py) / sil.ppu + sil.vMin;
        // a perspective ray is straight too: its ends fix it
        viewRayPoint(sil, trig, u, v, -r, a);
        viewRayPoint(sil, trig, u, v, r, b);
        out.push({ x: a[0], y: a[1], z: a[2], dx: (b[0] - a[0]) / RAY_STEPS, dy: (b[1] - a[1]) / RAY_STEPS, dz: (b[2] - a[2]) / RAY_STEPS, tolerance: 0.75 * pixel });
      }
    }
  });
  return out;
}
