/**
 * What the narrow phase works with: the pair of bodies being tested (their
 * poses at the start of the step, in world frame) and the contact manifold
 * it builds — candidate points on both surfaces with their separation along
 * the normal — reduced to at most four points (the deepest, the one farthest
 * from it, and the two that span the largest area with them: what keeps a
 * face resting on a face from rocking) before they go to RigidContacts.
 */
import type { RigidContacts } from './contact-set.js';

/** Most candidate points a manifold holds before reduction (box clipping gives ≤ 8, hull faces more). */
const MAX = 64;

/** The pair under test and its manifold. One instance per collision stage, reused for every pair. */
export class Pair {
  /** Body 1 (store index) and body 2 (store index, or −1 − k for collider k). */
  ia = 0;
  ib = 0;
  /** Poses (position, quaternion x y z w) of both sides. */
  readonly xA = new Float64Array(3);
  readonly qA = new Float64Array(4);
  readonly xB = new Float64Array(3);
  readonly qB = new Float64Array(4);
  /** Points apart by less than this (m) become contacts (speculative: they act once they touch). */
  margin = 0;
  /** Old contacts of the pair within this distance (m) of a new one lend it their anchors (RigidContacts.clear). */
  reach = 0;
  /** Candidates: point on 1 (3), point on 2 (3), separation (> 0 apart). */
  count = 0;
  readonly pa = new Float64Array(3 * MAX);
  readonly pb = new Float64Array(3 * MAX);
  readonly sep = new Float64Array(MAX);
  /** Unit normal, from body 2 into body 1. */
  readonly n = new Float64Array(3);
  private readonly keep = new Int32Array(4);
  private readonly P = new Float64Array(9);
  contacts: RigidContacts | null = null;

  /** Forgets the candidates. */
  begin(): void {
    this.count = 0;
  }

  /** A candidate: p on body 1, q on body 2, separation s. Dropped when full or apart by more than the margin. */
  push(px: number, py: number, pz: number, qx: number, qy: number, qz: number, s: number): void {
    if (s > this.margin || this.count === MAX) return;
    const k = this.count++;
    this.pa[3 * k] = px;
    this.pa[3 * k + 1] = py;
    this.pa[3 * k + 2] = pz;
    this.pb[3 * k] = qx;
    this.pb[3 * k + 1] = qy;
    this.pb[3 * k + 2] = qz;
    this.sep[k] = s;
  }

  /**
   * Reduces the candidates to at most four and adds them as contacts with
   * the normal `n`, kept in frame `nf` (NF_*), and the core radii. The
   * points are core points when the radii are not 0.
   */
  emit(nf: number, radA: number, radB: number): void {
    const c = this.contacts!;
    const m = this.count;
    if (m === 0) return;
    const keep = this.keep;
    let kept = m;
    if (m > 4) kept = this.reduce();
    else for (let k = 0; k < m; k++) keep[k] = k;
    const P = this.P;
    const n = this.n;
    c.beginManifold();
    P[6] = n[0];
    P[7] = n[1];
    P[8] = n[2];
    for (let j = 0; j < kept; j++) {
      const k = keep[j];
      for (let d = 0; d < 3; d++) {
        P[d] = this.pa[3 * k + d];
        P[3 + d] = this.pb[3 * k + d];
      }
      c.add(this.ia, this.ib, P, nf, radA, radB, this.reach);
    }
  }

  /** Picks four of the candidates into keep[] (deepest, farthest, largest triangle, largest quadrilateral). */
  private reduce(): number {
    const m = this.count;
    const pa = this.pa,
      sep = this.sep,
      n = this.n;
    const keep = this.keep;
    let k0 = 0;
    for (let k = 1; k < m; k++) if (sep[k] < sep[k0]) k0 = k;
    let k1 = -1,
      best = -1;
    for (let k = 0; k < m; k++) {
      const d =
        (pa[3 * k] - pa[3 * k0]) ** 2 +
        (pa[3 * k + 1] - pa[3 * k0 + 1]) ** 2 +
        (pa[3 * k + 2] - pa[3 * k0 + 2]) ** 2;
      if (d > best) {
        best = d;
        k1 = k;
      }
    }
    // signed area of (k0, k1, k) about the normal: the largest on each side
    let k2 = -1,
      k3 = -1,
      hi = 0,
      lo = 0;
    const ux = pa[3 * k1] - pa[3 * k0],
      uy = pa[3 * k1 + 1] - pa[3 * k0 + 1],
      uz = pa[3 * k1 + 2] - pa[3 * k0 + 2];
    for (let k = 0; k < m; k++) {
      const vx = pa[3 * k] - pa[3 * k0],
        vy = pa[3 * k + 1] - pa[3 * k0 + 1],
        vz = pa[3 * k + 2] - pa[3 * k0 + 2];
      const a = (uy * vz - uz * vy) * n[0] + (uz * vx - ux * vz) * n[1] + (ux * vy - uy * vx) * n[2];
      if (a > hi) {
        hi = a;
        k2 = k;
      }
      if (a < lo) {
        lo = a;
        k3 = k;
      }
    }
    let c = 0;
    keep[c++] = k0;
    if (k1 !== k0) keep[c++] = k1;
    if (k2 >= 0) keep[c++] = k2;
    if (k3 >= 0) keep[c++] = k3;
    return c;
  }
}
