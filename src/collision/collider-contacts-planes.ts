import type { StepContext } from '../core/constraint-set.js';
import type { SharedTask } from '../core/step-context.js';
import type { WorldCollider } from '../core/world-collider.js';
import { quatRotate, quatRotateInverse } from '../math/quat.js';
import { chunkBoxesRange, incomingSlip } from './collider-contact-chunks.js';
import type { PlainContacts } from './collider-contacts-blocks.js';
import type { SphereContactsTarget } from './collider-contacts-sphere.js';

/**
 * The collider contacts of one plane that follows no rigid body, generated on
 * the worker pool in fixed blocks of particles (docs/solver.md, "Threads"):
 * the floor and walls of a fluid tank, whose contacts are most of
 * wave-pool-128k's (77,000 a step). The same contacts, in the same order,
 * with the same numbers as ColliderContacts.generate's generic loop (003
 * §3.4: the continuous test along x → p, the static fallback, the closest
 * point within reach, and push()'s friction anchor), computed with the same
 * operations in the same order: PlaneCollider's distanceAt (the unturned
 * fast path included), raycastAt and boxDistanceBound are written out here.
 *
 * Each block first counts its contacts (and the chunk tests of the culling)
 * and lists their particles; the calling thread adds the counts up in block
 * order, and each block then writes the contacts of its list from its start,
 * each particle's anchor (blocks hold disjoint particles) and contactOf.
 * A run of such planes, consecutive in the collider list (a tank's floor and
 * walls), is generated together: one job counts every plane's contacts, block
 * by block (a block's item takes the planes in their order), the counts are
 * added up plane after plane, block after block, and one job writes them
 * (again a block's item plane after plane, so a particle's anchor and
 * contactOf see the planes' writes in the serial order): the list is entry
 * for entry the one of the planes one by one, in 2 jobs instead of 2 a plane
 * (docs/fluids.md, session 15, planes16). A particle found deep inside (whose
 * depenetration moves whole bodies) sends the collider back to the calling
 * thread, which then generates its contacts as one thread does; so does a
 * substep whose arrays the workers do not hold yet.
 */

/** What the workers read and write (the arguments of the 'collider-plane-contacts' task): the contact list's arrays (PlainContacts) and these. */
export interface PlaneArrays extends PlainContacts {
  /** The plane and the substep's numbers (T_*), on a SharedArrayBuffer. */
  T: Float64Array;
  /** Per plane and block (B_STRIDE each, plane j's block b at j·MAX_BLOCKS + b): contacts, chunk tests, chunks culled, deep particles, first contact. */
  B: Int32Array;
  x: Float64Array;
  p: Float64Array;
  v: Float64Array;
  invMass: Float64Array;
  radius: Float64Array;
  group: Int32Array;
  mask: Int32Array;
  vn0: Float64Array;
  deep: Uint8Array;
  rigid: Int32Array;
  contactOf: Int32Array;
  anchorOf: Int32Array;
  anchorSeen: Int32Array;
  chunkBox: Float64Array;
  chunkReach: Float64Array;
  /** Per plane and particle slot: plane j's block b lists its contact particles from j·T[LSTRIDE] + b·size on, for its FILL pass. */
  list: Int32Array;
}

const PASS = 0,
  CP = 1,
  CR = 4,
  LV = 8,
  AV = 11,
  MARGIN = 14,
  H = 15,
  MAXDEP = 16,
  SUBSTEP = 17,
  DECAY = 18,
  COL = 19,
  CHUNKED = 20,
  CHUNK = 21,
  SLACK = 22,
  NP = 23,
  SIZE = 24,
  CGROUP = 25,
  CMASK = 26,
  /** 1: the COUNT pass first fills the chunk boxes of its block's chunks (ColliderContacts.generate defers them). */
  BOXES = 27,
  /** The planes of the run (table 0) and the stride of their lists. */
  PLANES = 28,
  LSTRIDE = 29,
  /** Plane j's table starts at j·T_SLOTS (its CP … CMASK; the other slots are table 0's). */
  T_SLOTS = 32;
const COUNT = 1,
  FILL = 2;
const B_STRIDE = 5;
const MAX_BLOCKS = 64;
/** The most planes one run generates together (a longer run is cut into runs of this many). */
const MAX_PLANES = 8;

/** The fields of ColliderContacts (collider-contacts.ts) that the workers share. */
const SHARED_FIELDS = [
  'particle',
  'collider',
  'q',
  'n',
  'lambdaN',
  'lambdaT',
  'slid',
  'incoming',
  'vn0',
  'deep',
  'rigid',
  'anchorAt',
  'contactOf',
  'anchorOf',
  'anchorSeen',
  'anchorLocal',
  'stickN',
  'stickT',
  'chunkBox',
  'chunkReach',
] as const;

