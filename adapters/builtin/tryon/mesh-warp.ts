/**
 * A garment piece mapped by a coarse quad mesh: each node has a position on the photo and one on
 * the packshot; each quad is drawn as two triangles with the packshot position interpolated
 * linearly inside (texture mapping). Neighbouring garment pixels stay neighbours by construction
 * (the map is continuous and piecewise affine), and a triangle whose orientation on the photo is
 * the opposite of its orientation on the packshot (a fold) is left out rather than drawn mirrored.
 */

export interface QuadMesh {
  /** Nodes per row (across the piece) and rows (along it); node k = row * cols + col. */
  cols: number;
  rows: number;
  /** Photo position of each node (output pixels). */
  px: Float32Array;
  py: Float32Array;
  /** Packshot position of each node (packshot pixels). */
  gx: Float32Array;
  gy: Float32Array;
  /** Two attributes carried to each pixel (here: across the piece, -1..1, and along it). */
  a: Float32Array;
  b: Float32Array;
}

export function createQuadMesh(cols: number, rows: number): QuadMesh {
  const n = cols * rows;
  return { cols, rows, px: new Float32Array(n), py: new Float32Array(n), gx: new Float32Array(n), gy: new Float32Array(n), a: new Float32Array(n), b: new Float32Array(n) };
}

/** Called per covered pixel with its index and the interpolated packshot position and attributes. */
export type MeshVisit = (i: number, gx: number, gy: number, a: number, b: number) => void;

const cross = (ax: number, ay: number, bx: number, by: number) => ax * by - ay * bx;

/** Signed area ratio (photo over packshot) of the triangle of nodes p, q, r; <= 0 is a fold. */
function triangleRatio(m: QuadMesh, p: number, q: number, r: number): number {
  const photo = cross(m.px[q] - m.px[p], m.py[q] - m.py[p], m.px[r] - m.px[p], m.py[r] - m.py[p]);
  const pack = cross(m.gx[q] - m.gx[p], m.gy[q] - m.gy[p], m.gx[r] - m.gx[p], m.gy[r] - m.gy[p]);
  if (Math.abs(pack) < 1e-9) return 0;
  return photo / pack;
}

/** Share of the mesh's triangles that fold over (the photo and packshot orientations disagree). */
export function meshFolds(m: QuadMesh): number {
  let folded = 0;
  let total = 0;
  for (let r = 0; r + 1 < m.rows; r++) {
    for (let c = 0; c + 1 < m.cols; c++) {
      const k = r * m.cols + c;
      for (const [p, q, s] of [[k, k + 1, k + m.cols + 1], [k, k + m.cols + 1, k + m.cols]]) {
        total++;
        if (!(triangleRatio(m, p, q, s) > 0)) folded++;
      }
    }
  }
  return total ? folded / total : 0;
}

/**
 * Visits every output pixel (centre inside a triangle) of the mesh within the width x height
 * image; folded triangles are skipped. A pixel on an edge shared by two triangles is visited once.
 */
export function rasteriseMesh(m: QuadMesh, width: number, height: number, visit: MeshVisit): void {
  const seen = new Uint8Array(width * height);
  for (let r = 0; r + 1 < m.rows; r++) {
    for (let c = 0; c + 1 < m.cols; c++) {
      const k = r * m.cols + c;
      triangle(m, k, k + 1, k + m.cols + 1, width, height, visit, seen);
      triangle(m, k, k + m.cols + 1, k + m.cols, width, height, visit, seen);
    }
  }
}

function triangle(m: QuadMesh, p: number, q: number, r: number, width: number, height: number, visit: MeshVisit, seen: Uint8Array): void {
  if (!(triangleRatio(m, p, q, r) > 0)) return;
  const x0 = m.px[p];
  const y0 = m.py[p];
  const x1 = m.px[q];
  const y1 = m.py[q];
  const x2 = m.px[r];
  const y2 = m.py[r];
  const area = cross(x1 - x0, y1 - y0, x2 - x0, y2 - y0);
  if (Math.abs(area) < 1e-9) return;
  const inv = 1 / area;
  const eps = 1e-6;
  const xa = Math.max(0, Math.ceil(Math.min(x0, x1, x2) - 0.5));
  const xb = Math.min(width - 1, Math.floor(Math.max(x0, x1, x2) - 0.5));
  const ya = Math.max(0, Math.ceil(Math.min(y0, y1, y2) - 0.5));
  const yb = Math.min(height - 1, Math.floor(Math.max(y0, y1, y2) - 0.5));
  for (let y = ya; y <= yb; y++) {
    const cy = y + 0.5;
    for (let x = xa; x <= xb; x++) {
      const cx = x + 0.5;
      // barycentric weights of q and r (p's is the rest)
      const wq = cross(cx - x0, cy - y0, x2 - x0, y2 - y0) * inv;
      const wr = cross(x1 - x0, y1 - y0, cx - x0, cy - y0) * inv;
      const wp = 1 - wq - wr;
      if (wq < -eps || wr < -eps || wp < -eps) continue;
      const i = y * width + x;
      if (seen[i]) continue;
      seen[i] = 1;
      visit(i, wp * m.gx[p] + wq * m.gx[q] + wr * m.gx[r], wp * m.gy[p] + wq * m.gy[q] + wr * m.gy[r], wp * m.a[p] + wq * m.a[q] + wr * m.a[r], wp * m.b[p] + wq * m.b[q] + wr * m.b[r]);
    }
  }
}
