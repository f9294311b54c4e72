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
 *   polyhedral manifold takes it once for the whole face (faceFriction).
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
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { RigidStore } from '../core/rigid-store.js';
import type { WorldCollider } from '../core/world-collider.js';
import { ColliderPoses, relativeVelocity } from './collider-poses.js';
import { ContactHistory } from './contact-history.js';
import { rotate, rotateBack, rotateFrom } from './rotate.js';

/** The normal is kept in the frame of body 1 (NF_A), of body 2 (NF_B), or taken from the anchors (NF_CORES: p₁ − p₂). */
export const NF_A = 0;
export const NF_B = 1;
export const NF_CORES = 2;

/** Per-body and per-collider materials the contacts combine (RigidBodies implements it). */
export interface ContactMaterials {
  /** Kinetic and static friction, restitution per body (store index). */
  readonly friction: Float64Array;
  readonly staticFriction: Float64Array;
  readonly restitution: Float64Array;
  /** Per body: 1 when it can be moved this step (dynamic, awake). */
  readonly movable: Uint8Array;
}

const S = new Float64Array(3);
/** Rᵀ (r × d) of the two sides from the last inverseMass calls (3 each). */
const U = new Float64Array(6);
/** The direction (0–2) and magnitude (3) of the correction being applied. */
const D = new Float64Array(4);
/** The generalized inverse masses of the two sides from the last inverseMass calls. */
const WM = new Float64Array(2);

export class RigidContacts implements ConstraintSet {
  readonly kind = 'rigid-contact';
  readonly order = 100;
  enabled = true;
  /** Contact points this step. */
  count = 0;
  private capacity = 0;
  /** Body 1 (a store index) and body 2 (a store index, or −1 − k for collider k). */
  a = new Int32Array(0);
  b = new Int32Array(0);
  /** Anchors in the frames of body 1 and 2 (3 each), the normal in its frame (3) and which frame (NF_*). */
  rA = new Float64Array(0);
  rB = new Float64Array(0);
  nL = new Float64Array(0);
  nf = new Int8Array(0);
  /** Radii of the cores (sphere, capsule) on each side. */
  radA = new Float64Array(0);
  radB = new Float64Array(0);
  /** Static and kinetic friction and restitution of the pair. */
  muS = new Float64Array(0);
  muD = new Float64Array(0);
  rest = new Float64Array(0);
  /** Normal and tangential multipliers of this substep, and the normal velocity before its projection. */
  lamN = new Float64Array(0);
  lamT = new Float64Array(0);
  vn0 = new Float64Array(0);
  /** The last world normal, for anchors that meet (NF_CORES). */
  nW = new Float64Array(0);
  /** Colliders' poses in this substep and at its start, and their velocities. */
  private readonly cp = new ColliderPoses();
  /** The last step's contacts (pairs and anchors) and a hash of their pairs. */
  private readonly history = new ContactHistory();
  /** Per contact, the first contact of its manifold (the contacts of one pair's patch are added together). */
  first = new Int32Array(0);
  /**
   * At a manifold's first contact: the normal impulse of its contacts in
   * this substep times h (the projection's λ_n and the velocity pass's
   * normal impulses), dynamic friction's budget (faceFriction).
   */
  lamNM = new Float64Array(0);
  private manifoldStart = 0;
  /** The contact's world data: s₁ (0–2), s₂ (3–5), n (6–8), r₁ (9–11), r₂ (12–14). */
  private readonly W = new Float64Array(15);
  private readonly rigids: RigidStore;
  private readonly colliders: readonly WorldCollider[];
  private readonly materials: ContactMaterials;
  private gravity = 9.81;

  constructor(rigids: RigidStore, colliders: readonly WorldCollider[], materials: ContactMaterials) {
    this.rigids = rigids;
    this.colliders = colliders;
    this.materials = materials;
    this.grow(64);
  }

  private grow(cap: number): void {
    const g = <T extends Float64Array | Int32Array | Int8Array>(a: T, stride: number): T => {
      const b = new (a.constructor as new (n: number) => T)(cap * stride);
      b.set(a.subarray(0, this.count * stride));
      return b;
    };
    this.a = g(this.a, 1);
    this.b = g(this.b, 1);
    this.rA = g(this.rA, 3);
    this.rB = g(this.rB, 3);
    this.nL = g(this.nL, 3);
    this.nf = g(this.nf, 1);
    this.radA = g(this.radA, 1);
    this.radB = g(this.radB, 1);
    this.muS = g(this.muS, 1);
    this.muD = g(this.muD, 1);
    this.rest = g(this.rest, 1);
    this.lamN = g(this.lamN, 1);
    this.lamT = g(this.lamT, 1);
    this.vn0 = g(this.vn0, 1);
    this.nW = g(this.nW, 3);
    this.first = g(this.first, 1);
    this.lamNM = g(this.lamNM, 1);
    this.capacity = cap;
  }