type Typed = Int32Array | Float64Array | Uint8Array;

/** A copy of `a` on a SharedArrayBuffer. */
function sharedCopy<T extends Typed>(a: T): T {
  const C = a.constructor as new (b: SharedArrayBuffer) => T;
  const out = new C(new SharedArrayBuffer(a.byteLength));
  out.set(a as never);
  return out;
}

/** Scratch of the kernels (per thread). */
const tmp = new Float64Array(3);
const nrm = new Float64Array(3);

/**
 * Block b of a pass (COUNT or FILL) over particles [b·size, (b + 1)·size)
 * for plane j of the run (its table at j·T_SLOTS): the generic loop of
 * ColliderContacts.generate with push() inlined.
 */
function planeBlock(A: PlaneArrays, j: number, b: number): void {
  const T = A.T,
    B = A.B;
  const o = j * T_SLOTS;
  const fill = T[PASS] === FILL;
  const size = T[SIZE];
  const i0 = b * size,
    i1 = Math.min(T[NP], i0 + size);
  const { x, p, v, invMass, radius, group, mask } = A;
  const cpx = T[o + CP],
    cpy = T[o + CP + 1],
    cpz = T[o + CP + 2];
  const cr = tmpCr;
  cr[0] = T[o + CR];
  cr[1] = T[o + CR + 1];
  cr[2] = T[o + CR + 2];
  cr[3] = T[o + CR + 3];
  const unturned = cr[0] === 0 && cr[1] === 0 && cr[2] === 0;
  // the turns written out below (rotateByParts' operations in its order, so the same bits): a call
  // that V8 does not inline boxes its double arguments, ~4 MB of garbage a step in wave-pool-128k
  const iqx = -cr[0],
    iqy = -cr[1],
    iqz = -cr[2],
    qx = cr[0],
    qy = cr[1],
    qz = cr[2],
    qw = cr[3];
  // the plane's normal (PlaneCollider.localDistance's +y, turned)
  quatRotate(nrm, 0, cr, 0, 0, 1, 0);
  const tnx = unturned ? 0 : nrm[0],
    tny = unturned ? 1 : nrm[1],
    tnz = unturned ? 0 : nrm[2];
  // boxDistanceBound turns +y in any case
  const bnx = nrm[0],
    bny = nrm[1],
    bnz = nrm[2];
  const lvx = T[o + LV],
    lvy = T[o + LV + 1],
    lvz = T[o + LV + 2],
    avx = T[o + AV],
    avy = T[o + AV + 1],
    avz = T[o + AV + 2];
  const margin = T[o + MARGIN],
    h = T[H],
    maxDep = T[MAXDEP],
    substep = T[SUBSTEP],
    decay = T[DECAY],
    c = T[o + COL],
    chunked = T[CHUNKED] !== 0,
    chunkSize = T[CHUNK],
    slack = T[SLACK],
    cgroup = T[o + CGROUP],
    cmask = T[o + CMASK];
  const box = A.chunkBox,
    chunkReach = A.chunkReach;
  const e = B_STRIDE * (j * MAX_BLOCKS + b);
  let k = fill ? B[e + 4] : 0;
  let tested = 0,
    culled = 0,
    deeps = 0;
  // COUNT walks the block's particles and lists those with a contact; FILL walks that list alone
  // (the same tests on the same numbers pass again), not every particle a second time
  const list = A.list;
  const lo = j * T[LSTRIDE];
  const t1 = fill ? i0 + B[e] : i1;
  // a block holds whole chunks (size is a multiple of chunkSize); the run's first plane fills them
  if (!fill && j === 0 && T[BOXES] !== 0)
    chunkBoxesRange(
      box,
      chunkReach,
      x,
      p,
      invMass,
      radius,
      T[NP],
      chunkSize,
      i0 / chunkSize,
      Math.ceil(i1 / chunkSize),
    );
  for (let t = i0; t < t1; t++) {
    const i = fill ? list[lo + t] : t;
    if (!fill && chunked && (i & (chunkSize - 1)) === 0) {
      const b6 = (6 * i) / chunkSize;
      const bound =
        bnx * ((bnx > 0 ? box[b6] : box[b6 + 3]) - cpx) +
        bny * ((bny > 0 ? box[b6 + 1] : box[b6 + 4]) - cpy) +
        bnz * ((bnz > 0 ? box[b6 + 2] : box[b6 + 5]) - cpz);
      tested++;
      if (bound - 2 * margin > 2 * chunkReach[i / chunkSize] + slack) {
        culled++;
        t += chunkSize - 1;
        continue;
      }
    }
    if (invMass[i] === 0) continue;
    if ((mask[i] & cgroup) === 0 || (cmask & group[i]) === 0) continue;
    const i3 = 3 * i;
    const px = p[i3],
      py = p[i3 + 1],
      pz = p[i3 + 2];
    const xx = x[i3],
      xy = x[i3 + 1],
      xz = x[i3 + 2];
    const r = margin + radius[i];
    const mx = px - xx,
      my = py - xy,
      mz = pz - xz;
    const seg = Math.sqrt(mx * mx + my * my + mz * mz);
    // distanceAt(x)
    let dX: number;
    if (unturned) dX = xy - cpy;
    else dX = turnedY(iqx, iqy, iqz, qw, xx - cpx, xy - cpy, xz - cpz);
    let cqx: number, cqy: number, cqz: number;
    if (dX >= r) {
      let t = -1;
      if (seg > dX - r) {
        // raycastAt (PlaneCollider.localRaycast on both ends turned)
        const ay = turnedY(iqx, iqy, iqz, qw, xx - cpx, xy - cpy, xz - cpz),
          by = turnedY(iqx, iqy, iqz, qw, px - cpx, py - cpy, pz - cpz);
        t = ay < r || by >= r ? -1 : (ay - r) / (ay - by);
      }
      if (t >= 0) {
        cqx = xx + t * mx;
        cqy = xy + t * my;
        cqz = xz + t * mz;
      } else {
        let dP: number;
        if (unturned) dP = py - cpy;
        else dP = turnedY(iqx, iqy, iqz, qw, px - cpx, py - cpy, pz - cpz);
        if (dP >= 2 * (r + seg)) continue;
        cqx = px - (dP - r) * tnx;
        cqy = py - (dP - r) * tny;
        cqz = pz - (dP - r) * tnz;
      }
    } else {
      const rx = xx - cpx,
        ry = xy - cpy,
        rz = xz - cpz;
      const sn =
        (lvx + avy * rz - avz * ry) * tnx +
        (lvy + avz * rx - avx * rz) * tny +
        (lvz + avx * ry - avy * rx) * tnz;
      const excess = r - dX - (Math.max(sn, 0) + maxDep) * h;
      if (excess > 0) {
        // deep inside: the calling thread generates this collider (depenetration moves bodies)
        deeps++;
        continue;
      }
      let dP: number;
      if (unturned) dP = py - cpy;
      else dP = turnedY(iqx, iqy, iqz, qw, px - cpx, py - cpy, pz - cpz);
      cqx = px - (dP - r) * tnx;
      cqy = py - (dP - r) * tny;
      cqz = pz - (dP - r) * tnz;
    }
    if (!fill) {
      list[lo + i0 + k] = i;
      k++;
      continue;
    }
    const rx = cqx - cpx,
      ry = cqy - cpy,
      rz = cqz - cpz;
    const cvx = lvx + avy * rz - avz * ry;
    const cvy = lvy + avz * rx - avx * rz;
    const cvz = lvz + avx * ry - avy * rx;
    const vn0 = (v[i3] - cvx) * tnx + (v[i3 + 1] - cvy) * tny + (v[i3 + 2] - cvz) * tnz;
    const k3 = 3 * k;
    A.particle[k] = i;
    A.collider[k] = c;
    A.q[k3] = cqx;
    A.q[k3 + 1] = cqy;
    A.q[k3 + 2] = cqz;
    A.n[k3] = tnx;
    A.n[k3 + 1] = tny;
    A.n[k3 + 2] = tnz;
    A.lambdaN[k] = 0;
    A.lambdaT[k] = 0;
    A.slid[k] = 0;
    A.vn0[k] = vn0;
    A.deep[k] = 0;
    A.contactOf[i] = k;
    A.incoming[k] = incomingSlip(x, p, i3, tnx, tny, tnz, cvx, cvy, cvz, h);
    const al = A.anchorLocal,
      stickT = A.stickT;
    if (A.anchorOf[i] !== c + 1 || A.anchorSeen[i] < substep - 1) {
      quatRotateInverse(
        tmp,
        0,
        cr,
        0,
        x[i3] + cvx * h - cpx,
        x[i3 + 1] + cvy * h - cpy,
        x[i3 + 2] + cvz * h - cpz,
      );
      al[i3] = tmp[0];
      al[i3 + 1] = tmp[1];
      al[i3 + 2] = tmp[2];
      A.anchorOf[i] = c + 1;
      A.stickN[i] = 0;
      stickT[i3] = stickT[i3 + 1] = stickT[i3 + 2] = 0;
    } else {
      A.stickN[i] *= decay;
      stickT[i3] *= decay;
      stickT[i3 + 1] *= decay;
      stickT[i3 + 2] *= decay;
    }
    A.anchorSeen[i] = substep;
    // quatRotate(cr, anchorLocal) + the plane's position, written out (rotateByParts's operations)
    const ax = al[i3],
      ay = al[i3 + 1],
      az = al[i3 + 2];
    const ux = 2 * (qy * az - qz * ay);
    const uy = 2 * (qz * ax - qx * az);
    const uz = 2 * (qx * ay - qy * ax);
    A.anchorAt[k3] = ax + qw * ux + (qy * uz - qz * uy) + cpx;
    A.anchorAt[k3 + 1] = ay + qw * uy + (qz * ux - qx * uz) + cpy;
    A.anchorAt[k3 + 2] = az + qw * uz + (qx * uy - qy * ux) + cpz;
    A.rigid[k] = -1;
    k++;
  }
  if (fill) return;
  B[e] = k;
  B[e + 1] = tested;
  B[e + 2] = culled;
  B[e + 3] = deeps;
}

