/**
 * Joints between rigid bodies (or a body and the world) as XPBD
 * constraints, after Müller et al. 2020, "Detailed Rigid Body Simulation with
 * Extended Position Based Dynamics", "Joints": every joint is a set of
 * positional corrections at its two anchors (eqs. 2–9) and angular
 * corrections of its two frames (w = nᵀ I⁻¹ n), each with a compliance α
 * (α̃ = α/h²) and a multiplier λ that restarts every substep:
 *
 * - fixed: the anchors meet, and the frames align: Δφ = 2 vec(q_a q_b⁻¹);
 * - ball (spherical): the anchors meet; optional swing limit (the angle of
 *   the twist axes a₁, a₂ about n = a₁ × a₂/|…| stays ≤ swing) and twist
 *   limits (about n = (a₁ + a₂)/|…|, the angle between the frames' second
 *   axes projected on the plane ⟂ n), by the paper's limitAngle (Algorithm 3);
 * - hinge: the anchors meet, the axes align (Δφ = a₂ × a₁), optional angle
 *   limits about the axis (limitAngle), and a motor: a target angle — fixed,
 *   or advancing by h·speed every substep for a velocity motor — driven with
 *   its own compliance, its torque bounded by |λ|/h² ≤ maxForce;
 * - prismatic: the frames align, the anchors meet off the axis, and along
 *   the axis the offset stays within the limits (the paper's positional
 *   limits, eq. 25) or is driven by a motor;
 * - distance: the anchors keep a length, or stay within [min, max].
 *
 * Data are typed arrays, one entry per joint; the loop allocates nothing.
 * The angle of a limit is φ = atan2((n₁ × n₂)·n, n₁·n₂), which is the
 * paper's arcsin with its quadrant fix-ups in one call.
 */

import { unionRoots } from '../collision/union-find.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { RigidStore } from '../core/rigid-store.js';
import { quatMultiply } from '../math/quat.js';
import { JointArrays, SLOTS } from './joint-arrays.generated.js';
import { rotate, rotateBack } from './rotate.js';
import { angularInverseMass, applyAngularImpulse, positionalInverseMass } from './xpbd.js';

export const FIXED = 0;
export const BALL = 1;
export const HINGE = 2;
export const PRISMATIC = 3;
export const DISTANCE = 4;
export const JOINT_TYPES = ['fixed', 'ball', 'hinge', 'prismatic', 'distance'] as const;
export type JointType = (typeof JOINT_TYPES)[number];

/** Motor modes. */
export const MOTOR_OFF = 0;
export const MOTOR_POSITION = 1;
export const MOTOR_VELOCITY = 2;

/** What the joints need of the rigid-body system. */
export interface JointHost {
  readonly movable: Uint8Array;
  wake(i: number): void;
}

const S = new Float64Array(3);
// frames: A's axes (0–8), B's axes (9–17), anchors pa (18–20), pb (21–23); an angle's axis and vectors (24–32, limitAngle)
const F = new Float64Array(33);
/** Where limitAngle's operands that are not frame axes go: the axis n, and the two vectors a, b. */
const N_AT = 24,
  A_AT = 27,
  B_AT = 30;

const QW = new Float64Array(8); // world frames of A (0–3) and B (4–7)

/**
 * The rigid joints. Their per-joint arrays (type, a, b, on, pA, pB, qA, qB, the compliances, limits,
 * motor, collide, lambda: SLOTS per joint) and their grow are JointArrays', printed from one table
 * by scripts/kernels/emit-layouts.ts.
 */
export class RigidJoints extends JointArrays implements ConstraintSet {
  readonly kind = 'rigid-joint';
  readonly order = 50;
  enabled = true;
  private readonly rigids: RigidStore;
  private readonly host: JointHost;
  private alphaScale = 0;
  private h = 0;
  /** Pairs of bodies a joint keeps from colliding: key i·2²⁶ + j (i < j) → joints. */
  private readonly excluded = new Map<number, number>();