  /**
   * Starts a new step's contacts; the last step's are kept to match: a new
   * contact between polyhedra whose anchor on body 1 lies within `reach` of
   * an old one of the same pair takes the old anchors, so that static
   * friction holds the bodies where they stuck, across steps too.
   */
  clear(): void {
    this.history.save(this.a, this.b, this.rA, this.rB, this.count);
    this.count = 0;
    this.manifoldStart = 0;
  }

  /**
   * Adds a contact point from world data at the current poses: the core
   * points p₁ on body a and p₂ on body b (surface points when the radii are
   * 0), the unit normal n pointing from b into a, the frame to keep n in
   * (NF_*), and the core radii.
   */
  add(ia: number, ib: number, P: Float64Array, nf: number, radA: number, radB: number, reach = 0): void {
    if (this.count === this.capacity) this.grow(2 * this.capacity);
    const k = this.count++;
    const k3 = 3 * k;
    const r = this.rigids;
    this.a[k] = ia;
    this.b[k] = ib;
    rotateBack(S, r.q, 4 * ia, P[0] - r.x[3 * ia], P[1] - r.x[3 * ia + 1], P[2] - r.x[3 * ia + 2]);
    this.rA[k3] = S[0];
    this.rA[k3 + 1] = S[1];
    this.rA[k3 + 2] = S[2];
    const mats = this.materials;
    let fB: number, sB: number, eB: number;
    let qB: Float64Array, qo: number;
    if (ib >= 0) {
      rotateBack(S, r.q, 4 * ib, P[3] - r.x[3 * ib], P[4] - r.x[3 * ib + 1], P[5] - r.x[3 * ib + 2]);
      qB = r.q;
      qo = 4 * ib;
      fB = mats.friction[ib];
      sB = mats.staticFriction[ib];
      eB = mats.restitution[ib];
    } else {
      const c = this.colliders[-1 - ib];
      rotateBack(S, c.rotation, 0, P[3] - c.position[0], P[4] - c.position[1], P[5] - c.position[2]);
      qB = c.rotation;
      qo = 0;
      fB = c.friction;
      sB = c.staticFriction;
      eB = c.restitution;
    }
    this.rB[k3] = S[0];
    this.rB[k3 + 1] = S[1];
    this.rB[k3 + 2] = S[2];
    if (nf === NF_A) rotateBack(S, r.q, 4 * ia, P[6], P[7], P[8]);
    else if (nf === NF_B) rotateBack(S, qB, qo, P[6], P[7], P[8]);
    else {
      S[0] = P[6];
      S[1] = P[7];
      S[2] = P[8];
    }
    this.nL[k3] = S[0];
    this.nL[k3 + 1] = S[1];
    this.nL[k3 + 2] = S[2];
    this.nW[k3] = P[6];
    this.nW[k3 + 1] = P[7];
    this.nW[k3 + 2] = P[8];
    this.nf[k] = nf;
    this.radA[k] = radA;
    this.radB[k] = radB;
    // friction: the mean of the two; restitution: the larger
    this.muD[k] = 0.5 * (mats.friction[ia] + fB);
    this.muS[k] = 0.5 * (mats.staticFriction[ia] + sB);
    this.rest[k] = Math.max(mats.restitution[ia], eB);
    this.lamN[k] = this.lamT[k] = 0;
    this.first[k] = this.manifoldStart;
    this.lamNM[k] = 0;
    if (radA === 0 && radB === 0) this.history.match(ia, ib, this.rA, this.rB, k3, reach);
  }

  /** The contacts added from now on form one manifold (one patch of a pair: they share static friction's budget). */
  beginManifold(): void {
    this.manifoldStart = this.count;
  }

  /** The colliders' poses for this substep; multipliers to 0; the normal velocities before the projection. */
  beginStep(ctx: StepContext): void {
    const g = ctx.gravity;
    this.gravity = Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    this.cp.update(this.colliders, ctx.h);
    const W = this.W;
    const r = this.rigids;
    for (let k = 0; k < this.count; k++) {
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
      // ṽ_n matters only for restitution
      if (this.rest[k] === 0) continue;
      this.current(k);
      relativeVelocity(this.rigids, this.cp, this.a[k], this.b[k], this.W, S);
      this.vn0[k] = S[0] * W[6] + S[1] * W[7] + S[2] * W[8];
    }
  }