const tmpCr = new Float64Array(4);

/**
 * The y of (vx, vy, vz) turned by the quaternion (qx, qy, qz, qw): rotateByParts's
 * operations in its order (math/quat.ts), so the same bits as quatRotateInverse's tmp[1]
 * with (qx, qy, qz) = −the rotation's; small enough for V8 to inline into planeBlock.
 */
function turnedY(qx: number, qy: number, qz: number, qw: number, vx: number, vy: number, vz: number): number {
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  return vy + qw * ty + (qz * tx - qx * tz);
}

/**
 * The 'collider-plane-contacts' task (parallel/registry.ts): blocks from … to − 1, each block's
 * planes in the run's order (a particle's anchor and contactOf written plane after plane, as serially).
 */
export function planeContactsTask(A: PlaneArrays, from: number, to: number): void {
  const planes = A.T[PLANES];
  for (let b = from; b < to; b++) for (let j = 0; j < planes; j++) planeBlock(A, j, b);
}

/**
 * The pool's side of one ColliderContacts: its task, whose arguments are
 * made anew whenever an array changed (the workers receive them before the
 * next step).
 */
export class PlaneContactsPool {
  readonly task: SharedTask = { kind: 'collider-plane-contacts', args: {}, version: 0 };
  private readonly T = new Float64Array(new SharedArrayBuffer(8 * T_SLOTS * MAX_PLANES));
  private readonly B = new Int32Array(new SharedArrayBuffer(4 * B_STRIDE * MAX_BLOCKS * MAX_PLANES));
  /** Colliders generated on the pool so far (statistics, tests). */
  pooled = 0;
  /** Runs of planes generated on the pool so far (2 jobs each; statistics, tests). */
  runs = 0;
  /** The collider indices of the run being generated (collectRun). */
  private readonly run = new Int32Array(MAX_PLANES);
  /** The last generate's first pass filled the chunk boxes (asked with `boxes`). */
  boxesBuilt = false;
  /** The contact particles each block lists (PlaneArrays.list). */
  private list: Int32Array = new Int32Array(0);

