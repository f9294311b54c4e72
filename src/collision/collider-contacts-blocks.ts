/**
 * The projection of the collider contacts (003 §3.4, with the position-level
 * Coulomb friction of ColliderContacts's class comment) as a loop over a
 * range of contacts that follow no rigid body, and its data-parallel task on
 * a threaded world's worker pool (docs/solver.md "Threads").
 *
 * Such a contact moves its own particle only and keeps its state per contact
 * (λ_n, λ_t, slid) and per particle (the anchor's sums and frame), so
 * contacts of different particles are independent, and a particle's own
 * contacts must only keep their order. The contact list holds each
 * collider's contacts in ascending particle order (the generation loops run
 * over the particles), so it is a few ascending runs ("segments"); a block
 * of particles [P_b, P_b+1) owns one contiguous part of each segment. A block
 * projects its parts segment after segment: every particle sees its contacts
 * in list order, and the bits are those of one walk over the list, whatever
 * thread runs the block. Blocks are fixed ranges of particles (a function of
 * the particle count). A list with a contact on a rigid body, or with more
 * segments than MAX_SEGMENTS, is projected on the calling thread.
 */
import { particleBlocks } from '../core/particle-tasks.js';
import type { SharedTask, TaskRunner } from '../core/step-context.js';
import type { WorldCollider } from '../core/world-collider.js';
import { grownArray } from '../math/arrays.js';
import { quatRotateInverse } from '../math/quat.js';

/**
 * Numbers per collider of the pose block: μ, μ_s, position (3), rotation (4); for the velocity pass
 * (plainVelocities) the restitution, linear velocity (3) and angular velocity (3).
 */
export const POSE_STRIDE = 16;
/** Segments of the list at most for the pool. */
const MAX_SEGMENTS = 16;
/** ContactBlocks.run's passes: the projection, the opening projection of a backward half, the velocity pass. */
export const PROJECT = 0,
  OPENING = 1,
  VELOCITIES = 2;
/** Fewer contacts than this are projected on the calling thread. */
const POOL_MIN_CONTACTS = 4096;

/** What the projection reads and writes of a contact list (ColliderContacts's fields, or the task's shared copies). */
export interface PlainContacts {
  particle: Int32Array;
  collider: Int32Array;
  q: Float64Array;
  n: Float64Array;
  lambdaN: Float64Array;
  lambdaT: Float64Array;
  slid: Uint8Array;
  /** The tangential motion the prediction brings over the substep (ColliderContacts.incoming). */
  incoming: Float64Array;
  anchorAt: Float64Array;
  anchorLocal: Float64Array;
  stickN: Float64Array;
  stickT: Float64Array;
}

/** The colliders' friction coefficients and poses into `poses` (POSE_STRIDE each; grown as needed). */
export function writePoses(cols: readonly WorldCollider[], poses: Float64Array): Float64Array {
  if (poses.length < POSE_STRIDE * cols.length) {
    const shared = typeof SharedArrayBuffer !== 'undefined' && poses.buffer instanceof SharedArrayBuffer;
    poses = grownArray(poses, POSE_STRIDE * Math.max(4, 2 * cols.length), 0, shared);
  }
  for (let c = 0; c < cols.length; c++) {
    const col = cols[c],
      o = POSE_STRIDE * c;
    poses[o] = col.friction;
    poses[o + 1] = col.staticFriction;
    for (let j = 0; j < 3; j++) poses[o + 2 + j] = col.position[j];
    for (let j = 0; j < 4; j++) poses[o + 5 + j] = col.rotation[j];
    poses[o + 9] = col.restitution;
    for (let j = 0; j < 3; j++) poses[o + 10 + j] = col.linearVelocity[j];
    for (let j = 0; j < 3; j++) poses[o + 13 + j] = col.angularVelocity[j];
  }
  return poses;
}

/** What the velocity pass reads of a contact list besides PlainContacts. */
export interface VelocityContacts extends PlainContacts {
  vn0: Float64Array;
  deep: Uint8Array;
}

