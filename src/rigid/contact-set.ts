/**
 * Contacts of rigid bodies, among themselves and with the world's colliders,
 * solved as in Müller et al. 2020, "Detailed Rigid Body Simulation with
 * Extended Position Based Dynamics", "Handling contacts and friction" and the
 * velocity pass that follows it:
 *
 * - position level (every substep, phase `solve`): with the contact points
 *   p₁ = x₁ + R₁ r₁ and p₂ = x₂ + R₂ r₂ on the two surfaces and the normal n,
 *   the penetration d = (p₂ − p₁)·n (n points from body 2 into body 1);
 *   when d > 0 a positional correction Δλ = d/(w₁ + w₂) along n with the
 *   generalized inverse masses w = 1/m + (r × n)ᵀ I⁻¹ (r × n) (eqs. 2–9,
 *   compliance 0), accumulated in λ_n. Static friction: the relative motion
 *   of the contact points over the substep, Δp = (p₁ − p̄₁) − (p₂ − p̄₂) with
 *   p̄ the same body points at the pose of the substep's start, has the
 *   tangential part Δp_t; it is undone by a positional correction along
 *   −Δp_t when its multiplier λ_t stays below μ_s λ_n;
 * - velocity level (phase `finish`, after the velocities are derived): the
 *   relative velocity v at the contact, its normal part v_n and tangential
 *   part v_t; restitution Δv = n (−v_n + max(−e ṽ_n, 0)), ṽ_n the normal
 *   velocity before the substep's projection and e = 0 when |ṽ_n| ≤ 2|g|h
 *   (a resting contact must not bounce; the paper tests the normal velocity
 *   — we test ṽ_n, since the projection has already brought v_n to about 0
 *   in every contact), applied as the impulse Δv/(w₁ + w₂) at the contact
 *   point; then dynamic friction Δv = −v_t/|v_t| min(h μ_d |f_n|, |v_t|).
 *   The paper's h μ_d |f_n| with f_n = λ_n/h² is an impulse, μ_d λ_n/h, so
 *   we read the formula as Coulomb's law for impulses: the friction impulse
 *   is min(|v_t|/w, μ_d (λ_n/h + p_n) − λ_t/h), with p_n this pass's normal
 *   impulse and λ_t/h what static friction already spent (taken as a
 *   velocity, μ_d λ_n/h is m times too large: a box held on a slope 2° above
 *   its friction angle). Round cores take it per contact point; a
 *   polyhedral manifold takes it once for the whole face (faceFriction, printed into
 *   ContactBlockSolves by scripts/kernels/emit-contact-blocks.ts with relativeVelocity).
 *
 * The narrow phase runs once per step (RigidCollisionStage) and stores each
 * contact point as an anchor on each body in the body's frame — for spheres
 * and capsules a point of the core (centre, axis) with the radius — and the
 * normal in the frame of the body whose face it is, so that within the step
 * every substep measures the contact at the current poses (the paper's most
 * recent constraint directions) without a new narrow phase. Contacts that
 * are apart at the step's start (within the margin) act only once they touch.
 *
 * Body 2 may be a collider of the world (index −1 − k): static or kinematic,
 * never moved. Bodies that sleep or do not move (inverse mass 0) get no
 * correction. Everything is in typed arrays; the loops allocate nothing.
 */
import { tangentialPart } from '../collision/coulomb.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { ContactBlocks, PASS } from './contact-blocks.js';
import { D, DN, FACE, NF_A, NF_B, NF_CORES, S, U, UN } from './contact-store.js';
import { rotate, rotateBack, rotateFrom } from './rotate.js';

/** Scratch: the tangential part of a contact's slip (collision/coulomb.ts). */
const T = new Float64Array(3);

export { type ContactMaterials, NF_A, NF_B, NF_CORES } from './contact-store.js';

export class RigidContacts extends ContactBlocks implements ConstraintSet {
  readonly kind = 'rigid-contact';
  readonly order = 100;
  readonly violationUnit = 'm';
  enabled = true;
  private gravity = 9.81;