  /**
   * W ← the contact's world data at the current poses: the surface points
   * s₁ = p₁ − r₁ n and s₂ = p₂ + r₂ n, the normal, and the lever arms
   * s − x of both bodies.
   */
  private world(k: number): void {
    const r = this.rigids;
    const W = this.W;
    const ia = this.a[k],
      ib = this.b[k];
    const k3 = 3 * k;
    const X = r.x,
      Q = r.q;
    const xa = 3 * ia;
    rotateFrom(S, Q, 4 * ia, this.rA, k3);
    const pax = X[xa] + S[0],
      pay = X[xa + 1] + S[1],
      paz = X[xa + 2] + S[2];
    let XB: Float64Array, QB: Float64Array, xb: number, qb: number;
    if (ib >= 0) {
      XB = X;
      QB = Q;
      xb = 3 * ib;
      qb = 4 * ib;
    } else {
      XB = this.cp.x;
      QB = this.cp.q;
      xb = 3 * (-1 - ib);
      qb = 4 * (-1 - ib);
    }
    rotateFrom(S, QB, qb, this.rB, k3);
    const pbx = XB[xb] + S[0],
      pby = XB[xb + 1] + S[1],
      pbz = XB[xb + 2] + S[2];
    let nx: number, ny: number, nz: number;
    const nf = this.nf[k];
    if (nf === NF_CORES) {
      nx = pax - pbx;
      ny = pay - pby;
      nz = paz - pbz;
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (len > 1e-12) {
        nx /= len;
        ny /= len;
        nz /= len;
      } else {
        nx = this.nW[k3];
        ny = this.nW[k3 + 1];
        nz = this.nW[k3 + 2];
      }
    } else {
      if (nf === NF_A) rotateFrom(S, Q, 4 * ia, this.nL, k3);
      else rotateFrom(S, QB, qb, this.nL, k3);
      nx = S[0];
      ny = S[1];
      nz = S[2];
    }
    this.nW[k3] = nx;
    this.nW[k3 + 1] = ny;
    this.nW[k3 + 2] = nz;
    const ra = this.radA[k],
      rb = this.radB[k];
    W[0] = pax - ra * nx;
    W[1] = pay - ra * ny;
    W[2] = paz - ra * nz;
    W[3] = pbx + rb * nx;
    W[4] = pby + rb * ny;
    W[5] = pbz + rb * nz;
    W[6] = nx;
    W[7] = ny;
    W[8] = nz;
    W[9] = W[0] - X[xa];
    W[10] = W[1] - X[xa + 1];
    W[11] = W[2] - X[xa + 2];
    W[12] = W[3] - XB[xb];
    W[13] = W[4] - XB[xb + 1];
    W[14] = W[5] - XB[xb + 2];
  }

  /**
   * Generalized inverse mass of body i (−1 or not movable: 0) for the
   * direction D[0 … 2] at its lever W[9 + 3 side …] (eq. 2); keeps
   * u = Rᵀ (r × d) in U[3 side …] for move and impulse. (Vectors pass through
   * arrays: a call V8 does not inline boxes its double arguments.)
   */
  private inverseMass(i: number, side: number): void {
    if (i < 0 || this.materials.movable[i] === 0) {
      WM[side] = 0;
      return;
    }
    const r = this.rigids;
    const W = this.W;
    const o = 9 + 3 * side;
    const rx = W[o],
      ry = W[o + 1],
      rz = W[o + 2];
    const dx = D[0],
      dy = D[1],
      dz = D[2];
    rotateBack(S, r.q, 4 * i, ry * dz - rz * dy, rz * dx - rx * dz, rx * dy - ry * dx);
    const u = 3 * side;
    U[u] = S[0];
    U[u + 1] = S[1];
    U[u + 2] = S[2];
    const J = r.invInertia,
      i3 = 3 * i;
    WM[side] = r.invMass[i] + J[i3] * S[0] * S[0] + J[i3 + 1] * S[1] * S[1] + J[i3 + 2] * S[2] * S[2];
  }

