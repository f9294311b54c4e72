/**
 * The block sizes of a threaded sweep's table (src/wasm/element-threads.ts, element-order.ts) where
 * the set's particle window is small (session 21, sw28, issue 20: docs/solver.md "Session 21").
 *
 * With the default sizes (copy blocks of PARTICLES_PER_BLOCK = 4,096 particles, colour blocks of
 * GROUPS_PER_BLOCK = 256 groups) a window of under two copy blocks — a 6,000-particle cloth — has
 * one full copy block and a short one, and a colour of a few hundred groups is one or two blocks:
 * the next colour's blocks depend on both, so the table is nearly a chain (the bench cloth's
 * stretch-then-bending joint table: a critical path of 0.37 of its groups, 0.46 weighted by the
 * kernels' costs) and the parts of two threads meet at every colour. Here the copy blocks are
 * range / threads particles (each thread has one), and the colour blocks the largest of
 * GROUPS_PER_BLOCK, /2, /4, /8 whose table's critical path is at most its work / (2 · threads):
 * a function of the table alone (its blocks, their items, their dependencies). Which blocks a
 * table has never changes a bit (element-order.ts: every particle sees the blocks that touch it
 * in the serial order), so the sizes may depend on the thread count.
 */

import { MAX_BLOCKS } from '../core/step-context.js';
import {
  fusedSweepTable,
  type JointArgs,
  jointSweepTable,
  MAX_JOINT_BLOCKS,
  partTable,
  segmentOf,
  sharedI32,
  sharedTable,
} from './element-order.js';
import type { PairedCopy } from './paired.js';

/** How many times the largest colour-block size is halved at most (256 → 32 groups). */
const HALVINGS = 3;
/** A particle of a window copy weighs this many groups in the critical path (~1.5 ns against 15–60 ns a group). */
const COPY_WEIGHT = 1 / 16;

/**
 * The work of fused or joint table T (groups of its colour blocks, plus its copies' particles
 * weighted COPY_WEIGHT) and its critical path: the heaviest chain of blocks along the
 * dependencies, the time of the sweep on unboundedly many threads.
 */
export function criticalPath(T: Int32Array): { work: number; path: number } {
  const nb = T[0];
  const finish = new Float64Array(nb);
  let work = 0,
    path = 0;
  for (let k = 0; k < nb; k++) {
    const op = T[1 + k];
    const items = T[1 + 2 * nb + k] - T[1 + nb + k];
    const w = op === 0 || op === 2 ? COPY_WEIGHT * items : items;
    let start = 0;
    for (let i = 2 + 5 * nb + T[1 + 4 * nb + k]; i < 2 + 5 * nb + T[2 + 4 * nb + k]; i++)
      start = Math.max(start, finish[T[i]]);
    finish[k] = start + w;
    work += w;
    path = Math.max(path, finish[k]);
  }
  return { work, path };
}

/**
 * The copy- and colour-block sizes of the sweep of `copies` (one set, or a joint sweep's two on
 * one window) on `threads` threads: `particles` and `groups` (element-threads.ts's defaults)
 * where the window spans two copy blocks at least, else the small window's (module comment), the
 * tables forward and backward both within `maxBlocks`; and the colours' split (jointSweepTable):
 * on a large window, `perThread` blocks a thread per colour (session 23, bk30: a big cloth's
 * colour of thousands of groups in a few large blocks, a mid-size one's still in blocks of
 * `groups`), 0 (none) on a small one or one thread.
 */
export function sweepBlockSizes(
  copies: readonly PairedCopy<unknown>[],
  threads: number,
  particles: number,
  groups: number,
  maxBlocks: number,
  perThread = 0,
): [number, number, number] {
  const win = copies[0].win;
  const range = win.range;
  if (threads < 2) return [particles, groups, 0];
  if (range >= 2 * particles) return [particles, groups, perThread * threads];
  const per = Math.ceil(range / threads);
  const segs = (reverse: boolean) => copies.map((k) => segmentOf(k, reverse));
  let chosen = groups;
  for (let h = 0, g = groups; h <= HALVINGS; h++, g = Math.ceil(g / 2)) {
    let fits = true,
      short = true;
    for (const reverse of [false, true]) {
      const T = jointSweepTable(segs(reverse), range, per, g, win.f32, maxBlocks);
      if (T === null) {
        fits = false;
        break;
      }
      const { work, path } = criticalPath(T);
      if (2 * threads * path > work) short = false;
    }
    if (!fits) break;
    chosen = g;
    if (short) break;
  }
  return [per, chosen, 0];
}

/** A set's fused tables, forward and backward (null where they do not fit one job), with the sizes of sweepBlockSizes. */
export function fusedTables(
  k: PairedCopy<unknown>,
  threads: number,
  particles: number,
  groups: number,
  perThread = 0,
): [Int32Array | null, Int32Array | null] {
  const [ppb, gpb, split] = sweepBlockSizes([k], threads, particles, groups, MAX_BLOCKS, perThread);
  const { idx, colorPairs, lanes, arity } = segmentOf(k, false);
  const table = (reverse: boolean) =>
    fusedSweepTable(idx, colorPairs, lanes, arity, k.win.range, reverse, ppb, gpb, k.win.f32, split);
  return [table(false), table(true)];
}

/**
 * The joint sweep of copy a's set then b's (arguments `next`) on `threads` threads, with the sizes
 * of sweepBlockSizes (the joint table's blocks at most MAX_JOINT_BLOCKS), or null where it does not
 * fit or would run on one.
 */
export function blockedJointArgs<T>(
  a: PairedCopy<unknown>,
  b: PairedCopy<unknown>,
  next: T,
  threads: number,
  particles: number,
  groups: number,
  perThread = 0,
): JointArgs<T> | null {
  const [ppb, gpb, split] = sweepBlockSizes([a, b], threads, particles, groups, MAX_JOINT_BLOCKS, perThread);
  const table = (reverse: boolean) =>
    jointSweepTable(
      [segmentOf(a, reverse), segmentOf(b, reverse)],
      a.win.range,
      ppb,
      gpb,
      a.win.f32,
      MAX_JOINT_BLOCKS,
      split,
    );
  const fwd = table(false),
    back = table(true);
  if (fwd === null || back === null || threads < 2) return null;
  const nb = Math.max(fwd[0], back[0]);
  return {
    next,
    fwd: sharedTable(fwd),
    back: sharedTable(back),
    parts: sharedTable(partTable(fwd, threads)),
    partsBack: sharedTable(partTable(back, threads)),
    done: sharedI32(nb),
    claim: sharedI32(nb),
    counts: sharedI32(2 * nb),
  };
}
