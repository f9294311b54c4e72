/**
 * The fused strand pass's one-pass substep on a threaded world's worker pool
 * (docs/strands.md "Speed", session 15; docs/solver.md "Threads").
 *
 * Follow-The-Leader strands share no particle (000 §3.5), and the sphere's
 * contacts of a particle touch only that particle (003 §3.4), so the one
 * pass's blocks of strands (fused-pass.ts runKernels: the prediction, the
 * roots' targets, the sphere's contacts, their projection, FTL, the velocity
 * update, the contacts' velocity pass, DFTL's term) run as the blocks of a
 * pool task, each block the very kernels of the one-thread pass on its own
 * particles: the numbers of a particle do not depend on which thread runs its
 * block or when. The store's x, p, v and inverse masses, the FTL layouts and
 * the contact list live in a shared WebAssembly memory (strand-kernel.ts
 * ready with a thread count) that each thread's instance of the module imports.
 *
 * The one thing the blocks share is the contact list, which holds the
 * contacts in particle order. A block's contacts begin after those of every
 * block before it, whose counts each block publishes right after its
 * generation. Blocks are claimed in order, so when a block starts the blocks
 * before it have mostly published: it then generates its contacts in their
 * place. Where one has not (the first blocks of a substep, each thread's
 * first), the block generates them into a staging list at its first
 * particle's slot (a particle has one contact at most: one sphere), runs the
 * whole block on them there, and at its end, when the counts have come,
 * moves them to their place (wasm/strands.ts moveContacts). Either way the
 * list is the one-thread pass's, contact for contact and bit for bit.
 *
 * The calling thread's serial part is kept small (session 17: it bounds the two-thread step, the
 * blocks do not slow each other): each block puts its own particles' contactOf back to −1 (the
 * list's clear), and roots that all follow one motion get their targets from the blocks instead of
 * the attachments' beginStep: the attachments' anchor and target arrays live in the kernel memory
 * (Attachments.adoptAnchors), each block computes its own roots' targets (rootTargets' operations),
 * and the held list's copy stays while the attachments keep their version (session 18); a set's
 * last strands go in quarter blocks, so that the threads end a pass close together.
 */
import { awaitBlock, markDone, nextEpoch, threadIndex } from '../core/block-order.js';
import type { Motion } from '../core/motion.js';
import type { SharedTask, TaskRunner } from '../core/step-context.js';
import { rotateByParts } from '../math/quat.js';
import type { FollowTheLeader } from './follow-the-leader.js';
import {
  A_COLLIDER,
  A_OF,
  A_SLOTS,
  A_SUBSTEP,
  type StrandExports,
  type StrandKernel,
} from './strand-kernel.js';
// the slots of `par` and `lay`, written once in scripts/kernels/emit-slots.ts (STRANDS)
import {
  L_A,
  L_ANCHOR,
  L_ASTRIDE,
  L_CELL,
  L_CORR,
  L_COUNTS,
  L_CSTRIDE,
  L_ENTRY,
  L_F,
  L_HELD,
  L_HELDN,
  L_P,
  L_SETS,
  L_TA,
  L_TARGET,
  L_THREADS,
  L_V,
  L_W,
  L_X,
  P_C,
  P_CLEAR,
  P_EPOCH,
  P_FD,
  P_G,
  P_GEN,
  P_H,
  P_INVH,
  P_K0,
  P_MOTION,
  P_Q,
  P_REACH,
  P_SETS,
  P_STAGE,
  P_T,
  P_VMAX,
} from './strand-slots.generated.js';

/** Per block of `blk`: the FTL set, its strands [s0, s1), particles [a, b), held roots [h0, h1). */
export const B_STRIDE = 8;
/**
 * Per block of `res`: contacts, recoveries, speed clamps, 1 + a particle the kernel stopped at (0:
 * none), 1 where its contacts went through the staging list.
 */
export const R_STRIDE = 5;