  constructor(rigids: RigidStore, host: JointHost) {
    super();
    this.rigids = rigids;
    this.host = host;
    this.grow(8);
  }

  /**
   * Adds a joint of `type` between store bodies a and b (−1: the world) at
   * the world point `anchor` with the joint frame `frame` (a world
   * quaternion whose x axis is the joint's axis), at the bodies' current
   * poses. Returns its index; limits and motor are set afterwards.
   */
  add(
    type: number,
    a: number,
    b: number,
    anchor: ArrayLike<number>,
    frame: ArrayLike<number>,
    anchorB?: ArrayLike<number>,
  ): number {
    if (this.count === this.capacity) this.grow(2 * this.capacity);
    const j = this.count++;
    const r = this.rigids;
    this.type[j] = type;
    this.a[j] = a;
    this.b[j] = b;
    this.on[j] = 1;
    const pb = anchorB ?? anchor;
    const fr = Float64Array.from(frame);
    const cq = new Float64Array(4);
    // anchors and frames in the bodies' frames: Rᵀ (p − x), q_body⁻¹ ⊗ frame
    rotateBack(S, r.q, 4 * a, anchor[0] - r.x[3 * a], anchor[1] - r.x[3 * a + 1], anchor[2] - r.x[3 * a + 2]);
    this.pA.set(S, 3 * j);
    cq.set([-r.q[4 * a], -r.q[4 * a + 1], -r.q[4 * a + 2], r.q[4 * a + 3]]);
    quatMultiply(this.qA, 4 * j, cq, 0, fr, 0);
    if (b >= 0) {
      rotateBack(S, r.q, 4 * b, pb[0] - r.x[3 * b], pb[1] - r.x[3 * b + 1], pb[2] - r.x[3 * b + 2]);
      this.pB.set(S, 3 * j);
      cq.set([-r.q[4 * b], -r.q[4 * b + 1], -r.q[4 * b + 2], r.q[4 * b + 3]]);
      quatMultiply(this.qB, 4 * j, cq, 0, fr, 0);
    } else {
      this.pB.set([pb[0], pb[1], pb[2]], 3 * j);
      this.qB.set(fr, 4 * j);
    }
    this.compliance[j] = this.angularCompliance[j] = 0;
    this.hasLimit[j] = this.hasLimit2[j] = 0;
    this.motor[j] = MOTOR_OFF;
    this.maxForce[j] = Infinity;
    this.collide[j] = 1;
    this.setCollide(j, false);
    return j;
  }

  /** Lets the bodies of joint j collide with each other, or not (the default). */
  setCollide(j: number, collide: boolean): void {
    const a = this.a[j],
      b = this.b[j];
    if (b < 0) return;
    const key = a < b ? a * 67108864 + b : b * 67108864 + a;
    const was = this.collide[j] === 0 && this.on[j] === 1;
    this.collide[j] = collide ? 1 : 0;
    const now = !collide && this.on[j] === 1;
    if (was === now && this.excluded.has(key) === now) return;
    const c = (this.excluded.get(key) ?? 0) + (now ? 1 : 0) - (was ? 1 : 0);
    if (c > 0) this.excluded.set(key, c);
    else this.excluded.delete(key);
  }

  /** Switches joint j off (removal) or on. */
  setEnabled(j: number, on: boolean): void {
    if ((this.on[j] === 1) === on) return;
    const collide = this.collide[j] === 1;
    this.setCollide(j, true);
    this.on[j] = on ? 1 : 0;
    this.setCollide(j, collide);
  }

  /** True when a joint keeps bodies i and j from colliding. */
  excludes(i: number, j: number): boolean {
    if (this.excluded.size === 0) return false;
    return this.excluded.has(i < j ? i * 67108864 + j : j * 67108864 + i);
  }

  /** Joins the groups of bodies that joints connect (for sleeping). */
  unite(parent: Int32Array): void {
    for (let j = 0; j < this.count; j++) {
      if (
        this.on[j] &&
        this.b[j] >= 0 &&
        this.rigids.invMass[this.a[j]] !== 0 &&
        this.rigids.invMass[this.b[j]] !== 0
      ) {
        unionRoots(parent, this.a[j], this.b[j]);
      }
    }
  }

