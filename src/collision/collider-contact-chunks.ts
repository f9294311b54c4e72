import type { ParticleStore } from '../core/particles.js';
// the chunk boxes' loop: printed with the contact loops that read them (scripts/kernels/emit-collider-contacts.ts)
import { chunkBoxesRange } from './collider-contact-loops.generated.js';

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