/**
 * The velocity pass (003 §3.4: restitution) of contacts [k0, k1), none of which follows a rigid
 * body, with the colliders' numbers from `poses` (writePoses): the normal velocity relative to the
 * collider becomes the arrival speed reflected by the restitution coefficient (arrivals slower than
 * `rest` m/s rest), whatever the push-out added; a particle moved out of a deep
 * penetration keeps only an outward normal velocity it already had. Each contact changes its own
 * particle's v only (ColliderContacts.endStepRange runs it over the list, the pool by the plan).
 */
export function plainVelocities(
  C: VelocityContacts,
  v: Float64Array,
  poses: Float64Array,
  k0: number,
  k1: number,
  rest: number,
): void {
  // (the arrays in locals: the loop reads no field of C per contact)
  const { deep: deepOf, lambdaN: lam, vn0: vn0Of, collider: cid, particle: part, n, q } = C;
  for (let k = k0; k < k1; k++) {
    const deep = deepOf[k] !== 0;
    if (lam[k] <= 0 && !deep) continue;
    const vn0 = vn0Of[k];
    if (!(vn0 < 0) && !deep) continue;
    const o = POSE_STRIDE * cid[k];
    const e = -vn0 > rest && !deep ? poses[o + 9] : 0;
    const i3 = 3 * part[k];
    const nx = n[3 * k],
      ny = n[3 * k + 1],
      nz = n[3 * k + 2];
    // the velocity of the collider's surface at q, as generate computed it for vn0 (the collider
    // keeps its pose and velocity through the substep): recomputed here rather than kept per contact
    const rx = q[3 * k] - poses[o + 2],
      ry = q[3 * k + 1] - poses[o + 3],
      rz = q[3 * k + 2] - poses[o + 4];
    const lx = poses[o + 10],
      ly = poses[o + 11],
      lz = poses[o + 12],
      ax = poses[o + 13],
      ay = poses[o + 14],
      az = poses[o + 15];
    const cvx = lx + ay * rz - az * ry;
    const cvy = ly + az * rx - ax * rz;
    const cvz = lz + ax * ry - ay * rx;
    const vn = (v[i3] - cvx) * nx + (v[i3 + 1] - cvy) * ny + (v[i3 + 2] - cvz) * nz;
    const dv = deep ? Math.min(Math.max(vn0, 0) - vn, 0) : -e * vn0 - vn;
    v[i3] += dv * nx;
    v[i3 + 1] += dv * ny;
    v[i3 + 2] += dv * nz;
  }
}

/**
 * Projects contacts [k0, k1), none of which follows a rigid body: the
 * normal push-out, then static friction back onto the anchor within the
 * cone of the substep's sums, else kinetic friction (μ times the normal
 * correction) with the anchor moved to where the particle ends (in the
 * collider's frame, for the next substep). `rot` is a 3-number scratch.
 *
 * `opening`: the projection that opens the backward half of a symmetric
 * sweep (ConstraintSet.midSweep): the push-out and static friction only. Its
 * kinetic correction would be partly undone by the backward half's material
 * constraints while counted in λ_t, leaving a sliding body less than μ of its
 * load, so a contact whose static test fails there slides in the closing
 * projection. A closing projection also gives friction to a contact that
 * bore load earlier in the substep (λ_n > 0) but is no longer pressed: the
 * friction belongs to the substep's normal impulse (Müller et al. 2020 §3.5,
 * λ_t ≤ μ λ_n), whichever projection applied it.
 */