  /** The arguments for these arrays: the current ones, or new ones (a new version). */
  private args(cc: SphereContactsTarget, ctx: StepContext, planes: number): PlaneArrays | null {
    const s = ctx.store;
    if (!(s.x.buffer instanceof SharedArrayBuffer) || !(s.group.buffer instanceof SharedArrayBuffer))
      return null;
    const f = cc as unknown as Record<string, Typed>;
    for (const name of SHARED_FIELDS)
      if (!(f[name].buffer instanceof SharedArrayBuffer)) f[name] = sharedCopy(f[name]);
    const A = this.task.args as unknown as PlaneArrays;
    let same = A.x === s.x && A.p === s.p && A.v === s.v && A.invMass === s.invMass && A.radius === s.radius;
    const room = planes * s.count;
    same &&= A.group === s.group && A.mask === s.mask && A.list !== undefined && A.list.length >= room;
    for (const name of SHARED_FIELDS) same &&= (A as unknown as Record<string, Typed>)[name] === f[name];
    if (same) return A;
    const next: Record<string, unknown> = { T: this.T, B: this.B };
    next.x = s.x;
    next.p = s.p;
    next.v = s.v;
    next.invMass = s.invMass;
    next.radius = s.radius;
    next.group = s.group;
    next.mask = s.mask;
    next.list =
      this.list.length >= room ? this.list : new Int32Array(new SharedArrayBuffer(4 * planes * s.capacity));
    this.list = next.list as Int32Array;
    for (const name of SHARED_FIELDS) next[name] = f[name];
    this.task.args = next;
    this.task.version++;
    return next as unknown as PlaneArrays;
  }