  /**
   * Moves body i by the positional impulse sign·D[3]·D[0 … 2] at the lever whose u the last
   * inverseMass(i, side, …) kept (eqs. 6–9): x += dl d/m, and
   * q += ½ [I⁻¹ (r × p), 0] q, computed in the body frame as ½ q [dl I_b⁻¹ u, 0].
   */
  private move(i: number, side: number, sign: number): void {
    if (i < 0 || this.materials.movable[i] === 0) return;
    const dl = sign * D[3];
    const dx = D[0],
      dy = D[1],
      dz = D[2];
    const r = this.rigids;
    const i3 = 3 * i,
      i4 = 4 * i;
    const w = dl * r.invMass[i];
    r.x[i3] += w * dx;
    r.x[i3 + 1] += w * dy;
    r.x[i3 + 2] += w * dz;
    const J = r.invInertia;
    const o = 3 * side;
    const h = 0.5 * dl;
    const ax = h * J[i3] * U[o],
      ay = h * J[i3 + 1] * U[o + 1],
      az = h * J[i3 + 2] * U[o + 2];
    const Q = r.q;
    const qx = Q[i4],
      qy = Q[i4 + 1],
      qz = Q[i4 + 2],
      qw = Q[i4 + 3];
    const nx = qx + (qw * ax + qy * az - qz * ay),
      ny = qy + (qw * ay + qz * ax - qx * az),
      nz = qz + (qw * az + qx * ay - qy * ax),
      nw = qw - (qx * ax + qy * ay + qz * az);
    const inv = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
    Q[i4] = nx * inv;
    Q[i4 + 1] = ny * inv;
    Q[i4 + 2] = nz * inv;
    Q[i4 + 3] = nw * inv;
  }

  /**
   * W ← contact k at the current poses: the normal of a face contact as
   * taken at the substep's start (nW), that of two cores from the anchors.
   */
  private current(k: number): void {
    if (this.nf[k] === NF_CORES) {
      this.world(k);
      return;
    }
    const W = this.W,
      k3 = 3 * k;
    W[6] = this.nW[k3];
    W[7] = this.nW[k3 + 1];
    W[8] = this.nW[k3 + 2];
    this.anchors(k);
  }

  /** W ← the surface points and levers of contact k at the current poses, keeping the normal W[6 … 8]. */
  private anchors(k: number): void {
    const r = this.rigids;
    const W = this.W;
    const ia = this.a[k],
      ib = this.b[k];
    const k3 = 3 * k;
    rotateFrom(S, r.q, 4 * ia, this.rA, k3);
    const ra = this.radA[k],
      rb = this.radB[k];
    W[9] = S[0] - ra * W[6];
    W[10] = S[1] - ra * W[7];
    W[11] = S[2] - ra * W[8];
    const xa = 3 * ia;
    W[0] = r.x[xa] + W[9];
    W[1] = r.x[xa + 1] + W[10];
    W[2] = r.x[xa + 2] + W[11];
    let XB: Float64Array, xb: number;
    if (ib >= 0) {
      rotateFrom(S, r.q, 4 * ib, this.rB, k3);
      XB = r.x;
      xb = 3 * ib;
    } else {
      rotateFrom(S, this.cp.q, 4 * (-1 - ib), this.rB, k3);
      XB = this.cp.x;
      xb = 3 * (-1 - ib);
    }
    W[12] = S[0] + rb * W[6];
    W[13] = S[1] + rb * W[7];
    W[14] = S[2] + rb * W[8];
    W[3] = XB[xb] + W[12];
    W[4] = XB[xb + 1] + W[13];
    W[5] = XB[xb + 2] + W[14];
  }