export function projectPlainContacts(
  C: PlainContacts,
  p: Float64Array,
  poses: Float64Array,
  rot: Float64Array,
  k0: number,
  k1: number,
  opening = false,
): void {
  const part = C.particle,
    q = C.q,
    n = C.n,
    lam = C.lambdaN,
    lamT = C.lambdaT,
    slid = C.slid,
    inc = C.incoming,
    at = C.anchorAt,
    stickN = C.stickN,
    stickT = C.stickT,
    cid = C.collider,
    local = C.anchorLocal;
  for (let k = k0; k < k1; k++) {
    const i3 = 3 * part[k];
    const nx = n[3 * k],
      ny = n[3 * k + 1],
      nz = n[3 * k + 2];
    let C0 = (p[i3] - q[3 * k]) * nx + (p[i3 + 1] - q[3 * k + 1]) * ny + (p[i3 + 2] - q[3 * k + 2]) * nz;
    if (C0 >= 0) {
      // not pressed now: friction only in a closing projection, and only for a load borne earlier in the substep
      if (opening || !(lam[k] > 0)) continue;
      C0 = 0;
    } else {
      p[i3] -= C0 * nx;
      p[i3 + 1] -= C0 * ny;
      p[i3 + 2] -= C0 * nz;
      lam[k] -= C0;
    }
    // position-level Coulomb friction against the anchor (ColliderContacts's class comment)
    const o = POSE_STRIDE * cid[k];
    const mu = poses[o],
      mus = poses[o + 1];
    if (mu === 0 && mus === 0) continue;
    const dx = p[i3] - at[3 * k],
      dy = p[i3 + 1] - at[3 * k + 1],
      dz = p[i3 + 2] - at[3 * k + 2];
    const dn = dx * nx + dy * ny + dz * nz;
    const tx = dx - dn * nx,
      ty = dy - dn * ny,
      tz = dz - dn * nz;
    const i = part[k];
    // the tangential correction of sticking since the anchor was set, this one included (the earlier
    // ones in the tangent plane of this contact)
    const s3 = 3 * i;
    const sn = stickT[s3] * nx + stickT[s3 + 1] * ny + stickT[s3 + 2] * nz;
    const sx = stickT[s3] - sn * nx + tx,
      sy = stickT[s3 + 1] - sn * ny + ty,
      sz = stickT[s3 + 2] - sn * nz + tz;
    const budget = mus * (stickN[i] - C0);
    // static only while the incoming motion is within this substep's cone (Müller et al. 2020 §3.5)
    // and all of the sticking since the anchor within the banked one (ColliderContacts's class comment)
    if (slid[k] === 0 && inc[k] <= mus * lam[k] && sx * sx + sy * sy + sz * sz <= budget * budget) {
      // static: back onto the anchor
      p[i3] -= tx;
      p[i3 + 1] -= ty;
      p[i3 + 2] -= tz;
      stickN[i] -= C0;
      stickT[s3] = sx;
      stickT[s3 + 1] = sy;
      stickT[s3 + 2] = sz;
      // the opening projection's pull counts in λ_t: a contact that slides later in the substep spends
      // μ λ_n in all (without it the FEM box creeps 0.668 mm, with it 0.765)
      if (opening) lamT[k] += Math.sqrt(tx * tx + ty * ty + tz * tz);
      continue;
    }
    // the opening projection of a backward half leaves the kinetic correction to the closing one, and the
    // contact slides for the rest of the substep (Müller et al. 2020 §3.5: one friction state per substep):
    // re-tested in the closing projection it could stick there after failing here, and a cloth resting on a
    // sphere kept buzzing at 0.01 m/s (test/collision-degenerate; docs/collision.md, session 13)
    if (opening) {
      slid[k] = 1;
      continue;
    }
    // kinetic: μ times the normal correction, and the anchor moves to where the particle ends. With
    // several iterations Coulomb's law holds on the substep's impulses, as with one: the substep's
    // kinetic corrections together reach at most μ times its normal correction lambdaN (Müller et al.
    // 2020 §3.5: |Δx_t| is limited by μ_k d_n of the substep), measured from the anchor the substep
    // began with (anchorAt stays; only the next substep's anchor moves), and a contact that slid stays
    // kinetic for the rest of the substep: re-testing the cone against an anchor moved mid-substep let
    // a sliding contact 'stick' after part of its budget and slide on with less than μ of its load
    slid[k] = 1;
    // (|t| only here: static friction needs no square root)
    const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
    const g = tl > 1e-15 ? Math.max(Math.min((mu * lam[k] - lamT[k]) / tl, 1), 0) : 0;
    p[i3] -= g * tx;
    p[i3 + 1] -= g * ty;
    p[i3 + 2] -= g * tz;
    lamT[k] += g * tl;
    // the anchor in the collider's frame from the next substep on (this substep's projections keep
    // anchorAt), and its sums restarted
    const ex = p[i3] - poses[o + 2],
      ey = p[i3 + 1] - poses[o + 3],
      ez = p[i3 + 2] - poses[o + 4];
    if (poses[o + 5] === 0 && poses[o + 6] === 0 && poses[o + 7] === 0) {
      // an unturned collider (a sphere, hair's head): the frame's axes are the world's, and turning
      // by (0, 0, 0, w) gives the vector itself (the same numbers; at most the sign of a zero differs)
      local[s3] = ex;
      local[s3 + 1] = ey;
      local[s3 + 2] = ez;
    } else {
      quatRotateInverse(rot, 0, poses, o + 5, ex, ey, ez);
      local[s3] = rot[0];
      local[s3 + 1] = rot[1];
      local[s3 + 2] = rot[2];
    }
    stickN[i] = 0;
    stickT[s3] = stickT[s3 + 1] = stickT[s3 + 2] = 0;
  }
}