  /**
   * Takes the run of planes from collider c on (c, then each later enabled
   * collider while it is a pool plane, at most MAX_PLANES): their indices in
   * `run`, their number returned (with `single`, c alone).
   */
  collectRun(cols: readonly WorldCollider[], c: number, single: boolean): number {
    const run = this.run;
    run[0] = c;
    let n = 1;
    for (let d = c + 1; d < cols.length && n < MAX_PLANES && !single; d++) {
      if (!cols[d].enabled) continue;
      if (!isPoolPlane(cols[d])) break;
      run[n++] = d;
    }
    return n;
  }

  /** The index of the run's last collider (of n). */
  runEnd(n: number): number {
    return this.run[n - 1];
  }

  /**
   * Generates the contacts of the n plane colliders of `run` (collectRun) on
   * the pool, in two jobs; false when it cannot (nothing was changed but, with
   * `boxes`, maybe the chunk boxes, see boxesBuilt: the caller generates them,
   * plane by plane). With `boxes`, the first pass fills the chunk boxes too,
   * block by block (the caller deferred them: ColliderContacts.generate).
   */
  generate(
    cc: SphereContactsTarget,
    ctx: StepContext,
    cols: readonly WorldCollider[],
    n: number,
    chunked: boolean,
    chunkSize: number,
    cullSlack: number,
    boxes = false,
  ): boolean {
    this.boxesBuilt = false;
    const tasks = ctx.tasks;
    if (!tasks || cc.disabledBody !== null) return false;
    const np = ctx.store.count;
    const size = Math.ceil(Math.max(64 * chunkSize, np / MAX_BLOCKS) / chunkSize) * chunkSize;
    const blocks = Math.ceil(np / size);
    if (blocks < 2) return false;
    let A = this.args(cc, ctx, n);
    if (A === null) return false;
    const T = this.T,
      B = this.B;
    for (let j = 0; j < n; j++) {
      const c = this.run[j],
        col = cols[c],
        o = j * T_SLOTS;
      for (let d = 0; d < 3; d++) {
        T[o + CP + d] = col.position[d];
        T[o + LV + d] = col.linearVelocity[d];
        T[o + AV + d] = col.angularVelocity[d];
      }
      for (let d = 0; d < 4; d++) T[o + CR + d] = col.rotation[d];
      T[o + MARGIN] = col.margin;
      T[o + COL] = c;
      T[o + CGROUP] = col.group;
      T[o + CMASK] = col.mask;
    }
    T[H] = ctx.h;
    T[MAXDEP] = cc.maxDepenetrationSpeed;
    T[SUBSTEP] = cc.substep;
    T[DECAY] = cc.stickDecay;
    T[CHUNKED] = chunked ? 1 : 0;
    T[CHUNK] = chunkSize;
    T[SLACK] = cullSlack;
    T[NP] = np;
    T[SIZE] = size;
    T[PLANES] = n;
    T[LSTRIDE] = np;
    T[PASS] = COUNT;
    T[BOXES] = chunked && boxes ? 1 : 0;
    if (!tasks.runTask(this.task, blocks, blocks)) return false;
    this.boxesBuilt = chunked && boxes;
    let total = 0,
      tested = 0,
      culled = 0;
    // the contacts plane after plane, block after block: the list of the planes one by one
    for (let j = 0; j < n; j++)
      for (let b = 0; b < blocks; b++) {
        const e = B_STRIDE * (j * MAX_BLOCKS + b);
        if (B[e + 3] > 0) return false;
        B[e + 4] = cc.count + total;
        total += B[e];
        tested += B[e + 1];
        culled += B[e + 2];
      }
    if (cc.count + total > cc.capacity) {
      cc.grow(Math.max(2 * cc.capacity, cc.count + total));
      A = this.args(cc, ctx, n) as PlaneArrays;
    }
    T[PASS] = FILL;
    if (!tasks.runTask(this.task, blocks, blocks)) planeContactsTask(A, 0, blocks);
    cc.count += total;
    cc.cullTested += tested;
    cc.cullCulled += culled;
    this.pooled += n;
    this.runs++;
    return true;
  }
}

/** A plane collider that follows no rigid body: its contacts can be generated on the pool. */
export function isPoolPlane(col: WorldCollider): boolean {
  return col.type === 'plane' && (col.rigid ?? -1) < 0;
}