  /** The colliders' poses for this substep; multipliers to 0; the normal velocities before the projection. */
  beginStep(ctx: StepContext): void {
    const g = ctx.gravity;
    this.gravity = Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    this.cp.update(this.colliders, ctx.h);
    const r = this.rigids;
    this.manifolds();
    const n = this.count;
    for (let s = 0; s < n; ) {
      const e = this.mEnd[s];
      if (this.block[s] !== 0) {
        // a block's points share the normal (the same body-frame vector in the same frame): turned once
        const ib = this.b[s];
        if (this.nf[s] === NF_A) rotateFrom(S, r.q, 4 * this.a[s], this.nL, 3 * s);
        else if (ib >= 0) rotateFrom(S, r.q, 4 * ib, this.nL, 3 * s);
        else rotateFrom(S, this.cp.q, 4 * (-1 - ib), this.nL, 3 * s);
        const nx = S[0],
          ny = S[1],
          nz = S[2];
        for (let k = s; k < e; k++) {
          this.lamN[k] = this.lamT[k] = this.lamNM[k] = 0;
          const k3 = 3 * k;
          this.nW[k3] = nx;
          this.nW[k3 + 1] = ny;
          this.nW[k3 + 2] = nz;
          if (this.rest[k] !== 0) this.normalVelocity(k);
        }
        s = e;
        continue;
      }
      for (let k = s; k < e; k++) {
        this.lamN[k] = this.lamT[k] = this.lamNM[k] = 0;
        // the normal of a face turns with its body: taken once per substep, at the predicted pose
        const nf = this.nf[k],
          k3 = 3 * k;
        if (nf === NF_A) rotateFrom(S, r.q, 4 * this.a[k], this.nL, k3);
        else if (nf === NF_B) {
          const ib = this.b[k];
          if (ib >= 0) rotateFrom(S, r.q, 4 * ib, this.nL, k3);
          else rotateFrom(S, this.cp.q, 4 * (-1 - ib), this.nL, k3);
        }
        if (nf !== NF_CORES) {
          this.nW[k3] = S[0];
          this.nW[k3 + 1] = S[1];
          this.nW[k3 + 2] = S[2];
        }
        if (this.rest[k] !== 0) this.normalVelocity(k);
      }
      s = e;
    }
  }

  /** ṽ_n of contact k (vn0), the normal velocity before the projection; it matters only for restitution. */
  private normalVelocity(k: number): void {
    const W = this.W;
    this.current(k);
    this.relativeVelocity(this.a[k], this.b[k], W, S);
    this.vn0[k] = S[0] * W[6] + S[1] * W[7] + S[2] * W[8];
  }
  /** The contacts' position-level projection: non-penetration, then static friction (see the header). */
  project(ctx: StepContext): void {
    const W = this.W;
    const n = this.count;
    const rev = ctx.reverse;
    this.worldInverseInertia();
    for (let j = 0; j < n; j++) {
      const k = rev ? n - 1 - j : j;
      const s = this.first[k];
      if (this.block[s] !== 0) {
        // a polyhedral manifold, whole (contact-blocks.ts): k is its first point, or its last in reverse
        const e = this.mEnd[s];
        this.projectBlock(s, e);
        j += e - s - 1;
        continue;
      }
      this.current(k);
      const nx = W[6],
        ny = W[7],
        nz = W[8];
      const d = (W[3] - W[0]) * nx + (W[4] - W[1]) * ny + (W[5] - W[2]) * nz;
      if (d <= 0) continue;
      const ia = this.a[k],
        ib = this.b[k];
      D[0] = nx;
      D[1] = ny;
      D[2] = nz;
      const w = this.pairInverseMassW(ia, ib);
      if (w <= 0) continue;
      const dl = d / w;
      this.lamN[k] += dl;
      this.lamNM[this.first[k]] += dl;
      D[3] = dl;
      if (this.radA[k] !== 0 || this.radB[k] !== 0) {
        // round cores: static friction measures the slip after the normal correction
        this.moveW(ia, 0, 1);
        this.moveW(ib, 1, -1);
        this.staticFriction(k, false);
        continue;
      }
      // polyhedra: static friction works on the poses before the normal correction, so the two
      // corrections are applied together
      for (let c = 0; c < 4; c++) DN[c] = D[c];
      for (let c = 0; c < 6; c++) UN[c] = U[c];
      const dt = this.staticFriction(k, true);
      this.moveBoth(ia, 0, 1, dt);
      this.moveBoth(ib, 1, -1, dt);
    }
  }