/** The arguments of the 'collider-contacts-project' task: the list's arrays (shared) and the plan. */
export interface ContactBlockArgs extends VelocityContacts {
  p: Float64Array;
  v: Float64Array;
  /** [the velocity pass's restThreshold] (plainVelocities). */
  num: Float64Array;
  /** POSE_STRIDE numbers per collider, written before each job. */
  poses: Float64Array;
  /** plan[b · MAX_SEGMENTS + s]: the first contact of block b in segment s (blocks + 1 rows); plan of row 0 … */
  plan: Int32Array;
  /** [segments, 1 for the opening projection of a backward half (projectPlainContacts), 1 for the velocity pass]. */
  meta: Int32Array;
}

const scratch = new Float64Array(3);

/** The 'collider-contacts-project' task (src/parallel/registry.ts): blocks [from, to) of the plan. */
export function contactBlocksTask(A: ContactBlockArgs, from: number, to: number): void {
  const segs = A.meta[0],
    plan = A.plan;
  const opening = A.meta[1] !== 0,
    velocities = A.meta[2] !== 0;
  for (let b = from; b < to; b++) {
    const r0 = b * MAX_SEGMENTS,
      r1 = r0 + MAX_SEGMENTS;
    for (let s = 0; s < segs; s++)
      if (velocities) plainVelocities(A, A.v, A.poses, plan[r0 + s], plan[r1 + s], A.num[0]);
      else projectPlainContacts(A, A.p, A.poses, scratch, plan[r0 + s], plan[r1 + s], opening);
  }
}

/** Whether the workers can see every array of the list (the plane contacts' pool shares them). */
function allShared(C: VelocityContacts): boolean {
  const arrays = [
    C.vn0,
    C.deep,
    C.particle,
    C.collider,
    C.q,
    C.n,
    C.lambdaN,
    C.lambdaT,
    C.slid,
    C.incoming,
    C.anchorAt,
    C.anchorLocal,
  ];
  for (const a of arrays) if (!(a.buffer instanceof SharedArrayBuffer)) return false;
  return C.stickN.buffer instanceof SharedArrayBuffer && C.stickT.buffer instanceof SharedArrayBuffer;
}

/** The first index in [a, z) whose particle is ≥ i (particle ascending there), or z. */
function lowerBound(part: Int32Array, a: number, z: number, i: number): number {
  while (a < z) {
    const m = (a + z) >>> 1;
    if (part[m] < i) a = m + 1;
    else z = m;
  }
  return a;
}

/**
 * The contact list's projection on the pool: the plan (the segments' parts
 * per block of particles), made once per contact generation, and the job.
 */
export class ContactBlocks {
  private readonly task: SharedTask = { kind: 'collider-contacts-project', args: {}, version: 0 };
  private readonly plan = new Int32Array(new SharedArrayBuffer(4 * MAX_SEGMENTS * 256));
  private readonly meta = new Int32Array(new SharedArrayBuffer(4 * 4));
  private poses: Float64Array = new Float64Array(new SharedArrayBuffer(8 * POSE_STRIDE * 8));
  /** The generation the plan is for (−1: none), and its block count (0: the list cannot go to the pool). */
  private planned = -1;
  private plannedCount = -1;
  private blocks = 0;
  /** Projections run on the pool so far (statistics, tests). */
  pooled = 0;

  /** Velocity passes run on the pool so far (statistics, tests). */
  velocityPasses = 0;

  private readonly num = new Float64Array(new SharedArrayBuffer(8));

