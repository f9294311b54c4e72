import { PbdError } from '../core/errors.js';
import { triangleArea } from './triangle-mesh.js';

/**
 * Lumped vertex masses of a triangle mesh of area density ρ (003 §4.1): each
 * vertex gets one third of the mass ρA of each adjacent triangle, summed in
 * triangle order, for vertices 0 … n−1. A vertex of no triangle would have no
 * mass: it throws PbdError `code` at `${where}: vertex i`. The cloth
 * (cloth/cloth.ts), the continuum cloth (continuum/fem-cloth.ts) and the
 * shape-matched cloth's levels (shape-matching/cloth-level.ts) take their
 * masses from here.
 */
export function lumpedTriangleMasses(
  positions: ArrayLike<number>,
  triangles: ArrayLike<number>,
  density: number,
  n: number,
  code: string,
  where: string,
): Float64Array {
  const m = new Float64Array(n);
  const nt = triangles.length / 3;
  for (let t = 0; t < nt; t++) {
    const a = (triangleArea(positions, triangles, t) * density) / 3;
    for (let k = 0; k < 3; k++) m[triangles[3 * t + k]] += a;
  }
  for (let i = 0; i < n; i++) {
    if (!(m[i] > 0)) {
      throw new PbdError(
        code,
        `${where}: vertex ${i}`,
        'belongs to no triangle, so it has no mass',
        'remove unreferenced vertices from the mesh',
      );
    }
  }
  return m;
}
