/**
 * Rotations of a vector by a unit quaternion (x y z w) into a scratch array,
 * v' = v + 2w (u × v) + 2 u × (u × v) with u the quaternion's vector part:
 * the hot loops of the contacts and joints pass numbers and arrays (no boxed
 * doubles, no allocation).
 */

/** out ← R(q[o …]) v. */
export function rotate(
  out: Float64Array,
  q: Float64Array,
  o: number,
  vx: number,
  vy: number,
  vz: number,
): void {
  const qx = q[o],
    qy = q[o + 1],
    qz = q[o + 2],
    qw = q[o + 3];
  const tx = 2 * (qy * vz - qz * vy),
    ty = 2 * (qz * vx - qx * vz),
    tz = 2 * (qx * vy - qy * vx);
  out[0] = vx + qw * tx + (qy * tz - qz * ty);
  out[1] = vy + qw * ty + (qz * tx - qx * tz);
  out[2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** out ← R(q[o …]) V[vo …] (the vector from an array). */
export function rotateFrom(out: Float64Array, q: Float64Array, o: number, V: Float64Array, vo: number): void {
  rotate(out, q, o, V[vo], V[vo + 1], V[vo + 2]);
}

/** out ← R(q[o …])ᵀ v. */
export function rotateBack(
  out: Float64Array,
  q: Float64Array,
  o: number,
  vx: number,
  vy: number,
  vz: number,
): void {
  const qx = -q[o],
    qy = -q[o + 1],
    qz = -q[o + 2],
    qw = q[o + 3];
  const tx = 2 * (qy * vz - qz * vy),
    ty = 2 * (qz * vx - qx * vz),
    tz = 2 * (qx * vy - qy * vx);
  out[0] = vx + qw * tx + (qy * tz - qz * ty);
  out[1] = vy + qw * ty + (qz * tx - qx * tz);
  out[2] = vz + qw * tz + (qx * ty - qy * tx);
}