/** The arguments of the 'strand-blocks' task (numbers in shared arrays, the module and its memory). */
export interface StrandTaskArgs {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  par: Float64Array;
  lay: Int32Array;
  blk: Int32Array;
  res: Int32Array;
  /** Per block: the epoch of the last pass in which its contacts' count was published. */
  done: Int32Array;
  /**
   * Probes only (bench/hair-threads-probe.ts; null otherwise): the last pass's timeline, ms since
   * the epoch (performance.timeOrigin + now): the job's start and end (calling thread), then per block
   * its thread, start and end.
   */
  tl: Float64Array | null;
}

/** The time for `tl` (one clock across threads). */
function stamp(): number {
  return performance.timeOrigin + performance.now();
}

interface ThreadInstance {
  ex: StrandExports;
  p: Float64Array;
  held: Int32Array;
  entry: Int32Array;
  target: Float64Array;
  anchor: Float64Array;
  cells: Int32Array;
  counts: Int32Array;
  /** The list's contactOf over the blocks' particles. */
  of: Int32Array;
}

/** Each thread's instance of the module on the task's memory, by task arguments. */
const instances = new WeakMap<object, ThreadInstance>();

function instanceOf(A: StrandTaskArgs): ThreadInstance {
  let t = instances.get(A);
  if (t === undefined) {
    const inst = new WebAssembly.Instance(A.module, { env: { memory: A.memory } });
    const buf = A.memory.buffer;
    const L = A.lay;
    const threads = L[L_THREADS];
    const blk = A.blk,
      particles = blk[blk.length - B_STRIDE + 4];
    t = {
      ex: inst.exports as unknown as StrandExports,
      p: new Float64Array(buf, L[L_P], 3 * L[L_HELDN]),
      held: new Int32Array(buf, L[L_HELD], L[L_HELDN]),
      entry: new Int32Array(buf, L[L_ENTRY], L[L_HELDN]),
      target: new Float64Array(buf, L[L_TARGET], 3 * L[L_HELDN]),
      anchor: new Float64Array(buf, L[L_ANCHOR], 3 * L[L_HELDN]),
      cells: new Int32Array(buf, L[L_CELL], 2 * threads),
      counts: new Int32Array(buf, L[L_COUNTS], 2 * threads),
      of: new Int32Array(buf, new Int32Array(buf, L[L_A], A_SLOTS)[A_OF], particles),
    };
    instances.set(A, t);
  }
  return t;
}

/**
 * Blocks [from, to) of the pass (one block of strands each; see the file's comment). Runs on every
 * thread of the pool; the calling thread also calls it for all blocks where the pool cannot run them.
 */
