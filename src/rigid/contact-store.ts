/**
 * The storage and kinematics of the rigid contacts (RigidContacts,
 * contact-set.ts, solves them): per contact point the two bodies, the
 * anchors in each body's frame, the normal in the frame of the body whose
 * face it is, the radii of round cores, the materials and the multipliers,
 * all in typed arrays; and the operations every pass needs at the current
 * poses — the contact's world data, the generalized inverse mass of a side
 * (Müller et al. 2020, eq. 2), the positional correction of a side (eqs.
 * 6–9) and the velocity impulse of a side.
 */
import type { RigidStore } from '../core/rigid-store.js';
import type { WorldCollider } from '../core/world-collider.js';
import { ColliderPoses } from './collider-poses.js';
import { ContactArrays, type ContactState } from './contact-arrays.generated.js';
import { ContactHistory } from './contact-history.js';
import { rotateBack, rotateFrom } from './rotate.js';
import { turn, turnBodyHalf } from './turn.generated.js';

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

/** Values per manifold in ContactStore.face. */
export const FACE = 6;

export const S = new Float64Array(3);
/** Rᵀ (r × d) of the two sides from the last inverseMass calls (3 each). */
export const U = new Float64Array(6);
/** The direction (0–2) and magnitude (3) of the correction being applied. */
export const D = new Float64Array(4);
/** The generalized inverse masses of the two sides from the last inverseMass calls. */
export const WM = new Float64Array(2);
/** The normal correction kept while static friction is computed: its direction and Δλ (DN), and I⁻¹ (r × n) of both sides (UN). */
export const DN = new Float64Array(4);
export const UN = new Float64Array(6);
/** c = r × d of the last leverCross call (the angular part of eq. 2's generalized inverse mass). */
const C = new Float64Array(3);

/**
 * The rigid contacts' store. Its per-contact arrays (a, b, rA, rB, nL, nf, radA, radB, muS, muD,
 * rest, lamN, lamT, vn0, nW, first, lamNM, rel), their grow and what a checkpoint holds of them
 * (ContactState, saveState: the pairs, anchors, normals, manifolds and the poses they were built at)
 * are ContactArrays', printed from one table by scripts/kernels/emit-layouts.ts; its per-contact reads of the two bodies at the
 * current poses (world, anchors) are ContactBlockSolves', printed by
 * scripts/kernels/emit-contact-blocks.ts with body 2 read per kind (a rigid body or a collider).
 */
export abstract class ContactStore extends ContactArrays {
  /** Colliders' poses in this substep and at its start, and their velocities. */
  protected readonly cp = new ColliderPoses();
  /** The last step's contacts (pairs and anchors) and a hash of their pairs. */
  protected readonly history = new ContactHistory();
  /**
   * At a manifold's first contact, during the velocity pass: the sum of its
   * acting contacts' midpoints (0–2), their count (3), the last one (4) and
   * the sum of their λ_t (5), in the contacts' order.
   */
  protected face = new Float64Array(0);
  protected manifoldStart = 0;
  /** The contact's world data: s₁ (0–2), s₂ (3–5), n (6–8), r₁ (9–11), r₂ (12–14). */
  protected readonly W = new Float64Array(15);
  /**
   * Per body, the world-frame inverse inertia R I_b⁻¹ Rᵀ (xx, yy, zz, xy, xz, yz) at the poses of the
   * velocity pass: worldInverseInertia, printed into ContactBlockSolves (contact-blocks.generated.ts)
   * by scripts/kernels/emit-contact-blocks.ts.
   */
  protected iw = new Float64Array(0);
  protected readonly rigids: RigidStore;
  protected readonly colliders: readonly WorldCollider[];
  protected readonly materials: ContactMaterials;

  constructor(rigids: RigidStore, colliders: readonly WorldCollider[], materials: ContactMaterials) {
    super();
    this.rigids = rigids;
    this.colliders = colliders;
    this.materials = materials;
    this.grow(64);
  }

  /** Grows the per-contact arrays (ContactArrays) and the per-manifold face sums to cap contacts. */
  protected override grow(cap: number): void {
    super.grow(cap);
    this.face = new Float64Array(FACE * cap);
  }

