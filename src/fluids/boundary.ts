import { PbdError, requirePositiveAs } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';

/** A face of an axis-aligned box: the axis and the side. */
export type BoxFace = '-x' | '+x' | '-y' | '+y' | '-z' | '+z';

const FACES: readonly BoxFace[] = ['-x', '+x', '-y', '+y', '-z', '+z'];

/**
 * Boundary particles on the faces of an axis-aligned box, about `spacing`
 * apart (each face gets a square lattice that spans it, edges shared once).
 * Use them as `boundaryParticles` of a Fluid: a closed box is an obstacle,
 * a box without its '+y' face an open tank. Following Akinci et al. (2012),
 * one layer suffices: the fluid weights each boundary particle by its
 * boundary volume.
 */
export function boxSurfaceParticles(
  min: Vec3Tuple,
  max: Vec3Tuple,
  spacing: number,
  faces: readonly BoxFace[] = FACES,
): Float64Array {
  requirePositiveAs(spacing, '> 0', 'fluid/boundary', 'boundary.spacing');
  for (let a = 0; a < 3; a++) {
    if (!(max[a] > min[a]) || !Number.isFinite(min[a]) || !Number.isFinite(max[a])) {
      throw new PbdError(
        'fluid/boundary',
        'boundary.box',
        `max must exceed min on every axis (axis ${'xyz'[a]}: ${min[a]} … ${max[a]})`,
      );
    }
  }
  for (const f of faces) {
    if (!FACES.includes(f))
      throw new PbdError(
        'fluid/boundary',
        'boundary.faces',
        `unknown face '${f}'`,
        `use ${FACES.join(', ')}`,
      );
  }
  const n = [0, 1, 2].map((a) => Math.max(1, Math.round((max[a] - min[a]) / spacing)));
  const coord = (a: number, k: number) => min[a] + ((max[a] - min[a]) * k) / n[a];
  const seen = new Set<string>();
  const out: number[] = [];
  for (const f of faces) {
    const axis = 'xyz'.indexOf(f[1]);
    const k = f[0] === '-' ? 0 : n[axis];
    const u = (axis + 1) % 3,
      w = (axis + 2) % 3;
    for (let a = 0; a <= n[u]; a++) {
      for (let b = 0; b <= n[w]; b++) {
        const key = [0, 0, 0];
        key[axis] = k;
        key[u] = a;
        key[w] = b;
        const id = key.join(',');
        if (seen.has(id)) continue;
        seen.add(id);
        out.push(coord(0, key[0]), coord(1, key[1]), coord(2, key[2]));
      }
    }
  }
  return Float64Array.from(out);
}