export function strandBlocksTask(A: StrandTaskArgs, from: number, to: number): void {
  const t = instanceOf(A);
  const ex = t.ex,
    par = A.par,
    L = A.lay,
    blk = A.blk,
    res = A.res;
  const ti = threadIndex();
  const X = L[L_X],
    P = L[L_P],
    V = L[L_V],
    W = L[L_W],
    TF = L[L_F];
  const TA = L[L_TA] + ti * L[L_ASTRIDE],
    TL = L[L_TA] + (L[L_THREADS] + ti) * L[L_ASTRIDE],
    corr = L[L_CORR] + ti * L[L_CSTRIDE],
    counts = L[L_COUNTS] + 8 * ti;
  const epoch = par[P_EPOCH],
    h = par[P_H],
    invH = par[P_INVH],
    reach = par[P_REACH],
    gen = par[P_GEN] === 1;
  const p = t.p,
    held = t.held,
    entry = t.entry,
    target = t.target,
    anchor = t.anchor;
  // the roots' motion (rootTargets' numbers), where they all follow one
  const moved = par[P_MOTION] === 1,
    qx = par[P_Q],
    qy = par[P_Q + 1],
    qz = par[P_Q + 2],
    qw = par[P_Q + 3],
    cx = par[P_C],
    cy = par[P_C + 1],
    cz = par[P_C + 2],
    rx = par[P_T],
    ry = par[P_T + 1],
    rz = par[P_T + 2],
    v = turned;
  for (let j = from; j < to; j++) {
    const b8 = B_STRIDE * j,
      r4 = R_STRIDE * j;
    const f = blk[b8],
      s0 = blk[b8 + 1],
      s1 = blk[b8 + 2],
      a = blk[b8 + 3],
      b = blk[b8 + 4];
    const tl = A.tl;
    if (tl !== null) {
      tl[2 + 3 * j] = ti;
      tl[3 + 3 * j] = stamp();
    }
    // the old list's contactOf of the block's particles (ColliderContacts.clear's loop, on the blocks)
    if (par[P_CLEAR] === 1) t.of.fill(-1, a, b);
    ex.predict(X, P, V, W, h, par[P_G], par[P_G + 1], par[P_G + 2], par[P_FD], par[P_VMAX], a, b);
    // the roots' targets of the block: computed here where they follow one motion (rootTargets'
    // operations in its order, so its numbers: Motion.apply's), then put on p (fused-pass.ts putTargets)
    for (let k = blk[b8 + 5], k1 = blk[b8 + 6]; k < k1; k++) {
      const i3 = 3 * held[k],
        e3 = 3 * entry[k];
      if (moved) {
        rotateByParts(v, 0, qx, qy, qz, qw, anchor[e3] - cx, anchor[e3 + 1] - cy, anchor[e3 + 2] - cz);
        target[e3] = v[0] + cx + rx;
        target[e3 + 1] = v[1] + cy + ry;
        target[e3 + 2] = v[2] + cz + rz;
      }
      p[i3] = target[e3];
      p[i3 + 1] = target[e3 + 1];
      p[i3 + 2] = target[e3 + 2];
    }
    let n = 0,
      at = -1;
    res[r4 + 3] = 0;
    if (gen && par[P_STAGE] === 0) {
      // the block's place in the list where every block before it has published its count (mostly:
      // blocks are claimed in order and publish early), else the staging list's slot a
      at = par[P_K0];
      for (let i = 0; i < j; i++) {
        if (Atomics.load(A.done, i) !== epoch) {
          at = -1;
          break;
        }
        at += res[R_STRIDE * i];
      }
    }
    const TC = at >= 0 ? TL : TA,
      c0 = at >= 0 ? at : a;
    res[r4 + 4] = gen && at < 0 ? 1 : 0;
    if (gen) {
      // the contacts from slot c0 on (a particle has one at most)
      t.cells[2 * ti] = c0;
      for (let i = a; ; ) {
        const stop = ex.sphereContacts(TC, TF, i, b);
        if (stop < 0) break;
        // only a point too deep for the plan (never in a plan that passed fused-pass.ts onePass,
        // whose substep resolves the sphere's whole radius): left out here, and the caller throws
        res[r4 + 3] = stop + 1;
        i = stop + 1;
      }
      n = t.cells[2 * ti] - c0;
    }
    res[r4] = n;
    markDone(A.done, j, epoch);
    if (gen) ex.projectSphereContacts(TC, TF, c0, c0 + n);
    const S = L[L_SETS + 2 * f],
      R = L[L_SETS + 2 * f + 1],
      damp = par[P_SETS + 2 * f];
    ex.ftl(P, X, W, S, R, corr, par[P_SETS + 2 * f + 1], 1, s0, s1, a);
    ex.update(X, P, V, invH, reach, a, b, counts);
    res[r4 + 1] = t.counts[2 * ti];
    res[r4 + 2] = t.counts[2 * ti + 1];
    if (gen) ex.endSphereContacts(TC, TF, c0, c0 + n);
    if (damp !== 0) ex.dftl(V, W, S, corr, damp, s0, s1, a);
    if (gen && at < 0) {
      // the block's place in the list: after the contacts of every block before it
      let to = par[P_K0];
      for (let i = 0; i < j; i++) {
        awaitBlock(A.done, i, epoch);
        to += res[R_STRIDE * i];
      }
      ex.moveContacts(TA, L[L_A], a, n, to);
    }
    if (tl !== null) tl[4 + 3 * j] = stamp();
  }
}