  /**
   * Starts a new step's contacts; the last step's are kept to match: a new
   * contact between polyhedra whose anchor on body 1 lies within `reach` of
   * an old one of the same pair takes the old anchors, so that static
   * friction holds the bodies where they stuck, across steps too.
   */
  clear(): void {
    this.history.save(this, this.count);
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
    let qB: Float64Array, qo: number;
    if (ib >= 0) {
      rotateBack(S, r.q, 4 * ib, P[3] - r.x[3 * ib], P[4] - r.x[3 * ib + 1], P[5] - r.x[3 * ib + 2]);
      qB = r.q;
      qo = 4 * ib;
    } else {
      const c = this.colliders[-1 - ib];
      rotateBack(S, c.rotation, 0, P[3] - c.position[0], P[4] - c.position[1], P[5] - c.position[2]);
      qB = c.rotation;
      qo = 0;
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
    this.startContact(k, ia, ib);
    if (radA === 0 && radB === 0) this.history.match(ia, ib, this.rA, this.rB, k3, reach);
    this.relativePose(ia, ib, 7 * k);
  }

  /**
   * Contact k of the manifold being built, of body ia and body (or collider, ib < 0) ib: its
   * materials (friction the mean of the two, restitution the larger) and its multipliers at 0.
   */
  private startContact(k: number, ia: number, ib: number): void {
    const mats = this.materials;
    const col = ib >= 0 ? null : this.colliders[-1 - ib];
    const fB = col ? col.friction : mats.friction[ib],
      sB = col ? col.staticFriction : mats.staticFriction[ib],
      eB = col ? col.restitution : mats.restitution[ib];
    this.muD[k] = 0.5 * (mats.friction[ia] + fB);
    this.muS[k] = 0.5 * (mats.staticFriction[ia] + sB);
    this.rest[k] = Math.max(mats.restitution[ia], eB);
    this.lamN[k] = this.lamT[k] = 0;
    this.first[k] = this.manifoldStart;
    this.lamNM[k] = 0;
  }

  /** rel[o …] ← the relative pose of body ia and body (or collider, ib < 0) ib now. */
  private relativePose(ia: number, ib: number, o: number): void {
    const rel = this.rel;
    const r = this.rigids;
    const a3 = 3 * ia;
    let XB: ArrayLike<number>, QB: ArrayLike<number>, b3: number, b4: number;
    if (ib >= 0) {
      XB = r.x;
      QB = r.q;
      b3 = 3 * ib;
      b4 = 4 * ib;
    } else {
      const c = this.colliders[-1 - ib];
      XB = c.position;
      QB = c.rotation;
      b3 = 0;
      b4 = 0;
    }
    rotateBack(S, r.q, 4 * ia, XB[b3] - r.x[a3], XB[b3 + 1] - r.x[a3 + 1], XB[b3 + 2] - r.x[a3 + 2]);
    rel[o] = S[0];
    rel[o + 1] = S[1];
    rel[o + 2] = S[2];
    // q₁⁻¹ q₂
    const a4 = 4 * ia;
    const ax = -r.q[a4],
      ay = -r.q[a4 + 1],
      az = -r.q[a4 + 2],
      aw = r.q[a4 + 3];
    const bx = QB[b4],
      by = QB[b4 + 1],
      bz = QB[b4 + 2],
      bw = QB[b4 + 3];
    rel[o + 3] = aw * bx + ax * bw + ay * bz - az * by;
    rel[o + 4] = aw * by - ax * bz + ay * bw + az * bx;
    rel[o + 5] = aw * bz + ax * by - ay * bx + az * bw;
    rel[o + 6] = aw * bw - ax * bx - ay * by - az * bz;
  }

  /**
   * Keeps the last step's manifold of bodies ia and ib (its polyhedral
   * contacts, with their anchors, normals and the relative pose they were
   * built at) instead of a new narrow phase, when the pair's relative pose
   * has moved less than `dist` (m, body 2's centre in body 1's frame) and
   * turned less than `angle` (rad) since then: the narrow phase would find
   * the same patch and, within the history's reach, the same anchors
   * (Müller et al. 2020, §3.5, detect collisions once per step; here a
   * pair's manifold also lasts across steps while the pair keeps its
   * relative pose). Returns whether it kept one.
   */
  keep(ia: number, ib: number, dist: number, angle: number): boolean {
    const h = this.history;
    const s = h.manifold(ia, ib);
    if (s < 0) return false;
    const e = h.end;
    const old = h.rel,
      o = 7 * s;
    for (let c = s; c < e; c++) if (h.nf[c] === NF_CORES) return false;
    // the relative pose now, in the slot of the next contact
    if (this.count + (e - s) > this.capacity) this.grow(2 * (this.count + (e - s)));
    const k0 = this.count;
    const p = 7 * k0;
    this.relativePose(ia, ib, p);
    const rel = this.rel;
    const dx = rel[p] - old[o],
      dy = rel[p + 1] - old[o + 1],
      dz = rel[p + 2] - old[o + 2];
    if (!(dx * dx + dy * dy + dz * dz < dist * dist)) return false;
    // the turn between the two relative orientations: |vec(q_old⁻¹ q_now)| = sin(θ/2)
    const ax = -old[o + 3],
      ay = -old[o + 4],
      az = -old[o + 5],
      aw = old[o + 6];
    const bx = rel[p + 3],
      by = rel[p + 4],
      bz = rel[p + 5],
      bw = rel[p + 6];
    const tx = aw * bx + ax * bw + ay * bz - az * by,
      ty = aw * by - ax * bz + ay * bw + az * bx,
      tz = aw * bz + ax * by - ay * bx + az * bw;
    const sh = Math.sin(0.5 * angle);
    if (!(tx * tx + ty * ty + tz * tz < sh * sh)) return false;
    const r = this.rigids;
    // the orientation body 2's frame's normals turn with: a body's, or a collider's
    const qB = ib >= 0 ? r.q : this.colliders[-1 - ib].rotation,
      qo = ib >= 0 ? 4 * ib : 0;
    this.beginManifold();
    for (let c = s; c < e; c++) {
      const k = this.count++;
      const k3 = 3 * k;
      this.a[k] = ia;
      this.b[k] = ib;
      h.anchors(c, this.rA, this.rB, k3);
      const nf = h.nf[c];
      this.nf[k] = nf;
      for (let d = 0; d < 3; d++) this.nL[k3 + d] = h.nL[3 * c + d];
      if (nf === NF_A) rotateFrom(S, r.q, 4 * ia, this.nL, k3);
      else rotateFrom(S, qB, qo, this.nL, k3);
      this.nW[k3] = S[0];
      this.nW[k3 + 1] = S[1];
      this.nW[k3 + 2] = S[2];
      this.radA[k] = 0;
      this.radB[k] = 0;
      this.startContact(k, ia, ib);
      // the pose the manifold was built at stays its reference
      for (let d = 0; d < 7; d++) rel[7 * k + d] = old[7 * c + d];
    }
    return true;
  }

  /** The contacts added from now on form one manifold (one patch of a pair: they share static friction's budget). */
  beginManifold(): void {
    this.manifoldStart = this.count;
  }

  /**
   * W ← the contact's world data at the current poses: the surface points
   * s₁ = p₁ − r₁ n and s₂ = p₂ + r₂ n, the normal, and the lever arms
   * s − x of both bodies. Printed into ContactBlockSolves by
   * scripts/kernels/emit-contact-blocks.ts (contactReads: body 2 read per kind by bodyB).
   */
  protected abstract world(k: number): void;

  /**
   * The part inverseMass and inverseMassW share (eq. 2): false, with
   * WM[side] = 0, when body i is −1 or not movable; else C ← c = r × d for
   * the lever W[9 + 3 side …] and the direction D[0 … 2].
   */
  private leverCross(i: number, side: number): boolean {
    if (i < 0 || this.materials.movable[i] === 0) {
      WM[side] = 0;
      return false;
    }
    const W = this.W;
    const o = 9 + 3 * side;
    const rx = W[o],
      ry = W[o + 1],
      rz = W[o + 2];
    const dx = D[0],
      dy = D[1],
      dz = D[2];
    C[0] = ry * dz - rz * dy;
    C[1] = rz * dx - rx * dz;
    C[2] = rx * dy - ry * dx;
    return true;
  }

  /**
   * Generalized inverse mass of body i (−1 or not movable: 0) for the
   * direction D[0 … 2] at its lever W[9 + 3 side …] (eq. 2); keeps
   * u = Rᵀ (r × d) in U[3 side …] for move and impulse. (Vectors pass through
   * arrays: a call V8 does not inline boxes its double arguments.)
   */
  protected inverseMass(i: number, side: number): void {
    if (!this.leverCross(i, side)) return;
    const r = this.rigids;
    rotateBack(S, r.q, 4 * i, C[0], C[1], C[2]);
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
  protected move(i: number, side: number, sign: number): void {
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
    turnBodyHalf(r.q, i4, ax, ay, az);
  }

  /**
   * W ← contact k at the current poses: the normal of a face contact as
   * taken at the substep's start (nW), that of two cores from the anchors.
   */
  protected current(k: number): void {
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

  /**
   * W ← the surface points and levers of contact k at the current poses, keeping the normal
   * W[6 … 8]. Printed with world by scripts/kernels/emit-contact-blocks.ts.
   */
  protected abstract anchors(k: number): void;

  /**
   * inverseMass for the velocity pass, with the world tensors of
   * worldInverseInertia (iw): WM[side] = 1/m + cᵀ I⁻¹ c with c = r × d, and
   * U[3 side …] ← I⁻¹ c (world) for impulseW.
   */
  protected inverseMassW(i: number, side: number): void {
    if (!this.leverCross(i, side)) return;
    const cx = C[0],
      cy = C[1],
      cz = C[2];
    const iw = this.iw,
      m = 6 * i;
    const ux = iw[m] * cx + iw[m + 3] * cy + iw[m + 4] * cz,
      uy = iw[m + 3] * cx + iw[m + 1] * cy + iw[m + 5] * cz,
      uz = iw[m + 4] * cx + iw[m + 5] * cy + iw[m + 2] * cz;
    const u = 3 * side;
    U[u] = ux;
    U[u + 1] = uy;
    U[u + 2] = uz;
    WM[side] = this.rigids.invMass[i] + cx * ux + cy * uy + cz * uz;
  }

  /**
   * The pair's generalized inverse mass along D[0 … 2], w₁ + w₂ (eq. 2): inverseMassW of body 1
   * (side 0) and body 2 (side 1), which also leaves WM and U for impulseW and moveW.
   */
  protected pairInverseMassW(ia: number, ib: number): number {
    this.inverseMassW(ia, 0);
    this.inverseMassW(ib, 1);
    return WM[0] + WM[1];
  }

  /** v += p d/m, ω += p I⁻¹ (r × d) for a movable store body i (p = sign D[3], d = D[0 … 2]), with I⁻¹ (r × d) from inverseMassW(i, side). */
  protected impulseW(i: number, side: number, sign: number): void {
    if (i < 0 || this.materials.movable[i] === 0) return;
    const r = this.rigids;
    const p = sign * D[3];
    const i3 = 3 * i;
    const w = p * r.invMass[i];
    r.v[i3] += w * D[0];
    r.v[i3 + 1] += w * D[1];
    r.v[i3 + 2] += w * D[2];
    const o = 3 * side;
    r.omega[i3] += p * U[o];
    r.omega[i3 + 1] += p * U[o + 1];
    r.omega[i3 + 2] += p * U[o + 2];
  }

  /**
   * Moves body i by the positional impulse p = sign·D[3]·D[0 … 2] at the lever whose I⁻¹ (r × d)
   * the last inverseMassW(i, side) kept (eqs. 6–9): x += p/m, q += ½ [I⁻¹ (r × p), 0] q, normalised.
   */
  protected moveW(i: number, side: number, sign: number): void {
    if (i < 0 || this.materials.movable[i] === 0) return;
    const dl = sign * D[3];
    const r = this.rigids;
    const i3 = 3 * i,
      i4 = 4 * i;
    const w = dl * r.invMass[i];
    r.x[i3] += w * D[0];
    r.x[i3 + 1] += w * D[1];
    r.x[i3 + 2] += w * D[2];
    const o = 3 * side;
    turn(r.q, i4, dl * U[o], dl * U[o + 1], dl * U[o + 2]);
  }

  /**
   * moveW for the normal correction (DN, UN) and the static friction one (direction D[0 … 2], Δλ_t = dt,
   * U) of one contact together, sign +1 for body 1 and −1 for body 2: body 1 moves by Δλ_n n − Δλ_t t at
   * its lever, body 2 by the opposite, with one turn and normalisation (eqs. 6–9 for the sum of the two
   * positional impulses, which differs from applying them in turn at second order in the turns).
   */
  protected moveBoth(i: number, side: number, sign: number, dt: number): void {
    if (i < 0 || this.materials.movable[i] === 0) return;
    const r = this.rigids;
    const dn = sign * DN[3],
      ts = -sign * dt;
    const i3 = 3 * i,
      i4 = 4 * i;
    const m = r.invMass[i];
    r.x[i3] += m * (dn * DN[0] + ts * D[0]);
    r.x[i3 + 1] += m * (dn * DN[1] + ts * D[1]);
    r.x[i3 + 2] += m * (dn * DN[2] + ts * D[2]);
    const o = 3 * side;
    turn(r.q, i4, dn * UN[o] + ts * U[o], dn * UN[o + 1] + ts * U[o + 1], dn * UN[o + 2] + ts * U[o + 2]);
  }

  /**
   * The contacts of the last step (saveState, ContactArrays): the next step's contacts match them,
   * or keep them (see clear and keep).
   */
  loadState(state: unknown): void {
    const s = state as ContactState;
    const n = s.a.length;
    while (this.capacity < n) this.grow(2 * this.capacity);
    this.count = n;
    if (!this.loadSaved(s)) {
      // a checkpoint from before manifolds were kept: every pair gets a new narrow phase
      this.nf.fill(NF_CORES, 0, n);
      this.first.fill(0, 0, n);
      this.rel.fill(Number.NaN, 0, 7 * n);
    }
  }

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
