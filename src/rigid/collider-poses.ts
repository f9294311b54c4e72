/**
 * The world colliders' poses as the rigid contacts see them in one substep
 * (position x and rotation q now, the pose at the substep's start (x − h v,
 * and q turned back by h ω), and the velocities, three or four numbers per
 * collider in flat arrays; RigidContacts reads a collider k of a contact as
 * body −1 − k), and the relative velocity of a contact's two sides.
 */
import type { RigidStore } from '../core/rigid-store.js';
import type { WorldCollider } from '../core/world-collider.js';
import { ColliderPoseArrays } from './collider-pose-arrays.generated.js';
import { turnHalf } from './turn.generated.js';

/** The colliders' poses; the per-collider arrays (x, q, xp, qp, v, w) are ColliderPoseArrays' (scripts/kernels/emit-layouts.ts). */
export class ColliderPoses extends ColliderPoseArrays {
  /** Takes the colliders' poses and velocities for a substep of length h. */
  update(cols: readonly WorldCollider[], h: number): void {
    const nc = cols.length;
    if (this.capacity < nc) this.grow(nc);
    this.count = nc;
    const q = this.q;
    for (let c = 0; c < nc; c++) {
      const col = cols[c];
      for (let k = 0; k < 3; k++) {
        this.x[3 * c + k] = col.position[k];
        this.v[3 * c + k] = col.linearVelocity[k];
        this.w[3 * c + k] = col.angularVelocity[k];
        this.xp[3 * c + k] = col.position[k] - h * col.linearVelocity[k];
      }
      for (let k = 0; k < 4; k++) q[4 * c + k] = this.qp[4 * c + k] = col.rotation[k];
      // the rotation at the substep's start: q turned back by h ω (small; ½ θ = −½ h ω)
      turnHalf(
        this.qp,
        4 * c,
        -0.5 * h * this.w[3 * c],
        -0.5 * h * this.w[3 * c + 1],
        -0.5 * h * this.w[3 * c + 2],
      );
    }
  }
}

/**
 * out ← the velocity of contact point s₁ on body ia relative to s₂ on body
 * ib (a store index, or −1 − k for collider k), with the levers s − x of the
 * two sides in W[9 … 11] and W[12 … 14].
 */
export function relativeVelocity(
  r: RigidStore,
  cp: ColliderPoses,
  ia: number,
  ib: number,
  W: Float64Array,
  out: Float64Array,
): void {
  const V = r.v,
    O = r.omega;
  const a3 = 3 * ia;
  let vx = V[a3] + (O[a3 + 1] * W[11] - O[a3 + 2] * W[10]),
    vy = V[a3 + 1] + (O[a3 + 2] * W[9] - O[a3] * W[11]),
    vz = V[a3 + 2] + (O[a3] * W[10] - O[a3 + 1] * W[9]);
  let VB: Float64Array, OB: Float64Array, b3: number;
  if (ib >= 0) {
    VB = V;
    OB = O;
    b3 = 3 * ib;
  } else {
    VB = cp.v;
    OB = cp.w;
    b3 = 3 * (-1 - ib);
  }
  vx -= VB[b3] + (OB[b3 + 1] * W[14] - OB[b3 + 2] * W[13]);
  vy -= VB[b3 + 1] + (OB[b3 + 2] * W[12] - OB[b3] * W[14]);
  vz -= VB[b3 + 2] + (OB[b3] * W[13] - OB[b3 + 1] * W[12]);
  out[0] = vx;
  out[1] = vy;
  out[2] = vz;
}