/**
 * The attachments' targets of entries entry[0, n), which all follow `motion` (evaluated): its
 * apply's operations on each anchor, so the numbers of Attachments.beginStep, without its writes of p (the blocks
 * put the targets on p after their prediction) or its per-entry checks: the one-thread pass
 * (fused-pass.ts runOnePass, which puts `target` on p block by block). On the pool each block
 * computes its own roots' the same way (strandBlocksTask).
 */
export function rootTargets(
  motion: Motion,
  anchor: Float64Array,
  target: Float64Array,
  entry: Int32Array,
  n: number,
): void {
  // Motion.apply's operations (quatRotate of the anchor less the centre, then the centre and the
  // translation added) with the motion's numbers read once: 0.07 ms less than its call per root
  const q = motion.rotation,
    c = motion.center,
    tr = motion.translation,
    v = turned;
  const qx = q[0],
    qy = q[1],
    qz = q[2],
    qw = q[3],
    cx = c[0],
    cy = c[1],
    cz = c[2],
    rx = tr[0],
    ry = tr[1],
    rz = tr[2];
  for (let k = 0; k < n; k++) {
    const e3 = 3 * entry[k];
    rotateByParts(v, 0, qx, qy, qz, qw, anchor[e3] - cx, anchor[e3 + 1] - cy, anchor[e3 + 2] - cz);
    target[e3] = v[0] + cx + rx;
    target[e3 + 1] = v[1] + cy + ry;
    target[e3 + 2] = v[2] + cz + rz;
  }
}

/** rootTargets' and the blocks' turned anchor (one per thread: each has its own module). */
const turned = new Float64Array(3);

/** The attachments' arrays the pool's memory takes over (core/attachments.ts adoptAnchors). */
export interface RootArrays {
  target: Float64Array;
  anchor: Float64Array;
  adoptAnchors(target: Float64Array, anchor: Float64Array): void;
}

/** A SharedArrayBuffer-backed array of n zeros. */
function sharedI32(n: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * Math.max(1, n)));
}

/**
 * The calling thread's side: the task, its arguments for the kernel memory the strand kernel holds,
 * and the substep's numbers. `run` returns the list's count after the pass.
 */
export class StrandPool {
  /** Substeps whose blocks ran on the pool, and those the calling thread ran alone (arguments not sent yet). */
  pooled = 0;
  alone = 0;
  /** Blocks whose contacts went through the staging list; `stageAll`: every block's (tests). */
  staged = 0;
  stageAll = false;
  /** Set before the first run (probes): each pass's timeline in the task's `tl` (see StrandTaskArgs). */
  timeline = false;
  private task: SharedTask = { kind: 'strand-blocks', args: {}, version: 0 };
  private args: StrandTaskArgs | null = null;
  private memory: WebAssembly.Memory | null = null;
  private sets: FollowTheLeader[] = [];
  private starts: Int32Array[] = [];
  private blocks = 0;
  private epoch = 0;
  /** The memory's held particles and their entries, the attachments' targets and anchors (views). */
  private held: Int32Array = new Int32Array(0);
  private entry: Int32Array = new Int32Array(0);
  private target: Float64Array = new Float64Array(0);
  private anchor: Float64Array = new Float64Array(0);
  /** The held list (its `listVersion`) whose copy and block ranges the memory holds (−1: none). */
  private listVersion = -1;
  /** The threads' address tables (Int32 view). */
  private tables: Int32Array = new Int32Array(0);
  /** The substep's numbers (`substep`). */
  private readonly num = new Float64Array(8);

  /** The next `run`'s substep numbers: h, g·h, the damping factor, vmax, 1/h and vmax·h. */
  substep(
    h: number,
    gx: number,
    gy: number,
    gz: number,
    fd: number,
    vmax: number,
    invH: number,
    reach: number,
  ): void {
    // once a substep (not per particle): the one small array is no hot-loop allocation
    this.num.set([h, gx, gy, gz, fd, vmax, invH, reach]);
  }