  /**
   * Static friction of contact k: undo the tangential slip while λ_t < μ_s λ_n.
   * For contacts between polyhedra the anchors are material points of both
   * bodies that coincided (tangentially) when the contact was made, so the
   * slip is the tangential part of s₁ − s₂: the body points' motion since
   * the step began, which the paper's (p₁ − p̄₁) − (p₂ − p̄₂) measures over
   * one substep. Measured over the step, what one Gauss–Seidel pass leaves
   * of it in a substep is taken up in the next, instead of adding up to a
   * creep of the whole stack. When the contact slides, body 2's anchor moves
   * under body 1's. A round core (sphere, capsule) has no material point at
   * its surface, so its slip is the paper's, over the substep.
   */
  private staticFriction(k: number, deferred: boolean): number {
    const muS = this.muS[k];
    if (muS <= 0) return 0;
    const W = this.W;
    const r = this.rigids;
    const ia = this.a[k],
      ib = this.b[k];
    let dx: number, dy: number, dz: number;
    const round = this.radA[k] !== 0 || this.radB[k] !== 0;
    // polyhedra: the slip since the contact began, at the poses before the normal correction (what
    // that correction adds is taken up in the next substep); round cores: after it, over the substep
    if (round) this.anchors(k);
    if (!round) {
      dx = W[0] - W[3];
      dy = W[1] - W[4];
      dz = W[2] - W[5];
    } else {
      // p − p̄ for the body point at s₁: (s₁ − x) − R̄ Rᵀ (s₁ − x) + (x − x̄)
      const a3 = 3 * ia,
        a4 = 4 * ia;
      rotateBack(S, r.q, a4, W[9], W[10], W[11]);
      rotate(S, r.qPrev, a4, S[0], S[1], S[2]);
      dx = W[9] - S[0] + r.x[a3] - r.xPrev[a3];
      dy = W[10] - S[1] + r.x[a3 + 1] - r.xPrev[a3 + 1];
      dz = W[11] - S[2] + r.x[a3 + 2] - r.xPrev[a3 + 2];
      let Q: Float64Array, Qp: Float64Array, X: Float64Array, Xp: Float64Array, b3: number, b4: number;
      if (ib >= 0) {
        Q = r.q;
        Qp = r.qPrev;
        X = r.x;
        Xp = r.xPrev;
        b3 = 3 * ib;
        b4 = 4 * ib;
      } else {
        Q = this.cp.q;
        Qp = this.cp.qp;
        X = this.cp.x;
        Xp = this.cp.xp;
        b3 = 3 * (-1 - ib);
        b4 = 4 * (-1 - ib);
      }
      rotateBack(S, Q, b4, W[12], W[13], W[14]);
      rotate(S, Qp, b4, S[0], S[1], S[2]);
      dx -= W[12] - S[0] + X[b3] - Xp[b3];
      dy -= W[13] - S[1] + X[b3 + 1] - Xp[b3 + 1];
      dz -= W[14] - S[2] + X[b3 + 2] - Xp[b3 + 2];
    }
    const nx = W[6],
      ny = W[7],
      nz = W[8];
    // the tangential part of the slip (collision/coulomb.ts, the split's projection)
    const ct = tangentialPart(T, dx, dy, dz, nx, ny, nz);
    dx = T[0];
    dy = T[1];
    dz = T[2];
    if (!(ct > 1e-15)) return 0;
    const tx = dx / ct,
      ty = dy / ct,
      tz = dz / ct;
    D[0] = tx;
    D[1] = ty;
    D[2] = tz;
    const w = this.pairInverseMassW(ia, ib);
    if (w <= 0) return 0;
    const dl = ct / w;
    let d = dl;
    if (this.lamT[k] + dl >= muS * this.lamN[k]) {
      // sliding: the correction is projected onto Coulomb's cone (it goes as far as μ_s λ_n allows)
      // and body 2's anchor follows body 1's by the rest of the slip (docs/rigid.md)
      d = Math.max(0, muS * this.lamN[k] - this.lamT[k]);
      const f = 1 - d / dl;
      if (!round) this.reanchor(k, f * dx, f * dy, f * dz);
      if (!(d > 0)) return 0;
    }
    this.lamT[k] += d;
    if (deferred) return d; // the caller moves the bodies (D: the direction, U: I⁻¹ (r × t))
    D[3] = d;
    this.moveW(ia, 0, -1);
    this.moveW(ib, 1, 1);
    return d;
  }

