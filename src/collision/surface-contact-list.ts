import { SurfaceContactArrays } from './surface-contact-arrays.generated.js';
import type { Surface } from './surface-topology.js';

/** Contact types: vertex–triangle (q, a, b, c) and edge–edge (a, b, c, d). */
export const TYPE_VT = 0;
export const TYPE_EE = 1;
/** Contact flags: found by proximity, by the continuous test, or an untangling pair (flipped side). */
export const FLAG_PROXIMITY = 1;
export const FLAG_CCD = 2;
export const FLAG_FLIP = 4;
/** Barycentric tolerance for proximity contacts: the projection may lie this far outside the triangle (or edge). */
export const FOOTPRINT = 0.05;

/**
 * The contact constraints of one substep of the surface contacts, as
 * parallel typed arrays (no object per contact): type, flags, four global
 * particle indices, the side s = ±1 the pair keeps, the thickness h, the
 * friction and restitution coefficients, the accumulated multiplier λ and
 * the relative normal velocity at the start of the substep (restitution).
 *
 * Every constraint is C = s d − h ≥ 0 with d the signed distance of the
 * pair along its normal (vertex–triangle: surface-vertex-triangle.ts,
 * edge–edge: surface-edge-edge.ts, each with its frame function); the
 * gradients are ∇_j C = s c_j n̂ with weights c_j (Σ c_j = 0, so
 * projections conserve momentum).
 */
export class SurfaceContactList extends SurfaceContactArrays {
  // (the per-contact arrays, count, capacity, grow and push are SurfaceContactArrays's, printed
  // from a table in scripts/kernels/emit-layouts.ts; push's values: type, flags, the four indices,
  // side, thickness, μs, μk, restitution, vn0)
  /** Largest correction (m) of one untangling (FLAG_FLIP) projection. */
  flipStep = 0;

  /**
   * `surfaces`: the registered surfaces, whose friction and restitution a
   * hit between two of them takes (the mean friction, the larger
   * restitution: scripts/kernels/emit-surface-frames.ts).
   */
  constructor(readonly surfaces: readonly Surface[]) {
    super();
  }

  /** Contact k for inspection and tests: type, particle indices, side, thickness. */
  contact(k: number): {
    type: 'vertex-triangle' | 'edge-edge';
    particles: number[];
    side: number;
    thickness: number;
  } {
    return {
      type: this.type[k] === TYPE_VT ? 'vertex-triangle' : 'edge-edge',
      particles: Array.from(this.idx.subarray(4 * k, 4 * k + 4)),
      side: this.side[k],
      thickness: this.thick[k],
    };
  }
}

/**
 * The frame of one contact, written by frameVT and frameEE (one template in
 * scripts/kernels/emit-surface-frames.ts, re-exported by
 * surface-vertex-triangle.ts and surface-edge-edge.ts): unit normal n̂ at 0–2, the gradient
 * weights c0 … c3 at 3–6 (∇_j C = s c_j n̂), the signed distance d along n̂
 * at 7.
 */
export const frame = new Float64Array(8);

/** What a frame function checks besides degeneracy: nothing, the footprint, or footprint and thickness (acting). */
export const FRAME_ONLY = 0;
export const FRAME_FOOTPRINT = 1;
export const FRAME_ACTING = 2;

/**
 * Relative normal velocity Σ c_j v_j · n̂ of the pair whose frame is in
 * `frame` (the contact point of the first side against the second's).
 */
export function frameNormalVelocity(v: Float64Array, i0: number, i1: number, i2: number, i3: number): number {
  const c0 = frame[3],
    c1 = frame[4],
    c2 = frame[5],
    c3 = frame[6];
  let r = 0;
  for (let j = 0; j < 3; j++)
    r += (c0 * v[i0 + j] + c1 * v[i1 + j] + c2 * v[i2 + j] + c3 * v[i3 + j]) * frame[j];
  return r;
}

/**
 * The side a contact keeps: where the pair was before its first crossing
 * (the start of the substep), or where it is at the prediction when nothing
 * crossed; exact zeros fall back to the other end.
 */
export function contactSide(crossed: boolean, dX: number, dP: number): number {
  if (crossed) return dX > 0 ? 1 : dX < 0 ? -1 : dP > 0 ? -1 : 1;
  return dP > 0 ? 1 : dP < 0 ? -1 : dX >= 0 ? 1 : -1;
}
