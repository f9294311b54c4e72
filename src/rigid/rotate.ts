import { rotateByParts } from '../math/quat.js';

/**
 * Rotations of a vector by a unit quaternion (x y z w) into a scratch array,
 * v' = v + 2w (u × v) + 2 u × (u × v) with u the quaternion's vector part:
 * the hot loops of the contacts and joints pass numbers and arrays (no boxed
 * doubles, no allocation).
 */

/** out ← the vector (vx, vy, vz) turned by the quaternion q[o …]. */
export type Rotation = (
  out: Float64Array,
  q: Float64Array,
  o: number,
  vx: number,
  vy: number,
  vz: number,
) => void;

/** out ← R(q[o …]) v. */
export const rotate: Rotation = (out, q, o, vx, vy, vz) =>
  rotateByParts(out, 0, q[o], q[o + 1], q[o + 2], q[o + 3], vx, vy, vz);

/** out ← R(q[o …]) V[vo …] (the vector from an array). */
export function rotateFrom(out: Float64Array, q: Float64Array, o: number, V: Float64Array, vo: number): void {
  rotate(out, q, o, V[vo], V[vo + 1], V[vo + 2]);
}

/** out ← R(q[o …])ᵀ v. */
export const rotateBack: Rotation = (out, q, o, vx, vy, vz) =>
  rotateByParts(out, 0, -q[o], -q[o + 1], -q[o + 2], q[o + 3], vx, vy, vz);