  /** Moves body 2's anchor of contact k by the world vector d (W current). */
  private reanchor(k: number, dx: number, dy: number, dz: number): void {
    const ib = this.b[k];
    let Q: Float64Array, qo: number;
    if (ib >= 0) {
      Q = this.rigids.q;
      qo = 4 * ib;
    } else {
      Q = this.cp.q;
      qo = 4 * (-1 - ib);
    }
    // rB += R₂ᵀ d: the material point of body 2 at d from the old one. (Not R₂ᵀ (r₂ + d) with W's
    // lever r₂: W was taken before the normal correction, and a body 2 that this correction moved would
    // carry that motion into its anchor as a slip: a box on a static or moving box rose and spun.)
    rotateBack(S, Q, qo, dx, dy, dz);
    const k3 = 3 * k;
    this.rB[k3] += S[0];
    this.rB[k3 + 1] += S[1];
    this.rB[k3 + 2] += S[2];
  }

  /** The velocity pass: dynamic friction and restitution of the contacts that acted in this substep. */
  endStep(ctx: StepContext): void {
    const W = this.W;
    const h = ctx.h;
    const rest = 2 * this.gravity * h;
    const face = this.face;
    this.worldInverseInertia();
    face.fill(0, 0, FACE * this.count);
    PASS[0] = h;
    PASS[1] = rest;
    for (let k = 0; k < this.count; k++) {
      if (this.first[k] === k && this.block[k] !== 0) {
        // a polyhedral manifold, whole (contact-blocks.ts); its friction is faceFriction's, below
        const e = this.mEnd[k];
        this.restitutionBlock(k, e);
        k = e - 1;
        continue;
      }
      const lam = this.lamN[k];
      if (lam <= 0) continue;
      this.current(k);
      const polyhedra = this.radA[k] === 0 && this.radB[k] === 0;
      if (polyhedra) {
        // the face's centroid for faceFriction (the poses do not change in this pass)
        const f = FACE * this.first[k];
        face[f] += 0.5 * (W[0] + W[3]);
        face[f + 1] += 0.5 * (W[1] + W[4]);
        face[f + 2] += 0.5 * (W[2] + W[5]);
        face[f + 3]++;
        face[f + 4] = k;
        face[f + 5] += this.lamT[k];
      }
      this.relativeVelocity(this.a[k], this.b[k], this.W, S);
      const nx = W[6],
        ny = W[7],
        nz = W[8];
      const ia = this.a[k],
        ib = this.b[k];
      // restitution: Δv_n = −v_n + max(−e ṽ_n, 0), the impulse Δv_n / (w₁ + w₂) along n
      const vn = S[0] * nx + S[1] * ny + S[2] * nz;
      const v0 = this.vn0[k];
      const e = Math.abs(v0) <= rest ? 0 : this.rest[k];
      const dn = -vn + Math.max(-e * v0, 0);
      D[0] = nx;
      D[1] = ny;
      D[2] = nz;
      let w = this.pairInverseMassW(ia, ib);
      if (!(w > 0)) continue;
      const pn = dn / w;
      if (pn > 0) this.lamNM[this.first[k]] += h * pn;
      if (dn !== 0) {
        D[3] = pn;
        this.impulseW(ia, 0, 1);
        this.impulseW(ib, 1, -1);
      }
      // dynamic friction: the tangential velocity v_t is reduced by Δv = min(h μ_d |f_n|, |v_t|), read
      // as Coulomb's law for impulses: the friction impulse is at most μ_d times the normal impulse of
      // the substep, λ_n/h from the projection plus this pass's, less what static friction already
      // spent (λ_t/h) — the paper's h μ_d |f_n| with f_n = λ_n/h² is an impulse, not a velocity
      if (polyhedra) continue; // per manifold, below
      if (dn !== 0) this.relativeVelocity(this.a[k], this.b[k], this.W, S);
      const vn2 = S[0] * nx + S[1] * ny + S[2] * nz;
      const tx = S[0] - vn2 * nx,
        ty = S[1] - vn2 * ny,
        tz = S[2] - vn2 * nz;
      const vt = Math.sqrt(tx * tx + ty * ty + tz * tz);
      if (!(vt > 0)) continue;
      const budget = (this.muD[k] * (lam + h * Math.max(pn, 0)) - this.lamT[k]) / h;
      if (!(budget > 0)) continue;
      D[0] = -tx / vt;
      D[1] = -ty / vt;
      D[2] = -tz / vt;
      w = this.pairInverseMassW(ia, ib);
      if (!(w > 0)) continue;
      D[3] = Math.min(budget, vt / w);
      this.impulseW(ia, 0, 1);
      this.impulseW(ib, 1, -1);
    }
    for (let k = 0; k < this.count; k++) {
      if (this.first[k] === k && this.radA[k] === 0 && this.radB[k] === 0) this.faceFriction(k);
    }
  }
}
