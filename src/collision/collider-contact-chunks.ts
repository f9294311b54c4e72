import type { ParticleStore } from '../core/particles.js';
import { writeBox } from './boxes.js';

/**
 * Fills the collider contacts' chunk boxes (over x and p of `chunk` consecutive particles) and
 * reaches (largest radius + |p − x| of a movable particle) for culling (ColliderContacts.generate).
 */
export function buildChunkBoxes(
  cc: { chunkBox: Float64Array; chunkReach: Float64Array },
  s: ParticleStore,
  chunk: number,
): void {
  const np = s.count;
  ensureChunkBoxes(cc, np, chunk);
  chunkBoxesRange(
    cc.chunkBox,
    cc.chunkReach,
    s.x,
    s.p,
    s.invMass,
    s.radius,
    np,
    chunk,
    0,
    Math.ceil(np / chunk),
  );
}

/** Room in cc's chunk boxes and reaches for np particles (new arrays when they are too short). */
export function ensureChunkBoxes(
  cc: { chunkBox: Float64Array; chunkReach: Float64Array },
  np: number,
  chunk: number,
): void {
  const nc = Math.ceil(np / chunk);
  if (cc.chunkReach.length < nc) {
    cc.chunkBox = new Float64Array(6 * nc);
    cc.chunkReach = new Float64Array(nc);
  }
}

/**
 * The boxes and reaches of chunks [ch0, ch1) of np particles (buildChunkBoxes; a block of the plane
 * contacts' first pass on the pool, collider-contacts-planes.ts, fills those of its own chunks).
 */
export function chunkBoxesRange(
  box: Float64Array,
  reach: Float64Array,
  x: Float64Array,
  p: Float64Array,
  invMass: Float64Array,
  radius: Float64Array,
  np: number,
  chunk: number,
  ch0: number,
  ch1: number,
): void {
  for (let ch = ch0; ch < ch1; ch++) {
    let x0 = Number.POSITIVE_INFINITY,
      y0 = x0,
      z0 = x0,
      x1 = Number.NEGATIVE_INFINITY,
      y1 = x1,
      z1 = x1,
      m = 0;
    const end = Math.min(np, (ch + 1) * chunk);
    for (let i = ch * chunk; i < end; i++) {
      const i3 = 3 * i;
      const ax = x[i3],
        ay = x[i3 + 1],
        az = x[i3 + 2],
        bx = p[i3],
        by = p[i3 + 1],
        bz = p[i3 + 2];
      // a NaN coordinate stays out of the box (comparisons fail) and makes the reach infinite: never culled
      if (ax < x0) x0 = ax;
      if (ax > x1) x1 = ax;
      if (bx < x0) x0 = bx;
      if (bx > x1) x1 = bx;
      if (ay < y0) y0 = ay;
      if (ay > y1) y1 = ay;
      if (by < y0) y0 = by;
      if (by > y1) y1 = by;
      if (az < z0) z0 = az;
      if (az > z1) z1 = az;
      if (bz < z0) z0 = bz;
      if (bz > z1) z1 = bz;
      if (Number.isNaN(ax + ay + az + bx + by + bz)) m = Number.POSITIVE_INFINITY;
      if (invMass[i] === 0) continue;
      const mx = bx - ax,
        my = by - ay,
        mz = bz - az;
      const r = radius[i] + Math.sqrt(mx * mx + my * my + mz * mz);
      if (r > m) m = r;
    }
    writeBox(box, 6 * ch, x0, y0, z0, x1, y1, z1);
    reach[ch] = m;
  }
}

/**
 * The length of the tangential part (normal n) of the motion p − x that the prediction of particle i3/3
 * brings over the substep h, relative to the collider's surface moving at (cvx, cvy, cvz): ColliderContacts.incoming.
 */
export function incomingSlip(
  x: Float64Array,
  p: Float64Array,
  i3: number,
  nx: number,
  ny: number,
  nz: number,
  cvx: number,
  cvy: number,
  cvz: number,
  h: number,
): number {
  const dx = p[i3] - x[i3] - cvx * h,
    dy = p[i3 + 1] - x[i3 + 1] - cvy * h,
    dz = p[i3 + 2] - x[i3 + 2] - cvz * h;
  const dn = dx * nx + dy * ny + dz * nz;
  const tx = dx - dn * nx,
    ty = dy - dn * ny,
    tz = dz - dn * nz;
  return Math.sqrt(tx * tx + ty * ty + tz * tz);
}
