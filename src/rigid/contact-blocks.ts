/**
 * The contacts of a polyhedral manifold solved as a block (RigidContacts,
 * contact-set.ts): the up to four points of one pair's patch share the two
 * bodies, so the projection and the restitution solve the points of a
 * manifold together (block-solve.ts: one linearisation at the manifold's
 * poses, K Δλ = c with the points coupled through the shared bodies) and
 * move both bodies once per manifold, with their poses, inverse masses and
 * world inverse inertias in locals. Müller et al. 2020, §3.5 ("Handling
 * contacts and friction": eqs. 2–9 for the normal and the static friction
 * corrections) and §3.6 (eqs. 33–34, restitution) with the points of a
 * patch solved jointly instead of one after the other: the result does not
 * depend on the order in which the clipping lists the points.
 */

import { ContactBlockSolves } from './contact-blocks.generated.js';
import { NF_CORES } from './contact-store.js';

export { PASS } from './contact-blocks.generated.js';

/**
 * The manifolds of the step's contacts, and which are blocks; their solves (projectBlock,
 * restitutionBlock) are ContactBlockSolves', printed by scripts/kernels/emit-contact-blocks.ts.
 */
export class ContactBlocks extends ContactBlockSolves {
  /**
   * At a manifold's first contact: one past its last contact; and whether
   * the manifold is a block (one pair, polyhedral points, a face normal).
   */
  protected mEnd = new Int32Array(0);
  protected block = new Uint8Array(0);

  /** Whether mEnd and block describe the contacts (they change with the step's narrow phase). */
  private known = false;
  private knownCount = 0;

  override clear(): void {
    this.known = false;
    super.clear();
  }

  override loadState(state: unknown): void {
    this.known = false;
    super.loadState(state);
  }

  /**
   * mEnd and block for this step's contacts, once per step (the manifolds
   * are contiguous runs of `first`). A block's points also share the
   * body-frame normal, so that beginStep turns it once per manifold.
   */
  protected manifolds(): void {
    const n = this.count;
    if (this.known && this.knownCount === n) return;
    this.known = true;
    this.knownCount = n;
    if (this.mEnd.length < n) {
      this.mEnd = new Int32Array(this.capacity);
      this.block = new Uint8Array(this.capacity);
    }
    for (let s = 0; s < n; ) {
      let e = s + 1;
      while (e < n && this.first[e] === s) e++;
      // a block has at most the four points of a reduced manifold (block-solve.ts solves 4 × 4)
      let ok = this.first[s] === s && e - s <= 4 ? 1 : 0;
      for (let k = s; k < e && ok; k++) {
        if (
          this.a[k] !== this.a[s] ||
          this.b[k] !== this.b[s] ||
          this.radA[k] !== 0 ||
          this.radB[k] !== 0 ||
          this.nf[k] === NF_CORES ||
          this.nf[k] !== this.nf[s] ||
          this.nL[3 * k] !== this.nL[3 * s] ||
          this.nL[3 * k + 1] !== this.nL[3 * s + 1] ||
          this.nL[3 * k + 2] !== this.nL[3 * s + 2]
        )
          ok = 0;
      }
      this.mEnd[s] = e;
      this.block[s] = ok;
      s = e;
    }
  }
}
