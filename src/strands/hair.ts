/**
 * Hairstyles: strands rooted on a head-like sphere, as positions and strand
 * starts for `Strands`. Deterministic (no randomness): roots on a Fibonacci
 * lattice of the scalp, strands leaving along the surface normal and turning
 * downward, with an optional wave or curl of the rest shape.
 */
import { PbdError } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';

export interface HairStyle {
  /** 'straight' (default), 'wavy' (a planar wave) or 'curly' (a helix around the strand). */
  type?: 'straight' | 'wavy' | 'curly';
  /** Wave or curl radius (m). Default 0.02. */
  amplitude?: number;
  /** Wave length or curl pitch along the strand (m). Default 0.08. */
  period?: number;
}

export interface HairOptions {
  /** Centre and radius of the head (m). */
  center: Vec3Tuple;
  radius: number;
  /** Number of strands. */
  count: number;
  /** Segments per strand (particles − 1). */
  segments: number;
  /** Length of a strand (m). */
  length: number;
  /** Roots cover the head down to this angle from the crown (+y), in degrees. Default 100. */
  coverage?: number;
  /** How fast strands turn from the scalp's normal toward hanging down (1/m). Default 12. */
  fall?: number;
  /** Height of the roots above the head's surface (m). Default 0. */
  lift?: number;
  style?: HairStyle;
}

/** Positions (xyz, root first per strand) and strand starts of a hairstyle. */
export function hairOnSphere(
  o: HairOptions,
  where = 'hair',
): { positions: Float64Array; strandStart: Int32Array } {
  const bad = (field: string, what: string, hint = '') =>
    new PbdError('hair/invalid', `${where}.${field}`, what, hint);
  if (!(o.radius > 0)) throw bad('radius', `must be > 0 m, got ${o.radius}`);
  if (!(Number.isInteger(o.count) && o.count >= 1))
    throw bad('count', `must be an integer ≥ 1, got ${o.count}`);
  if (!(Number.isInteger(o.segments) && o.segments >= 1)) {
    throw bad('segments', `must be an integer ≥ 1, got ${o.segments}`);
  }
  if (!(o.length > 0)) throw bad('length', `must be > 0 m, got ${o.length}`);
  const coverage = o.coverage ?? 100;
  if (!(coverage > 0 && coverage <= 180))
    throw bad('coverage', `must lie in (0, 180] degrees, got ${coverage}`);
  const style = o.style ?? {};
  const amp = style.amplitude ?? 0.02;
  const period = style.period ?? 0.08;
  if (!(amp >= 0)) throw bad('style.amplitude', `must be ≥ 0 m, got ${amp}`);
  if (!(period > 0)) throw bad('style.period', `must be > 0 m, got ${period}`);
  const fall = o.fall ?? 12;
  const lift = o.lift ?? 0;
  const n = o.count * (o.segments + 1);
  const positions = new Float64Array(3 * n);
  const strandStart = new Int32Array(o.count + 1);
  const [cx, cy, cz] = o.center;
  const R = o.radius;
  const cosMax = Math.cos((coverage * Math.PI) / 180);
  const golden = Math.PI * (3 - Math.sqrt(5));
  const ds = o.length / o.segments;
  const base = new Float64Array(3 * (o.segments + 1));
  let k = 0;
  for (let s = 0; s < o.count; s++) {
    strandStart[s] = k;
    // root: a Fibonacci lattice on the cap y/R ≥ cos(coverage)
    const ny = 1 - ((1 - cosMax) * (s + 0.5)) / o.count;
    const rho = Math.sqrt(Math.max(0, 1 - ny * ny));
    const phi = s * golden;
    const nx = rho * Math.cos(phi),
      nz = rho * Math.sin(phi);
    // horizontal outward direction (the azimuth's at the crown)
    const hx = Math.cos(phi),
      hz = Math.sin(phi);
    // where the strand turns to: down and a little outward
    const [gx, gy, gz] = unit(0.35 * hx, -1, 0.35 * hz);
    let px = cx + (R + lift) * nx,
      py = cy + (R + lift) * ny,
      pz = cz + (R + lift) * nz;
    let dx = nx,
      dy = ny,
      dz = nz;
    base[0] = px;
    base[1] = py;
    base[2] = pz;
    for (let j = 1; j <= o.segments; j++) {
      // turn toward g, then step; keep outside the head
      const t = Math.min(1, fall * ds);
      dx += t * gx;
      dy += t * gy;
      dz += t * gz;
      [dx, dy, dz] = unit(dx, dy, dz);
      let qx = px + ds * dx,
        qy = py + ds * dy,
        qz = pz + ds * dz;
      const rx = qx - cx,
        ry = qy - cy,
        rz = qz - cz;
      const r = Math.hypot(rx, ry, rz);
      const minR = R + lift + 0.25 * ds;
      if (r < minR) {
        qx = cx + (rx * minR) / r;
        qy = cy + (ry * minR) / r;
        qz = cz + (rz * minR) / r;
        dx = qx - px;
        dy = qy - py;
        dz = qz - pz;
        [dx, dy, dz] = unit(dx, dy, dz);
        qx = px + ds * dx;
        qy = py + ds * dy;
        qz = pz + ds * dz;
      }
      px = qx;
      py = qy;
      pz = qz;
      base[3 * j] = px;
      base[3 * j + 1] = py;
      base[3 * j + 2] = pz;
    }
    // style offsets across the strand, growing in from the root
    for (let j = 0; j <= o.segments; j++) {
      const a = 3 * Math.max(0, j - 1),
        b = 3 * Math.min(o.segments, j + 1);
      const [tx, ty, tz] = unit(base[b] - base[a], base[b + 1] - base[a + 1], base[b + 2] - base[a + 2], 1);
      // e1: across the strand, tangent to the head (t × radial); e2 = t × e1
      let [e1x, e1y, e1z] = cross(tx, ty, tz, nx, ny, nz);
      if (Math.hypot(e1x, e1y, e1z) > 1e-9) [e1x, e1y, e1z] = unit(e1x, e1y, e1z);
      else [e1x, e1y, e1z] = [-hz, 0, hx];
      const [e2x, e2y, e2z] = cross(tx, ty, tz, e1x, e1y, e1z);
      const arc = j * ds;
      const ramp = smoothstep(arc / (0.25 * o.length));
      const w = (2 * Math.PI * arc) / period;
      let u = 0,
        v = 0;
      if (style.type === 'wavy') u = amp * ramp * Math.sin(w);
      else if (style.type === 'curly') {
        u = amp * ramp * Math.sin(w);
        v = amp * ramp * (1 - Math.cos(w));
      }
      positions[3 * k] = base[3 * j] + u * e1x + v * e2x;
      positions[3 * k + 1] = base[3 * j + 1] + u * e1y + v * e2y;
      positions[3 * k + 2] = base[3 * j + 2] + u * e1z + v * e2z;
      k++;
    }
  }
  strandStart[o.count] = k;
  return { positions, strandStart };
}

/** (x, y, z) / |(x, y, z)|, the length taken as `zero` where it is 0 (a style's tangent: 1). */
function unit(x: number, y: number, z: number, zero = 0): Vec3Tuple {
  const l = Math.hypot(x, y, z) || zero;
  return [x / l, y / l, z / l];
}

/** a × b. */
function cross(ax: number, ay: number, az: number, bx: number, by: number, bz: number): Vec3Tuple {
  return [ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx];
}

function smoothstep(t: number): number {
  const c = Math.min(1, Math.max(0, t));
  return c * c * (3 - 2 * c);
}
