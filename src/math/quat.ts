/**
 * Quaternions as (x, y, z, w) in a Float64Array (or any number array) at an
 * offset. Functions write into an output array and allocate nothing.
 */
export type Num4 = { [i: number]: number; length: number };

/** out = rotation of `angle` radians about the unit axis (ax, ay, az). */
export function quatFromAxisAngle(
  out: Num4,
  o: number,
  ax: number,
  ay: number,
  az: number,
  angle: number,
): void {
  const len = Math.hypot(ax, ay, az);
  if (len === 0) {
    out[o] = out[o + 1] = out[o + 2] = 0;
    out[o + 3] = 1;
    return;
  }
  const s = Math.sin(angle / 2) / len;
  out[o] = ax * s;
  out[o + 1] = ay * s;
  out[o + 2] = az * s;
  out[o + 3] = Math.cos(angle / 2);
}

/** out = a · b (apply b first, then a). `out` may alias a or b. */
export function quatMultiply(out: Num4, o: number, a: Num4, ao: number, b: Num4, bo: number): void {
  const ax = a[ao],
    ay = a[ao + 1],
    az = a[ao + 2],
    aw = a[ao + 3];
  const bx = b[bo],
    by = b[bo + 1],
    bz = b[bo + 2],
    bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** Normalises the quaternion at o in place (identity if zero). */
export function quatNormalize(q: Num4, o: number): void {
  const len = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]);
  if (len === 0) {
    q[o] = q[o + 1] = q[o + 2] = 0;
    q[o + 3] = 1;
    return;
  }
  q[o] /= len;
  q[o + 1] /= len;
  q[o + 2] /= len;
  q[o + 3] /= len;
}

/** A rotation of the vector (vx, vy, vz) by the quaternion at q[qo …], written to out[oo …]. */
export type QuatRotation = (
  out: Num4,
  oo: number,
  q: Num4,
  qo: number,
  vx: number,
  vy: number,
  vz: number,
) => void;

/** out[oo..oo+2] = rotate vector (vx, vy, vz) by unit quaternion q. */
export const quatRotate: QuatRotation = (out, oo, q, qo, vx, vy, vz) =>
  rotateByParts(out, oo, q[qo], q[qo + 1], q[qo + 2], q[qo + 3], vx, vy, vz);

/** out = rotate (vx, vy, vz) by the inverse (conjugate) of unit quaternion q. */
export const quatRotateInverse: QuatRotation = (out, oo, q, qo, vx, vy, vz) =>
  rotateByParts(out, oo, -q[qo], -q[qo + 1], -q[qo + 2], q[qo + 3], vx, vy, vz);

/**
 * out[oo..oo+2] = (vx, vy, vz) turned by the unit quaternion (qx, qy, qz, qw):
 * t = 2 q × v ; v' = v + w t + q × t.
 */
export function rotateByParts(
  out: Num4,
  oo: number,
  qx: number,
  qy: number,
  qz: number,
  qw: number,
  vx: number,
  vy: number,
  vz: number,
): void {
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[oo] = vx + qw * tx + (qy * tz - qz * ty);
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** Quaternion from Euler angles in degrees, applied in X, then Y, then Z order (three.js 'XYZ'). */
export function quatFromEulerDegrees(out: Num4, o: number, xDeg: number, yDeg: number, zDeg: number): void {
  const d = Math.PI / 360;
  const c1 = Math.cos(xDeg * d),
    s1 = Math.sin(xDeg * d);
  const c2 = Math.cos(yDeg * d),
    s2 = Math.sin(yDeg * d);
  const c3 = Math.cos(zDeg * d),
    s3 = Math.sin(zDeg * d);
  out[o] = s1 * c2 * c3 + c1 * s2 * s3;
  out[o + 1] = c1 * s2 * c3 - s1 * c2 * s3;
  out[o + 2] = c1 * c2 * s3 + s1 * s2 * c3;
  out[o + 3] = c1 * c2 * c3 - s1 * s2 * s3;
}