  beginStep(ctx: StepContext): void {
    this.lambda.fill(0, 0, SLOTS * this.count);
    this.h = ctx.h;
    this.alphaScale = 1 / (ctx.h * ctx.h);
    for (let j = 0; j < this.count; j++) {
      if (this.motor[j] !== MOTOR_VELOCITY) continue;
      this.target[j] += ctx.h * this.speed[j];
      // a motor driving into a limit waits there: the target stays within the limits
      if (this.hasLimit[j]) this.target[j] = Math.max(this.lo[j], Math.min(this.hi[j], this.target[j]));
    }
  }

  /** F ← the world frames' axes of joint j (A: 0–8, B: 9–17, columns x, y, z) and anchors (18–23); QW ← the frames. */
  private frames(j: number): void {
    const r = this.rigids;
    const a = this.a[j],
      b = this.b[j];
    quatMultiply(QW, 0, r.q, 4 * a, this.qA, 4 * j);
    rotate(S, r.q, 4 * a, this.pA[3 * j], this.pA[3 * j + 1], this.pA[3 * j + 2]);
    F[18] = r.x[3 * a] + S[0];
    F[19] = r.x[3 * a + 1] + S[1];
    F[20] = r.x[3 * a + 2] + S[2];
    if (b >= 0) {
      quatMultiply(QW, 4, r.q, 4 * b, this.qB, 4 * j);
      rotate(S, r.q, 4 * b, this.pB[3 * j], this.pB[3 * j + 1], this.pB[3 * j + 2]);
      F[21] = r.x[3 * b] + S[0];
      F[22] = r.x[3 * b + 1] + S[1];
      F[23] = r.x[3 * b + 2] + S[2];
    } else {
      for (let k = 0; k < 4; k++) QW[4 + k] = this.qB[4 * j + k];
      F[21] = this.pB[3 * j];
      F[22] = this.pB[3 * j + 1];
      F[23] = this.pB[3 * j + 2];
    }
    for (let s = 0; s < 2; s++) {
      for (let c = 0; c < 3; c++) {
        rotate(S, QW, 4 * s, c === 0 ? 1 : 0, c === 1 ? 1 : 0, c === 2 ? 1 : 0);
        F[9 * s + 3 * c] = S[0];
        F[9 * s + 3 * c + 1] = S[1];
        F[9 * s + 3 * c + 2] = S[2];
      }
    }
  }

  private movable(i: number): boolean {
    return i >= 0 && this.host.movable[i] === 1;
  }

  /** Turns body i by the world rotation vector I⁻¹ τ (τ world), sign ±1; moves x by sign·p/m when positional. */
  private apply(
    i: number,
    px: number,
    py: number,
    pz: number,
    tx: number,
    ty: number,
    tz: number,
    sign: number,
    positional: boolean,
  ): void {
    if (!this.movable(i)) return;
    const r = this.rigids;
    const i3 = 3 * i;
    if (positional) {
      const m = sign * r.invMass[i];
      r.x[i3] += m * px;
      r.x[i3 + 1] += m * py;
      r.x[i3 + 2] += m * pz;
    }
    applyAngularImpulse(r, i, tx, ty, tz, sign);
  }