  /** Blocks of the last pass. */
  get blockCount(): number {
    return this.blocks;
  }

  /** The arguments for K's memory and these sets in blocks of `block` strands (made again when they changed). */
  private argsFor(K: StrandKernel, sets: FollowTheLeader[], block: number): StrandTaskArgs {
    let same = this.args !== null && this.memory === K.memory && sets.length === this.sets.length;
    for (let f = 0; same && f < sets.length; f++)
      same = sets[f] === this.sets[f] && sets[f].start === this.starts[f];
    if (same) return this.args as StrandTaskArgs;
    // blocks of `block` strands, a set's last 2 · block or fewer in quarter blocks: the threads end a
    // pass within about a quarter block of each other (blocks of different sizes give the same numbers)
    const cuts: number[] = [];
    for (let f = 0; f < sets.length; f++) {
      const ns = sets[f].start.length - 1;
      for (let s0 = 0; s0 < ns; ) {
        const s1 = Math.min(ns, s0 + (ns - s0 > 2 * block ? block : Math.max(1, block >> 2)));
        cuts.push(f, s0, s1);
        s0 = s1;
      }
    }
    const nb = cuts.length / 3;
    const blk = sharedI32(B_STRIDE * nb);
    for (let j = 0; j < nb; j++) {
      const f = cuts[3 * j],
        s0 = cuts[3 * j + 1],
        s1 = cuts[3 * j + 2];
      const start = sets[f].start;
      blk.set([f, s0, s1, start[s0], start[s1]], B_STRIDE * j);
    }
    const lay = sharedI32(L_SETS + 2 * sets.length);
    lay.set([
      K.x,
      K.p,
      K.v,
      K.w,
      K.A,
      K.F,
      K.threadA,
      K.threadCell,
      K.threadCounts,
      K.threadCorr,
      K.corrStride,
    ]);
    lay[L_HELD] = K.heldAt;
    lay[L_TARGET] = K.targetAt;
    lay[L_HELDN] = K.heldCapacity;
    lay[L_ENTRY] = K.entryAt;
    lay[L_ANCHOR] = K.anchorAt;
    lay[L_ASTRIDE] = (4 * A_SLOTS + 7) & ~7;
    lay[L_THREADS] = K.threads;
    for (let f = 0; f < sets.length; f++) {
      lay[L_SETS + 2 * f] = K.start[f];
      lay[L_SETS + 2 * f + 1] = K.rest[f];
    }
    const memory = K.memory as WebAssembly.Memory;
    this.args = {
      module: K.module as WebAssembly.Module,
      memory,
      par: new Float64Array(new SharedArrayBuffer(8 * (P_SETS + 2 * sets.length))),
      lay,
      blk,
      res: sharedI32(R_STRIDE * nb),
      done: sharedI32(nb),
      tl: this.timeline ? new Float64Array(new SharedArrayBuffer(8 * (2 + 3 * nb))) : null,
    };
    this.task.args = this.args as unknown as Record<string, unknown>;
    this.task.version++;
    this.memory = memory;
    this.sets = sets.slice();
    this.starts = sets.map((s) => s.start);
    this.blocks = nb;
    this.held = new Int32Array(memory.buffer, K.heldAt, K.heldCapacity);
    this.entry = new Int32Array(memory.buffer, K.entryAt, K.heldCapacity);
    this.target = new Float64Array(memory.buffer, K.targetAt, 3 * K.heldCapacity);
    this.anchor = new Float64Array(memory.buffer, K.anchorAt, 3 * K.heldCapacity);
    this.listVersion = -1;
    this.tables = new Int32Array(memory.buffer, K.threadA, (2 * K.threads * lay[L_ASTRIDE]) >> 2);
    return this.args;
  }

