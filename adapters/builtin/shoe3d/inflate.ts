import { silhouetteDistance, silhouetteSpan, type Silhouette } from './silhouettes.ts';

/**
 * A plausible closed shape from one silhouette (or a pair of opposite sides): the silhouette is
 * extruded symmetrically about z = 0 to a thickness that follows the distance to its outline, so
 * the body is `depthRatio` of the silhouette's width deep in the middle and rounds off towards the
 * outline like a circle of the same radius. This is an assumption, not a measurement.
 */
export function inflationField(sil: Silhouette, depthRatio: number, mirrored = false): (x: number, y: number, z: number) => number {
  const [u0, u1] = silhouetteSpan(sil);
  const half = ((u1 - u0) * depthRatio) / 2;
  // deepest inside distance bounds the rounding radius (thin parts stay thin)
  let maxInside = 0;
  const g = sil.work;
  for (let i = 0; i < g.sdf.length; i++) if (-g.sdf[i] > maxInside) maxInside = -g.sdf[i];
  const maxInsideWorld = maxInside / (g.scale * sil.ppu);
  const radius = Math.max(1e-6, Math.min(half, maxInsideWorld));
  return (x, y, z) => {
    const sd = silhouetteDistance(sil, g, mirrored ? -x : x, y);
    if (sd >= 0) return Math.max(sd, Math.abs(z) - half);
    const d = Math.min(1, -sd / radius);
    const h = half * Math.sqrt(Math.max(0, 1 - (1 - d) * (1 - d)));
    return Math.max(sd, Math.abs(z) - h);
  };
}