  /**
   * Runs `pass` of all `count` contacts on the pool: PROJECT (OPENING: the opening projection of a
   * backward half), or VELOCITIES (plainVelocities, arrivals slower than `rest` m/s resting; session
   * 23), block by block of the plan, so that a particle's contacts keep their list order as in one
   * walk. False (nothing done) where it cannot: the caller runs it. `generation` changes whenever
   * the list does; `s` is the store.
   */
  run(
    tasks: TaskRunner | null,
    C: VelocityContacts & { rigid: Int32Array },
    count: number,
    generation: number,
    s: { p: Float64Array; v: Float64Array; count: number },
    cols: readonly WorldCollider[],
    pass: number,
    rest = 0,
  ): boolean {
    const { p, v, count: np } = s;
    if (tasks === null || tasks.threads < 2 || count < POOL_MIN_CONTACTS) return false;
    if (!(p.buffer instanceof SharedArrayBuffer && v.buffer instanceof SharedArrayBuffer) || !allShared(C))
      return false;
    if (this.planned !== generation || this.plannedCount !== count) {
      this.planned = generation;
      this.plannedCount = count;
      this.blocks = this.makePlan(C, count, np);
    }
    const blocks = this.blocks;
    if (blocks < 2) return false;
    const A = this.task.args as unknown as ContactBlockArgs;
    this.poses = writePoses(cols, this.poses);
    let same = A.p === p && A.v === v && A.poses === this.poses;
    same &&= A.particle === C.particle && A.collider === C.collider && A.q === C.q && A.n === C.n;
    same &&=
      A.lambdaN === C.lambdaN && A.lambdaT === C.lambdaT && A.slid === C.slid && A.anchorAt === C.anchorAt;
    same &&=
      A.incoming === C.incoming &&
      A.anchorLocal === C.anchorLocal &&
      A.stickN === C.stickN &&
      A.stickT === C.stickT;
    same &&= A.vn0 === C.vn0 && A.deep === C.deep;
    if (!same) {
      const next: ContactBlockArgs = {
        p,
        v,
        num: this.num,
        poses: this.poses,
        plan: this.plan,
        meta: this.meta,
        particle: C.particle,
        collider: C.collider,
        q: C.q,
        n: C.n,
        lambdaN: C.lambdaN,
        lambdaT: C.lambdaT,
        slid: C.slid,
        incoming: C.incoming,
        anchorAt: C.anchorAt,
        anchorLocal: C.anchorLocal,
        stickN: C.stickN,
        stickT: C.stickT,
        vn0: C.vn0,
        deep: C.deep,
      };
      this.task.args = next as unknown as Record<string, unknown>;
      this.task.version++;
      return false;
    }
    this.meta[1] = pass === OPENING ? 1 : 0;
    this.meta[2] = pass === VELOCITIES ? 1 : 0;
    this.num[0] = rest;
    if (!tasks.runTask(this.task, blocks, blocks)) return false;
    if (pass === VELOCITIES) this.velocityPasses++;
    else this.pooled++;
    return true;
  }

  /** The segments and each block's part of them; returns the blocks (0: not for the pool). */
  private makePlan(C: PlainContacts & { rigid: Int32Array }, count: number, np: number): number {
    const part = C.particle,
      rigid = C.rigid;
    const ends: number[] = [];
    if (rigid[0] >= 0) return 0;
    for (let k = 1; k < count; k++) {
      if (rigid[k] >= 0) return 0;
      if (part[k] <= part[k - 1]) {
        ends.push(k);
        if (ends.length >= MAX_SEGMENTS) return 0;
      }
    }
    ends.push(count);
    const segs = ends.length;
    const blocks = Math.min(255, particleBlocks(np));
    if (blocks < 2) return 0;
    const size = Math.ceil(np / blocks);
    const real = Math.ceil(np / size);
    const plan = this.plan;
    for (let b = 0; b <= real; b++) {
      const i = Math.min(np, b * size);
      let a = 0;
      for (let s = 0; s < segs; s++) {
        const z = ends[s];
        plan[b * MAX_SEGMENTS + s] = b === real ? z : lowerBound(part, a, z, i);
        a = z;
      }
    }
    this.meta[0] = segs;
    return real;
  }
}