  /**
   * The substep's blocks (fused-pass.ts runKernels' loop) on the pool, with the numbers `substep`
   * gave; `gen`: whether the sphere's contacts are made (by the kernels); `clearOf`: whether the
   * blocks put their particles' contactOf back to −1 (the caller skipped clear's loop); the
   * roots held[0, heldCount) with their attachments' entries, a list copied into the memory (with
   * each block's range of it) only when `listVersion` changed; `roots` the attachments, whose target
   * and anchor arrays the memory takes over (adoptAnchors) so that the blocks read and write them;
   * `motion` the one motion of every root (evaluated; the blocks compute the targets) or null (the
   * targets are there); k0 the list's count before. Adds the update's counts to `stats`.
   */
  run(
    tasks: TaskRunner,
    K: StrandKernel,
    sets: FollowTheLeader[],
    block: number,
    gen: boolean,
    clearOf: boolean,
    k0: number,
    held: Int32Array,
    entry: Int32Array,
    heldCount: number,
    listVersion: number,
    roots: RootArrays,
    motion: Motion | null,
    stats: { recoveries: number; speedClamps: number },
  ): number {
    const A = this.argsFor(K, sets, block);
    const num = this.num;
    const nb = this.blocks,
      blk = A.blk,
      par = A.par;
    // the attachments' targets and anchors in the memory (copied once, then theirs)
    if (heldCount > 0 && (roots.target !== this.target || roots.anchor !== this.anchor))
      roots.adoptAnchors(this.target, this.anchor);
    // the held list in the memory and each block's range of it (held is in particle order), while it
    // is the same list the memory holds it already
    if (listVersion !== this.listVersion) {
      this.held.set(held.subarray(0, heldCount));
      this.entry.set(entry.subarray(0, heldCount));
      let k = 0;
      for (let j = 0; j < nb; j++) {
        const b = blk[B_STRIDE * j + 4];
        blk[B_STRIDE * j + 5] = k;
        while (k < heldCount && held[k] < b) k++;
        blk[B_STRIDE * j + 6] = k;
      }
      this.listVersion = listVersion;
    }
    par[P_MOTION] = motion !== null ? 1 : 0;
    if (motion !== null) {
      const q = motion.rotation,
        c = motion.center,
        tr = motion.translation;
      for (let j = 0; j < 4; j++) par[P_Q + j] = q[j];
      for (let j = 0; j < 3; j++) {
        par[P_C + j] = c[j];
        par[P_T + j] = tr[j];
      }
    }
    this.epoch = nextEpoch(this.epoch);
    par[P_EPOCH] = this.epoch;
    par.set(num, P_H);
    par[P_GEN] = gen ? 1 : 0;
    par[P_K0] = k0;
    par[P_STAGE] = this.stageAll ? 1 : 0;
    par[P_CLEAR] = clearOf ? 1 : 0;
    for (let f = 0; f < sets.length; f++) {
      par[P_SETS + 2 * f] = sets[f].damping * num[6];
      par[P_SETS + 2 * f + 1] = sets[f].maxStretch;
    }
    // each thread's table: this substep's collider and substep
    const tables = this.tables;
    const stride = A.lay[L_ASTRIDE] >> 2;
    for (let t = 0; t < 2 * K.threads; t++) {
      tables[t * stride + A_COLLIDER] = K.table[A_COLLIDER];
      tables[t * stride + A_SUBSTEP] = K.table[A_SUBSTEP];
    }
    if (A.tl !== null) A.tl[0] = stamp();
    if (tasks.runTask(this.task, nb, nb)) this.pooled++;
    else {
      strandBlocksTask(A, 0, nb);
      this.alone++;
    }
    if (A.tl !== null) A.tl[1] = stamp();
    const res = A.res;
    let n = 0;
    for (let j = 0; j < nb; j++) {
      const r4 = R_STRIDE * j;
      if (res[r4 + 3] !== 0)
        throw new Error(
          `strand pass: particle ${res[r4 + 3] - 1} lies deeper in the sphere than the plan allows`,
        );
      n += res[r4];
      this.staged += res[r4 + 4];
      stats.recoveries += res[r4 + 1];
      stats.speedClamps += res[r4 + 2];
    }
    return k0 + n;
  }
}
