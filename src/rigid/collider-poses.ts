/**
 * The world colliders' poses as the rigid contacts see them in one substep
 * (position x and rotation q now, the pose at the substep's start (x − h v,
 * and q turned back by h ω), and the velocities, three or four numbers per
 * collider in flat arrays; RigidContacts reads a collider k of a contact as
 * body −1 − k). The relative velocity of a contact's two sides is
 * ContactBlockSolves.relativeVelocity (scripts/kernels/emit-contact-blocks.ts).
 */
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
