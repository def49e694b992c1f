/**
 * Which triangle (and where in it) every texel of a texture belongs to. Interior texels are
 * claimed first; texels within `band` texels outside any triangle are then given to the nearest
 * triangle with clamped barycentrics, so charts carry real surface colours a little beyond their
 * edges and bilinear filtering across a chart border does not pick up a foreign colour.
 * UVs outside 0..1 (repeat) are folded into the image triangle by triangle.
 */
export interface TexelCoverage {
  width: number;
  height: number;
  /** Triangle per texel, -1 where none. */
  face: Int32Array;
  /** Barycentric weights of the triangle's 2nd and 3rd vertex. */
  b1: Float32Array;
  b2: Float32Array;
  /** 1 for texels inside their triangle, 2 for texels of the outer band. */
  kind: Uint8Array;
}

/** Triangles sharing one texture; faces are numbered across sets in order (set 0 first). */
export interface UvTriangles {
  uvs: Float32Array;
  indices: Uint32Array;
}

export function texelCoverage(sets: UvTriangles[], width: number, height: number, band = 1.5): TexelCoverage {
  const cov: TexelCoverage = {
    width,
    height,
    face: new Int32Array(width * height).fill(-1),
    b1: new Float32Array(width * height),
    b2: new Float32Array(width * height),
    kind: new Uint8Array(width * height),
  };
  for (const pass of [1, 2]) {
    const grow = pass === 1 ? 0 : band;
    let faceOffset = 0;
    for (const { uvs, indices } of sets) {
      const nf = indices.length / 3;
      rasterise(cov, uvs, indices, pass, grow, faceOffset);
      faceOffset += nf;
    }
  }
  return cov;
}

function rasterise(cov: TexelCoverage, uvs: Float32Array, indices: Uint32Array, pass: number, grow: number, faceOffset: number): void {
  const { width, height } = cov;
  {
    for (let f = 0; f < indices.length / 3; f++) {
      const i0 = indices[f * 3], i1 = indices[f * 3 + 1], i2 = indices[f * 3 + 2];
      let x0 = uvs[i0 * 2] * width, y0 = uvs[i0 * 2 + 1] * height;
      let x1 = uvs[i1 * 2] * width, y1 = uvs[i1 * 2 + 1] * height;
      let x2 = uvs[i2 * 2] * width, y2 = uvs[i2 * 2 + 1] * height;
      const ox = Math.floor(Math.min(x0, x1, x2) / width) * width, oy = Math.floor(Math.min(y0, y1, y2) / height) * height;
      x0 -= ox; x1 -= ox; x2 -= ox; y0 -= oy; y1 -= oy; y2 -= oy;
      const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
      if (Math.abs(area) < 1e-12) continue;
      // edge lengths give each barycentric's rate per texel: w_i falls by |edge_i| / (2 area) per texel
      const l0 = Math.hypot(x2 - x1, y2 - y1), l1 = Math.hypot(x2 - x0, y2 - y0), l2 = Math.hypot(x1 - x0, y1 - y0);
      const a2 = Math.abs(area);
      const t0 = (grow * l0) / a2, t1 = (grow * l1) / a2, t2 = (grow * l2) / a2;
      const minX = Math.max(0, Math.floor(Math.min(x0, x1, x2) - grow)), maxX = Math.min(width - 1, Math.ceil(Math.max(x0, x1, x2) + grow));
      const minY = Math.max(0, Math.floor(Math.min(y0, y1, y2) - grow)), maxY = Math.min(height - 1, Math.ceil(Math.max(y0, y1, y2) + grow));
      for (let ty = minY; ty <= maxY; ty++) {
        for (let tx = minX; tx <= maxX; tx++) {
          const t = ty * width + tx;
          if (cov.face[t] >= 0) continue;
          const cx = tx + 0.5, cy = ty + 0.5;
          let w1 = ((cx - x0) * (y2 - y0) - (x2 - x0) * (cy - y0)) / area;
          let w2 = ((x1 - x0) * (cy - y0) - (cx - x0) * (y1 - y0)) / area;
          let w0 = 1 - w1 - w2;
          if (pass === 1) {
            if (w0 < -1e-7 || w1 < -1e-7 || w2 < -1e-7) continue;
          } else {
            if (w0 < -t0 || w1 < -t1 || w2 < -t2) continue;
            w0 = Math.max(0, w0); w1 = Math.max(0, w1); w2 = Math.max(0, w2);
            const s = w0 + w1 + w2;
            w1 /= s; w2 /= s;
          }
          cov.face[t] = f + faceOffset;
          cov.b1[t] = w1;
          cov.b2[t] = w2;
          cov.kind[t] = pass;
        }
      }
    }
  }
}