  /**
   * The correction of joint j that closes the vector (dx, dy, dz), with compliance α, multiplier
   * slot s and |λ| ≤ maxLambda (eq. 4), along n = d/|d|; returns Δλ. `positional` (eqs. 2–9):
   * B's anchor moves by +Δλ n and A's by −Δλ n, d running from B's anchor toward where it should
   * be; otherwise (angular) B turns by +Δλ about n and A by −Δλ, d a rotation vector.
   */
  private correct(
    j: number,
    dx: number,
    dy: number,
    dz: number,
    alpha: number,
    s: number,
    maxLambda: number,
    positional: boolean,
  ): number {
    const c = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(c > 1e-14)) return 0;
    const nx = dx / c,
      ny = dy / c,
      nz = dz / c;
    const a = this.a[j],
      b = this.b[j];
    const r = this.rigids;
    // the levers from the centres of mass to the anchors (positional only)
    const rax = positional ? F[18] - r.x[3 * a] : 0,
      ray = positional ? F[19] - r.x[3 * a + 1] : 0,
      raz = positional ? F[20] - r.x[3 * a + 2] : 0;
    let rbx = 0,
      rby = 0,
      rbz = 0;
    if (positional && b >= 0) {
      rbx = F[21] - r.x[3 * b];
      rby = F[22] - r.x[3 * b + 1];
      rbz = F[23] - r.x[3 * b + 2];
    }
    // generalized inverse masses (eq. 2); 0 for a body that does not move
    const wsum = positional
      ? (this.movable(a) ? positionalInverseMass(r, a, rax, ray, raz, nx, ny, nz) : 0) +
        (this.movable(b) ? positionalInverseMass(r, b, rbx, rby, rbz, nx, ny, nz) : 0)
      : (this.movable(a) ? angularInverseMass(r, a, nx, ny, nz) : 0) +
        (this.movable(b) ? angularInverseMass(r, b, nx, ny, nz) : 0);
    const at = alpha * this.alphaScale;
    if (!(wsum + at > 0)) return 0;
    const dl = this.multiplierStep(j, s, c, at, wsum + at, maxLambda);
    if (positional) {
      const px = dl * nx,
        py = dl * ny,
        pz = dl * nz;
      this.apply(a, px, py, pz, ray * pz - raz * py, raz * px - rax * pz, rax * py - ray * px, -1, true);
      this.apply(b, px, py, pz, rby * pz - rbz * py, rbz * px - rbx * pz, rbx * py - rby * px, 1, true);
    } else {
      this.apply(a, 0, 0, 0, dl * nx, dl * ny, dl * nz, -1, false);
      this.apply(b, 0, 0, 0, dl * nx, dl * ny, dl * nz, 1, false);
    }
    return dl;
  }

  /**
   * Δλ = (c − α̃ λ)/(w + α̃) of multiplier slot s of joint j (eq. 4; den = w + α̃ > 0), clamped so that
   * |λ + Δλ| ≤ cap; adds it to λ and returns it.
   */
  private multiplierStep(j: number, s: number, c: number, at: number, den: number, cap: number): number {
    const k = SLOTS * j + s;
    const lam = this.lambda[k];
    let dl = (c - at * lam) / den;
    if (cap < Infinity) dl = Math.max(-cap, Math.min(cap, lam + dl)) - lam;
    this.lambda[k] = lam + dl;
    return dl;
  }

  /**
   * limitAngle (Algorithm 3): the angle φ from n₁ to n₂ about n (angleAbout; n, n₁, n₂ at
   * F[n …], F[a …], F[b …]) kept within [lo, hi] by turning B about n; `target`: drive φ to
   * lo (= hi) with compliance α and the multiplier bound.
   */
  private limitAngle(
    j: number,
    n: number,
    a: number,
    b: number,
    lo: number,
    hi: number,
    alpha: number,
    s: number,
    maxLambda: number,
  ): void {
    const phi = angleAbout(n, a, b);
    let d = 0;
    if (phi < lo) d = lo - phi;
    else if (phi > hi) d = hi - phi;
    else return;
    this.correct(j, d * F[n], d * F[n + 1], d * F[n + 2], alpha, s, maxLambda, false);
  }

  /** limitAngle about A's hinge axis (frames: F[0 …]) from A's y axis (F[3 …]) to B's (F[12 …]). */
  private hingeLimit(j: number, lo: number, hi: number, alpha: number, s: number, maxLambda: number): void {
    this.limitAngle(j, 0, 3, 12, lo, hi, alpha, s, maxLambda);
  }

  /** The hinge angle (rad) or the prismatic offset (m) or the distance (m) of joint j at the current poses. */
  coordinate(j: number): number {
    this.frames(j);
    const t = this.type[j];
    if (t === HINGE) {
      // angle from A's y axis to B's y axis about A's x axis
      return angleAbout(0, 3, 12);
    }
    const dx = F[21] - F[18],
      dy = F[22] - F[19],
      dz = F[23] - F[20];
    if (t === PRISMATIC) return dx * F[0] + dy * F[1] + dz * F[2];
    return Math.sqrt(dx * dx + dy * dy + dz * dz);
  }

  project(ctx: StepContext): void {
    const n = this.count;
    for (let i = 0; i < n; i++) {
      const j = ctx.reverse ? n - 1 - i : i;
      if (this.on[j] === 0) continue;
      if (!this.movable(this.a[j]) && !this.movable(this.b[j])) continue;
      this.solve(j);
    }
  }

  private solve(j: number): void {
    const t = this.type[j];
    const alpha = this.compliance[j],
      beta = this.angularCompliance[j];
    const h2 = this.h * this.h;
    this.frames(j);
    if (t === FIXED || t === PRISMATIC) {
      // align the frames: Δφ = 2 vec(q_a q_b⁻¹), turning B toward A
      const ax = QW[0],
        ay = QW[1],
        az = QW[2],
        aw = QW[3];
      const bx = -QW[4],
        by = -QW[5],
        bz = -QW[6],
        bw = QW[7];
      let dx = aw * bx + ax * bw + ay * bz - az * by,
        dy = aw * by - ax * bz + ay * bw + az * bx,
        dz = aw * bz + ax * by - ay * bx + az * bw;
      const dw = aw * bw - ax * bx - ay * by - az * bz;
      if (dw < 0) {
        dx = -dx;
        dy = -dy;
        dz = -dz;
      }
      this.correct(j, 2 * dx, 2 * dy, 2 * dz, beta, 1, Infinity, false);
      this.frames(j);
    }
    if (t === HINGE) {
      // align the axes: turn B by a₂ × a₁
      axisCross(9, 0);
      this.correct(j, S[0], S[1], S[2], beta, 1, Infinity, false);
      this.frames(j);
      if (this.hasLimit[j]) {
        this.hingeLimit(j, this.lo[j], this.hi[j], 0, 2, Infinity);
        this.frames(j);
      }
      if (this.motor[j] !== MOTOR_OFF) {
        const tg = this.target[j];
        const m = this.maxForce[j] * h2;
        // the target angle, wrapped to the nearest turn of the current angle
        const phi = this.coordinate(j);
        let goal = phi + (((((tg - phi) % (2 * Math.PI)) + 3 * Math.PI) % (2 * Math.PI)) - Math.PI);
        // the limits win over the motor (applied after them, it would drive through them)
        if (this.hasLimit[j]) goal = Math.max(this.lo[j], Math.min(this.hi[j], goal));
        this.hingeLimit(j, goal, goal, this.motorCompliance[j], 4, m);
        this.frames(j);
      }
    }
    if (t === BALL) {
      if (this.hasLimit[j]) {
        // swing: the angle between the twist axes about their common normal
        axisCross(0, 9);
        let nx = S[0],
          ny = S[1],
          nz = S[2];
        const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
        if (len > 1e-12) {
          nx /= len;
          ny /= len;
          nz /= len;
          F[N_AT] = nx;
          F[N_AT + 1] = ny;
          F[N_AT + 2] = nz;
          this.limitAngle(j, N_AT, 0, 9, -this.hi[j], this.hi[j], 0, 2, Infinity);
          this.frames(j);
        }
      }
      if (this.hasLimit2[j]) {
        // twist: about the mean twist axis, the second axes projected on its normal plane
        let nx = F[0] + F[9],
          ny = F[1] + F[10],
          nz = F[2] + F[11];
        const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
        if (len > 1e-12) {
          nx /= len;
          ny /= len;
          nz /= len;
          const da = F[3] * nx + F[4] * ny + F[5] * nz,
            db = F[12] * nx + F[13] * ny + F[14] * nz;
          F[A_AT] = F[3] - da * nx;
          F[A_AT + 1] = F[4] - da * ny;
          F[A_AT + 2] = F[5] - da * nz;
          F[B_AT] = F[12] - db * nx;
          F[B_AT + 1] = F[13] - db * ny;
          F[B_AT + 2] = F[14] - db * nz;
          F[N_AT] = nx;
          F[N_AT + 1] = ny;
          F[N_AT + 2] = nz;
          this.limitAngle(j, N_AT, A_AT, B_AT, this.lo2[j], this.hi2[j], 0, 3, Infinity);
          this.frames(j);
        }
      }
    }
    // positions
    const dx = F[18] - F[21],
      dy = F[19] - F[22],
      dz = F[20] - F[23];
    if (t === DISTANCE) {
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (d < 1e-14) return;
      const goal = Math.max(this.lo[j], Math.min(this.hi[j], d));
      if (goal === d) return;
      // B's anchor toward A's: (d − goal) along (pa − pb)/d
      const f = (d - goal) / d;
      this.correct(j, f * dx, f * dy, f * dz, alpha, 0, Infinity, true);
      return;
    }
    if (t === PRISMATIC) {
      // off the axis: closed; along it: within the limits, or driven by the motor
      const ux = F[0],
        uy = F[1],
        uz = F[2];
      const along = -(dx * ux + dy * uy + dz * uz);
      let goal = along;
      if (this.hasLimit[j]) goal = Math.max(this.lo[j], Math.min(this.hi[j], goal));
      this.correct(j, dx + goal * ux, dy + goal * uy, dz + goal * uz, alpha, 0, Infinity, true);
      if (this.motor[j] !== MOTOR_OFF) {
        this.frames(j);
        const now = -((F[18] - F[21]) * ux + (F[19] - F[22]) * uy + (F[20] - F[23]) * uz);
        let tg = this.target[j];
        if (this.hasLimit[j]) tg = Math.max(this.lo[j], Math.min(this.hi[j], tg));
        const e = tg - now;
        this.correct(j, e * ux, e * uy, e * uz, this.motorCompliance[j], 4, this.maxForce[j] * h2, true);
      }
      return;
    }
    this.correct(j, dx, dy, dz, alpha, 0, Infinity, true);
  }

  readonly violationUnit = 'm';

  /** Largest anchor separation (m) over the joints that hold their anchors together. */
  maxViolation(): number {
    let m = 0;
    for (let j = 0; j < this.count; j++) m = Math.max(m, this.separation(j));
    return m;
  }

  /** The anchor separation of joint j (m); 0 for joints that let the anchors apart (distance, prismatic) or are off. */
  separation(j: number): number {
    if (!this.on[j] || this.type[j] === DISTANCE || this.type[j] === PRISMATIC) return 0;
    this.frames(j);
    return Math.hypot(F[18] - F[21], F[19] - F[22], F[20] - F[23]);
  }

  /** Validates a joint's numbers (PbdError naming the field). */
  static check(value: number, where: string, what: string, ok: boolean): void {
    if (!ok || Number.isNaN(value)) throw new PbdError('rigid/invalid-joint', where, `${what}, got ${value}`);
  }
}

/** S ← F[u …] × F[v …], the cross product of two of the frames' axes (the twist axes: A's F[0 …], B's F[9 …]). */
function axisCross(u: number, v: number): void {
  S[0] = F[u + 1] * F[v + 2] - F[u + 2] * F[v + 1];
  S[1] = F[u + 2] * F[v] - F[u] * F[v + 2];
  S[2] = F[u] * F[v + 1] - F[u + 1] * F[v];
}

/** The angle (rad) that turns F[a …] into F[b …] about the unit axis F[n …]: atan2((a × b)·n, a·b). */
function angleAbout(n: number, a: number, b: number): number {
  axisCross(a, b);
  return Math.atan2(
    S[0] * F[n] + S[1] * F[n + 1] + S[2] * F[n + 2],
    F[a] * F[b] + F[a + 1] * F[b + 1] + F[a + 2] * F[b + 2],
  );
}
