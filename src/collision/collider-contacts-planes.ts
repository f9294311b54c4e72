import type { StepContext } from '../core/constraint-set.js';
import type { SharedTask } from '../core/step-context.js';
import type { WorldCollider } from '../core/world-collider.js';
// the table's slots and the block loop: printed from scripts/kernels/emit-collider-contacts.ts
import {
  AV,
  B_STRIDE,
  BOXES,
  CGROUP,
  CHUNK,
  CHUNKED,
  CMASK,
  COL,
  COUNT,
  CP,
  CR,
  DECAY,
  FILL,
  H,
  LSTRIDE,
  LV,
  MARGIN,
  MAX_BLOCKS,
  MAXDEP,
  NP,
  PASS,
  PLANES,
  planeBlock,
  SIZE,
  SLACK,
  SUBSTEP,
  T_SLOTS,
} from './collider-contact-loops.generated.js';
import type { PlaneArrays, SphereContactsTarget } from './collider-contact-targets.js';

/**
 * The collider contacts of one plane that follows no rigid body, generated on
 * the worker pool in fixed blocks of particles (docs/solver.md, "Threads"):
 * the floor and walls of a fluid tank, whose contacts are most of
 * wave-pool-128k's (77,000 a step). The same contacts, in the same order,
 * with the same numbers as ColliderContacts.generate's generic loop (003
 * §3.4: the continuous test along x → p, the static fallback, the closest
 * point within reach, and push()'s friction anchor), computed with the same
 * operations in the same order: PlaneCollider's distanceAt (the unturned
 * fast path included), raycastAt and boxDistanceBound are written out in
 * planeBlock, printed with the other shapes' loops from one definition
 * (scripts/kernels/emit-collider-contacts.ts, collider-contact-loops.generated.ts).
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

/** The most planes one run generates together (a longer run is cut into runs of this many). */
const MAX_PLANES = 8;
/** The fewest planes of a run that a world without threads generates by the blocks (session 23). */
const SERIAL_MIN_PLANES = 2;

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

/** bytes on a SharedArrayBuffer where there is one (a page without isolation runs one thread: a plain buffer). */
function buffer(bytes: number): ArrayBufferLike {
  return typeof SharedArrayBuffer !== 'undefined' ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
}

/** A copy of `a` on a SharedArrayBuffer. */
function sharedCopy<T extends Typed>(a: T): T {
  const C = a.constructor as new (b: SharedArrayBuffer) => T;
  const out = new C(new SharedArrayBuffer(a.byteLength));
  out.set(a as never);
  return out;
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
  /**
   * Whether a world without threads generates a run by the same blocks on its one thread (session 23;
   * false: each plane through the generic loop, as before; the same contacts and numbers either way).
   */
  static withoutThreads = true;
  readonly task: SharedTask = { kind: 'collider-plane-contacts', args: {}, version: 0 };
  private readonly T = new Float64Array(buffer(8 * T_SLOTS * MAX_PLANES));
  private readonly B = new Int32Array(buffer(4 * B_STRIDE * MAX_BLOCKS * MAX_PLANES));
  /** Colliders generated on the pool so far (statistics, tests). */
  pooled = 0;
  /** Runs of planes generated on the pool so far (2 jobs each; statistics, tests). */
  runs = 0;
  /** Colliders generated by the same blocks on the calling thread of a world without threads (statistics, tests). */
  serial = 0;
  /** The collider indices of the run being generated (collectRun). */
  private readonly run = new Int32Array(MAX_PLANES);
  /** The last generate's first pass filled the chunk boxes (asked with `boxes`). */
  boxesBuilt = false;
  /** The contact particles each block lists (PlaneArrays.list). */
  private list: Int32Array = new Int32Array(0);

  /**
   * The arguments for these arrays: the current ones, or new ones (a new version). `shared`: for
   * the pool (the store's arrays must be shared, the contacts' are copied to shared memory once);
   * else for the calling thread alone, on the arrays as they are.
   */
  private args(
    cc: SphereContactsTarget,
    ctx: StepContext,
    planes: number,
    shared: boolean,
  ): PlaneArrays | null {
    const s = ctx.store;
    if (shared && !(s.x.buffer instanceof SharedArrayBuffer && s.group.buffer instanceof SharedArrayBuffer))
      return null;
    const f = cc as unknown as Record<string, Typed>;
    if (shared)
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
    next.list = this.list.length >= room ? this.list : new Int32Array(buffer(4 * planes * s.capacity));
    this.list = next.list as Int32Array;
    for (const name of SHARED_FIELDS) next[name] = f[name];
    // a copy with fast properties: `next`, grown by 30 keyed stores, is a dictionary-mode object,
    // whose every A.q, A.n, A.anchorOf … in planeBlock's loop the calling thread looked up by hash
    // (the workers receive a structured clone, which is fast): FILL 2.4× slower there (session 23)
    const args = { ...next };
    this.task.args = args;
    this.task.version++;
    return args as unknown as PlaneArrays;
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
    // without threads the calling thread runs the same blocks (planeBlock: the planes' queries written
    // out, 2.5 times as fast as the generic loop's on wave-pool-128k's tank, session 23)
    const tasks = ctx.tasks ?? null;
    if (cc.disabledBody !== null) return false;
    // (one plane alone, a floor under a cloth, is as fast through the generic loop: its tests once, not twice)
    if (tasks === null && (n < SERIAL_MIN_PLANES || !PlaneContactsPool.withoutThreads)) return false;
    const np = ctx.store.count;
    const size = Math.ceil(Math.max(64 * chunkSize, np / MAX_BLOCKS) / chunkSize) * chunkSize;
    const blocks = Math.ceil(np / size);
    if (blocks < 2) return false;
    let A = this.args(cc, ctx, n, tasks !== null);
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
    if (tasks === null) planeContactsTask(A, 0, blocks);
    else if (!tasks.runTask(this.task, blocks, blocks)) return false;
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
      A = this.args(cc, ctx, n, tasks !== null) as PlaneArrays;
    }
    T[PASS] = FILL;
    if (tasks === null || !tasks.runTask(this.task, blocks, blocks)) planeContactsTask(A, 0, blocks);
    cc.count += total;
    cc.cullTested += tested;
    cc.cullCulled += culled;
    if (tasks === null) {
      this.serial += n;
      return true;
    }
    this.pooled += n;
    this.runs++;
    return true;
  }
}

/** A plane collider that follows no rigid body: its contacts can be generated on the pool. */
export function isPoolPlane(col: WorldCollider): boolean {
  return col.type === 'plane' && (col.rigid ?? -1) < 0;
}