  /** The contacts' position-level projection: non-penetration, then static friction (see the header). */
  project(ctx: StepContext): void {
    const W = this.W;
    const n = this.count;
    const rev = ctx.reverse;
    for (let j = 0; j < n; j++) {
      const k = rev ? n - 1 - j : j;
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
      this.inverseMass(ia, 0);
      this.inverseMass(ib, 1);
      const w = WM[0] + WM[1];
      if (w <= 0) continue;
      const dl = d / w;
      this.lamN[k] += dl;
      this.lamNM[this.first[k]] += dl;
      D[3] = dl;
      this.move(ia, 0, 1);
      this.move(ib, 1, -1);
      this.staticFriction(k);
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
  private staticFriction(k: number): void {
    const muS = this.muS[k];
    if (muS <= 0) return;
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
    const dn = dx * nx + dy * ny + dz * nz;
    dx -= dn * nx;
    dy -= dn * ny;
    dz -= dn * nz;
    const ct = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(ct > 1e-15)) return;
    const tx = dx / ct,
      ty = dy / ct,
      tz = dz / ct;
    D[0] = tx;
    D[1] = ty;
    D[2] = tz;
    this.inverseMass(ia, 0);
    this.inverseMass(ib, 1);
    const w = WM[0] + WM[1];
    if (w <= 0) return;
    const dl = ct / w;
    if (this.lamT[k] + dl >= muS * this.lamN[k]) {
      // sliding: body 2's anchor follows under body 1's
      if (!round) this.reanchor(k, dx, dy, dz);
      return;
    }
    this.lamT[k] += dl;
    D[3] = dl;
    this.move(ia, 0, -1);
    this.move(ib, 1, 1);
  }

  /** Moves body 2's anchor of contact k by the world vector d (W current). */
  private reanchor(k: number, dx: number, dy: number, dz: number): void {
    const ib = this.b[k];
    const W = this.W;
    let Q: Float64Array, qo: number;
    if (ib >= 0) {
      Q = this.rigids.q;
      qo = 4 * ib;
    } else {
      Q = this.cp.q;
      qo = 4 * (-1 - ib);
    }
    rotateBack(S, Q, qo, W[12] + dx, W[13] + dy, W[14] + dz);
    const k3 = 3 * k;
    this.rB[k3] = S[0];
    this.rB[k3 + 1] = S[1];
    this.rB[k3 + 2] = S[2];
  }

  /** The velocity pass: dynamic friction and restitution of the contacts that acted in this substep. */
  endStep(ctx: StepContext): void {
    const W = this.W;
    const h = ctx.h;
    const rest = 2 * this.gravity * h;
    const r = this.rigids;
    for (let k = 0; k < this.count; k++) {
      const lam = this.lamN[k];
      if (lam <= 0) continue;
      this.current(k);
      relativeVelocity(this.rigids, this.cp, this.a[k], this.b[k], this.W, S);
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
      this.inverseMass(ia, 0);
      this.inverseMass(ib, 1);
      let w = WM[0] + WM[1];
      if (!(w > 0)) continue;
      const pn = dn / w;
      if (pn > 0) this.lamNM[this.first[k]] += h * pn;
      if (dn !== 0) {
        D[3] = pn;
        this.impulse(r, ia, 0, 1);
        this.impulse(r, ib, 1, -1);
        relativeVelocity(this.rigids, this.cp, this.a[k], this.b[k], this.W, S);
      }
      // dynamic friction: the tangential velocity v_t is reduced by Δv = min(h μ_d |f_n|, |v_t|), read
      // as Coulomb's law for impulses: the friction impulse is at most μ_d times the normal impulse of
      // the substep, λ_n/h from the projection plus this pass's, less what static friction already
      // spent (λ_t/h) — the paper's h μ_d |f_n| with f_n = λ_n/h² is an impulse, not a velocity
      if (this.radA[k] === 0 && this.radB[k] === 0) continue; // polyhedra: per manifold, below
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
      this.inverseMass(ia, 0);
      this.inverseMass(ib, 1);
      w = WM[0] + WM[1];
      if (!(w > 0)) continue;
      D[3] = Math.min(budget, vt / w);
      this.impulse(r, ia, 0, 1);
      this.impulse(r, ib, 1, -1);
    }
    for (let k = 0; k < this.count; k++) {
      if (this.first[k] === k && this.radA[k] === 0 && this.radB[k] === 0) this.faceFriction(k, h);
    }
  }

  /**
   * Dynamic friction of the polyhedral manifold that starts at contact k,
   * once, at the centroid of its contacts that acted in this substep: the
   * tangential velocity v_t there is reduced by the impulse
   * min(|v_t| / (w₁ + w₂), μ_d Σ(λ_n + h p_n)/h − Σλ_t/h) (see endStep: the
   * paper's Δv = −v_t/|v_t| min(h μ_d |f_n|, |v_t|) with Coulomb's bound on
   * the manifold's impulses). Taken per corner in one Gauss–Seidel pass,
   * each corner would stop its own point by turning the body and leave much
   * of a face's sliding velocity.
   */
  private faceFriction(k: number, h: number): void {
    const W = this.W;
    const r = this.rigids;
    let cx = 0,
      cy = 0,
      cz = 0,
      n = 0,
      spent = 0;
    for (let c = k; c < this.count && this.first[c] === k; c++) {
      if (this.lamN[c] <= 0) continue;
      this.current(c);
      cx += 0.5 * (W[0] + W[3]);
      cy += 0.5 * (W[1] + W[4]);
      cz += 0.5 * (W[2] + W[5]);
      spent += this.lamT[c];
      n++;
    }
    const budget = (this.muD[k] * this.lamNM[k] - spent) / h;
    if (n === 0 || !(budget > 0)) return;
    const ia = this.a[k],
      ib = this.b[k];
    // the sliding velocity: body 1's centre against body 2's material point under the centroid (a
    // body's rocking is no slide)
    W[9] = W[10] = W[11] = 0;
    const XB = ib >= 0 ? r.x : this.cp.x,
      xb = ib >= 0 ? 3 * ib : 3 * (-1 - ib);
    W[12] = cx / n - XB[xb];
    W[13] = cy / n - XB[xb + 1];
    W[14] = cz / n - XB[xb + 2];
    relativeVelocity(this.rigids, this.cp, this.a[k], this.b[k], this.W, S);
    const nx = W[6],
      ny = W[7],
      nz = W[8];
    const vn = S[0] * nx + S[1] * ny + S[2] * nz;
    const tx = S[0] - vn * nx,
      ty = S[1] - vn * ny,
      tz = S[2] - vn * nz;
    const vt = Math.sqrt(tx * tx + ty * ty + tz * tz);
    if (!(vt > 0)) return;
    D[0] = -tx / vt;
    D[1] = -ty / vt;
    D[2] = -tz / vt;
    // the impulse that stops the face's sliding as a translation (linear inverse masses), through the
    // centres of mass: applied at the centroid, below a box's centre, it would rock the box, and the
    // rocking would show up as slip at the corners
    for (let d = 9; d < 15; d++) W[d] = 0;
    this.inverseMass(ia, 0);
    this.inverseMass(ib, 1);
    const mov = this.materials.movable;
    const w = (mov[ia] ? r.invMass[ia] : 0) + (ib >= 0 && mov[ib] ? r.invMass[ib] : 0);
    if (!(w > 0)) return;
    D[3] = Math.min(budget, vt / w);
    this.impulse(r, ia, 0, 1);
    this.impulse(r, ib, 1, -1);
  }

  /** v += p d/m, ω += I⁻¹ (r × p d) for a movable store body i, with u = Rᵀ (r × d) from inverseMass(i, side, …). */
  private impulse(r: RigidStore, i: number, side: number, sign: number): void {
    if (i < 0 || this.materials.movable[i] === 0) return;
    const p = sign * D[3];
    const dx = D[0],
      dy = D[1],
      dz = D[2];
    const i3 = 3 * i;
    const w = p * r.invMass[i];
    r.v[i3] += w * dx;
    r.v[i3 + 1] += w * dy;
    r.v[i3 + 2] += w * dz;
    const J = r.invInertia;
    const o = 3 * side;
    rotate(S, r.q, 4 * i, p * J[i3] * U[o], p * J[i3 + 1] * U[o + 1], p * J[i3 + 2] * U[o + 2]);
    r.omega[i3] += S[0];
    r.omega[i3 + 1] += S[1];
    r.omega[i3 + 2] += S[2];
  }

  /** The contacts of the last step (pairs and anchors): the next step's contacts match them (see clear). */
  saveState(): { a: Int32Array; b: Int32Array; rA: Float64Array; rB: Float64Array } {
    const n = this.count;
    return {
      a: this.a.slice(0, n),
      b: this.b.slice(0, n),
      rA: this.rA.slice(0, 3 * n),
      rB: this.rB.slice(0, 3 * n),
    };
  }

  loadState(state: unknown): void {
    const s = state as { a: Int32Array; b: Int32Array; rA: Float64Array; rB: Float64Array };
    const n = s.a.length;
    while (this.capacity < n) this.grow(2 * this.capacity);
    this.count = n;
    this.a.set(s.a);
    this.b.set(s.b);
    this.rA.set(s.rA);
    this.rB.set(s.rB);
  }

  readonly violationUnit = 'm';

  /** Largest penetration (m) over the contacts at the current poses. */
  maxViolation(): number {
    let m = 0;
    const W = this.W;
    for (let k = 0; k < this.count; k++) {
      this.world(k);
      const d = (W[3] - W[0]) * W[6] + (W[4] - W[1]) * W[7] + (W[5] - W[2]) * W[8];
      if (d > m) m = d;
    }
    return m;
  }
}
