/**
 * One job for a whole threaded sweep of an element set (src/wasm/element-threads.ts):
 * the blocks of the window's copy in, of every colour in the sweep's order
 * and of the copy out, in that serial order, each waiting only for the
 * earlier blocks that touch its particles, instead of one job per colour
 * with a barrier between colours.
 *
 * Why the bits are those of one thread: a block of the sweep reads and
 * writes only its own particles (a colour's constraints share none, 000
 * §3.8, so a block of groups is the serial loop over them; a copy block
 * moves its particles). For each particle, the blocks that touch it form a
 * chain in serial order, and each block here depends on the last earlier
 * block that touched each of its particles (`lastToucher`), so every
 * particle sees the blocks that touch it in the serial order, whatever
 * thread runs them and whenever the others run: the values each block
 * reads are those of the serial sweep. The blocks are claimed in serial
 * order, so a block's dependencies are all claimed before it and the
 * waiting ends (no cycle).
 *
 * The f32 blocks gather their particles into the colour's scratch at
 * their place in the colour (64 · arity bytes per quad from the block's
 * first quad less the colour's first), so two blocks of different colours
 * at the same place must not run at once either: with `scratch`, each
 * quad's place in its colour is one more thing a block touches, ordered
 * like a particle.
 *
 * The table is an Int32Array: [nb, op × nb, from × nb, to × nb, first × nb,
 * depStart × (nb + 1), deps…]; op LOAD (particles [from, to) of the window
 * in), COLOUR (groups [from, to), in the plan's numbering, of the colour
 * whose first group is `first`), SAVE (the particles out); a joint table's
 * second set's colour blocks are COLOUR2. A function of
 * the set's layout and the block sizes asked for (which element-threads-small.ts may choose by
 * the thread count: the bits never depend on them).
 */

import { awaitBlock, claimBlock, threadIndex } from '../core/block-order.js';
import { MAX_BLOCKS } from '../core/step-context.js';
import type { PairedCopy } from './paired.js';

/** Ops of a fused block (element-threads.ts uses the same numbers). */
export const FUSED_LOAD = 0;
export const FUSED_COLOUR = 1;
export const FUSED_SAVE = 2;
/** A colour block of the second set of a joint table (jointSweepTable). */
export const FUSED_COLOUR2 = 3;

/**
 * The fused sweep's table (see the module's comment), or null when its
 * blocks would not fit in one job. `idx`: the window-relative particle
 * indices of the groups (vertex v of lane l of group j at
 * idx[L·arity·j + L·v + l]; `range` for a padding lane, which touches only
 * the window's spare slot and is not ordered); `colorPairs`: each colour's
 * first group; `range`: the window's particles.
 */
export function fusedSweepTable(
  idx: Int32Array,
  colorPairs: Int32Array | readonly number[],
  lanes: number,
  arity: number,
  range: number,
  reverse: boolean,
  particlesPerBlock: number,
  groupsPerBlock: number,
  scratch = false,
  split = 0,
): Int32Array | null {
  return jointSweepTable(
    [{ idx, colorPairs, lanes, arity, reverse }],
    range,
    particlesPerBlock,
    groupsPerBlock,
    scratch,
    MAX_BLOCKS,
    split,
  );
}

/** One set's sweep in a joint table (jointSweepTable): its groups' particles, colours, layout and direction. */
export interface SweepSegment {
  idx: Int32Array;
  colorPairs: Int32Array | readonly number[];
  lanes: number;
  arity: number;
  reverse: boolean;
}

/**
 * The sweeps of several sets on one window (a cloth's stretch and bending
 * sets share one kernel memory and window: src/wasm/paired.ts pairedGroup)
 * one after the other as one table (session 16, pool21): the window's copy
 * in, every colour of segment 0, then of segment 1 (op FUSED_COLOUR + s,
 * s > 0 as FUSED_COLOUR2…), the copy out. The dependencies are built as for
 * one sweep (each block on the last earlier block that touched each of its
 * particles, whatever segment), so a segment's first blocks start while the
 * last ones of the one before run, where they touch other particles. Each
 * set has its own f32 scratch (paired.ts: arena.take per copy), so each
 * segment's scratch places are its own. `maxBlocks`: the table's blocks at most (a job
 * run in parts is not bound by the pool's MAX_BLOCKS). `split` (session 23, bk30, issue 20): where
 * over 0, a colour of n groups is cut into blocks of max(per, ⌈n / split⌉) groups — `split`
 * blocks where its groups allow, `per` (groupsPerBlock, or larger where the table would not fit)
 * at least — so a large colour is a few large blocks (fewer claims, done flags and dependency
 * reads) and a small one keeps `per`; which blocks a table has changes no bit (module comment).
 */
export function jointSweepTable(
  segs: readonly SweepSegment[],
  range: number,
  particlesPerBlock: number,
  groupsPerBlock: number,
  scratch = false,
  maxBlocks = MAX_BLOCKS,
  split = 0,
): Int32Array | null {
  if (segs.length > 2) throw new Error('a joint sweep table takes two sets at most');
  const copies = Math.ceil(range / particlesPerBlock);
  let colours = 0,
    groups = 0;
  for (const g of segs) {
    const c = g.colorPairs.length - 1;
    if (c <= 0) return null;
    colours += c;
    groups += g.colorPairs[c] - g.colorPairs[0];
  }
  const room = maxBlocks - 2 * copies - colours;
  if (room <= 0 || colours <= 0) return null;
  // groups per block: as aimed at, larger where the blocks would not fit in one job
  const per = Math.max(groupsPerBlock, Math.ceil(groups / room));
  const op: number[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const first: number[] = [];
  const seg: number[] = [];
  // per segment: its largest colour, and where its scratch places start among the things touched
  const largest = new Int32Array(segs.length);
  const placeAt = new Int32Array(segs.length + 1);
  // the window's copies in (FUSED_LOAD) or out (FUSED_SAVE): one block per particlesPerBlock particles
  const copyBlocks = (kind: number): void => {
    for (let b = 0; b < copies; b++) {
      op.push(kind);
      from.push(b * particlesPerBlock);
      to.push(Math.min(range, (b + 1) * particlesPerBlock));
      first.push(0);
      seg.push(0);
    }
  };
  copyBlocks(FUSED_LOAD);
  for (let g = 0; g < segs.length; g++) {
    const cp = segs[g].colorPairs;
    const cs = cp.length - 1;
    for (let s = 0; s < cs; s++) {
      const c = segs[g].reverse ? cs - 1 - s : s;
      largest[g] = Math.max(largest[g], cp[c + 1] - cp[c]);
      const size = split > 0 ? Math.max(per, Math.ceil((cp[c + 1] - cp[c]) / split)) : per;
      for (let j = cp[c]; j < cp[c + 1]; j += size) {
        op.push(g === 0 ? FUSED_COLOUR : FUSED_COLOUR2 + g - 1);
        from.push(j);
        to.push(Math.min(cp[c + 1], j + size));
        first.push(cp[c]);
        seg.push(g);
      }
    }
  }
  copyBlocks(FUSED_SAVE);
  const nb = op.length;
  if (nb > maxBlocks) return null;
  // per particle the last block that touched it; per block its distinct dependencies
  // particles, then (scratch) the places of the colours' quads
  placeAt[0] = range;
  for (let g = 0; g < segs.length; g++) placeAt[g + 1] = placeAt[g] + (scratch ? largest[g] : 0);
  const things = placeAt[segs.length];
  const last = new Int32Array(things).fill(-1);
  const seen = new Int32Array(nb).fill(-1);
  const depStart = [0];
  const deps: number[] = [];
  const touch = (i: number, k: number): void => {
    if (i < 0 || i >= things) return;
    const d = last[i];
    if (d >= 0 && d !== k && seen[d] !== k) {
      seen[d] = k;
      deps.push(d);
    }
    last[i] = k;
  };
  for (let k = 0; k < nb; k++) {
    if (op[k] !== FUSED_LOAD && op[k] !== FUSED_SAVE) {
      const { idx, lanes, arity } = segs[seg[k]];
      const ga = lanes * arity;
      for (let t = ga * from[k]; t < ga * to[k]; t++) if (idx[t] < range) touch(idx[t], k);
      if (scratch) for (let j = from[k]; j < to[k]; j++) touch(placeAt[seg[k]] + j - first[k], k);
    } else {
      for (let i = from[k]; i < to[k]; i++) touch(i, k);
    }
    depStart.push(deps.length);
  }
  const table = new Int32Array(1 + 4 * nb + nb + 1 + deps.length);
  table[0] = nb;
  table.set(op, 1);
  table.set(from, 1 + nb);
  table.set(to, 1 + 2 * nb);
  table.set(first, 1 + 3 * nb);
  table.set(depStart, 1 + 4 * nb);
  table.set(deps, 2 + 5 * nb);
  return table;
}

/** The fused table's fields of block k (for the task kernel and the tests). */
export function fusedBlock(
  t: Int32Array,
  k: number,
): { op: number; from: number; to: number; first: number; deps: Int32Array } {
  const nb = t[0];
  const ds = 1 + 4 * nb;
  return {
    op: t[1 + k],
    from: t[1 + nb + k],
    to: t[1 + 2 * nb + k],
    first: t[1 + 3 * nb + k],
    deps: t.subarray(2 + 5 * nb + t[ds + k], 2 + 5 * nb + t[ds + k + 1]),
  };
}

/**
 * The parts of a fused sweep's blocks for `parts` threads: each run of
 * blocks of one op and colour (the window's copies in, each colour, the
 * copies out) cut into `parts` contiguous pieces, part p taking piece p of
 * every run. A colour's blocks follow the cloth's rows (its groups are in
 * particle order) as do the copies' blocks, so a part keeps to about the
 * same particles in every colour. The cuts balance the parts' work over the
 * sweep, not run by run (session 16): each cut is placed where the items
 * (groups, or particles of the copies) of parts < p, summed over the runs of
 * that op so far, come nearest p/parts of the op's items so far, so that a
 * run's odd block goes to the part that is behind (before, the last part took
 * it in every run: 30,442 of the 201 × 201 bending sweep's 59,804 groups, 4
 * blocks more than the calling thread's part). [parts, start × (parts + 1), blocks…].
 */
export function partTable(T: Int32Array, parts: number): Int32Array {
  const nb = T[0];
  const out = new Int32Array(2 + parts + nb);
  out[0] = parts;
  // per op (LOAD, COLOUR, SAVE, COLOUR2): its items so far, and per cut p the items of parts < p so far
  const total = new Float64Array(4);
  const below = new Float64Array(4 * (parts + 1));
  // per run: its cuts (block numbers), cut p starting piece p
  const cuts = new Int32Array(parts + 1);
  const pieces: number[][] = [];
  for (let p = 0; p < parts; p++) pieces.push([]);
  for (let a = 0; a < nb; ) {
    let z = a + 1;
    while (z < nb && T[1 + z] === T[1 + a] && T[1 + 3 * nb + z] === T[1 + 3 * nb + a]) z++;
    const op = T[1 + a];
    let items = 0;
    for (let k = a; k < z; k++) items += T[1 + 2 * nb + k] - T[1 + nb + k];
    total[op] += items;
    cuts[0] = a;
    cuts[parts] = z;
    for (let p = 1; p < parts; p++) {
      const target = (p * total[op]) / parts - below[op * (parts + 1) + p];
      // the block boundary at or after the last cut whose items before it come nearest the target
      let c = cuts[p - 1],
        sum = 0;
      for (let k = a; k < cuts[p - 1]; k++) sum += T[1 + 2 * nb + k] - T[1 + nb + k];
      while (c < z) {
        const w = T[1 + 2 * nb + c] - T[1 + nb + c];
        if (Math.abs(sum + w - target) >= Math.abs(sum - target)) break;
        sum += w;
        c++;
      }
      cuts[p] = c;
      below[op * (parts + 1) + p] += sum;
    }
    for (let p = 0; p < parts; p++) for (let k = cuts[p]; k < cuts[p + 1]; k++) pieces[p].push(k);
    a = z;
  }
  let at = 2 + parts;
  for (let p = 0; p < parts; p++) {
    out[1 + p] = at;
    for (const k of pieces[p]) out[at++] = k;
  }
  out[1 + parts] = at;
  return out;
}

/** Blocks of a joint sweep's table at most (run in parts: one item per thread, not bound by MAX_BLOCKS). */
export const MAX_JOINT_BLOCKS = 512;

/**
 * Two sets' sweeps on one window as one job (ElementThreads.sweep defers the first where the next
 * projection is the second's): the second set's arguments, the joint tables forward and backward
 * (jointSweepTable) and their parts, and the job's own done, claim and counts.
 */
export interface JointArgs<T> {
  /** The second set's task arguments (element-threads.ts ElementArgs). */
  next: T;
  fwd: Int32Array;
  back: Int32Array;
  parts: Int32Array;
  partsBack: Int32Array;
  done: Int32Array;
  claim: Int32Array;
  counts: Int32Array;
}

/** The sweep's segment of copy `k`: its groups' particles, colours and layout, in the order of `reverse`. */
export function segmentOf(k: PairedCopy<unknown>, reverse: boolean): SweepSegment {
  const p = k.plan;
  return {
    idx: new Int32Array(k.memory.buffer, k.addr.idx, p.lanes * p.arity * p.pairs),
    colorPairs: p.colorPairs,
    lanes: p.lanes,
    arity: p.arity,
    reverse,
  };
}

export function sharedI32(n: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * n));
}

/** A table on shared memory (the workers read it), or an empty one for null. */
export function sharedTable(t: Int32Array | null): Int32Array {
  const s = sharedI32(t === null ? 0 : t.length);
  if (t !== null) s.set(t);
  return s;
}

/**
 * This thread's dependency waits inside fused sweeps run in parts (element-threads.ts runFused: a
 * block claimed by another thread and not yet done): their number and ms, for
 * bench/thread-profile.ts (the calling thread's; each worker has its own). Session 16, part20.
 * `ahead`: the blocks it ran instead of waiting (element-threads.ts readyBlock; session 19, thr26).
 */
export const FusedWaits = { ms: 0, n: 0, ahead: 0 };

/** Unclaimed blocks a look-ahead examines at most (readyBlock). */
const LOOK_AHEAD = 24;

/**
 * The first unclaimed block of fused table T, in serial order, whose dependencies are all done in
 * this sweep, among the first LOOK_AHEAD unclaimed ones, claimed for this thread; -1 if none. Such
 * a block waits for nothing, and its numbers are those of the serial sweep wherever and whenever it
 * runs (its dependencies fix them: the module's comment), so running it while another thread finishes a
 * block this thread needs changes no bit.
 */
export function readyBlock(T: Int32Array, done: Int32Array, claim: Int32Array, epoch: number): number {
  const nb = T[0];
  let seen = 0;
  for (let k = 0; k < nb && seen < LOOK_AHEAD; k++) {
    if (Atomics.load(claim, k) === epoch) continue;
    seen++;
    const d0 = 2 + 5 * nb + T[1 + 4 * nb + k],
      d1 = 2 + 5 * nb + T[2 + 4 * nb + k];
    let ready = true;
    for (let i = d0; i < d1 && ready; i++) ready = Atomics.load(done, T[i]) === epoch;
    if (ready && claimBlock(claim, k, epoch)) {
      FusedWaits.ahead++;
      return k;
    }
  }
  return -1;
}

/**
 * Per-thread figures of the fused sweeps where a sweep is timed (session 17, thr22: where two
 * threads' extra CPU goes; bench/thread-profile.ts), STAT_SLOTS Float64 slots per thread index
 * (below STAT_THREADS) on one shared array that every set's arguments carry (ElementArgs.stats):
 * ms in colour blocks and their groups, ms in window copies and their particles, ms and count of
 * dependency waits and the loads those waits spun, then six histograms of the blocks' own rates
 * (a block's ms per item, weighted by its items: robust to a thread descheduled in a few blocks on
 * a loaded machine): the first set's colour blocks and a joint sweep's second set's by ns per
 * group in bins of ST_GROUP_BIN ns, the copy blocks by ns per particle in bins of ST_COPY_BIN ns,
 * ST_BINS bins each (the last takes the rest); the first three of blocks during which another
 * thread was in a block at the start and at the end (ST_BUSY), the last three of the others.
 * Each thread writes its own slots only.
 */
export const ST_WORK = 0;
export const ST_GROUPS = 1;
export const ST_COPY = 2;
export const ST_PARTICLES = 3;
export const ST_WAIT = 4;
export const ST_WAITS = 5;
export const ST_LOADS = 6;
/** 1 while this thread runs a timed block; ST_OTHERS: whether another was, at the block's start. */
export const ST_BUSY = 7;
const ST_OTHERS = 8;
export const ST_BINS = 256;
export const ST_HIST = 9;
export const ST_GROUP_BIN = 1;
export const ST_COPY_BIN = 0.25;
/**
 * Since session 20 (cl27): this thread's first timed block's start and last one's end, on a clock
 * the threads share (performance.timeOrigin + now, ms); a probe zeroes ST_T_FIRST before a job and
 * reads both after it (bench/gap-probe.ts: how late a thread starts a job and how early it is done).
 */
export const ST_T_FIRST = ST_HIST + 6 * ST_BINS;
export const ST_T_LAST = ST_T_FIRST + 1;
export const STAT_SLOTS = ST_T_LAST + 1;
export const STAT_THREADS = 16;
let stats: Float64Array | null = null;

/** The process's shared statistics array (made on the calling thread, sent to the workers with the arguments). */
export function fusedStats(): Float64Array {
  stats ??= sharedF64(STAT_SLOTS * STAT_THREADS);
  return stats;
}

/** This thread's first slot in fusedStats. */
function statAt(): number {
  return STAT_SLOTS * (threadIndex() % STAT_THREADS);
}

/** Whether a thread other than this one's slots (at) is in a timed block. */
function othersBusy(S: Float64Array, at: number): boolean {
  for (let t = 0; t < STAT_THREADS; t++)
    if (STAT_SLOTS * t !== at && S[STAT_SLOTS * t + ST_BUSY] !== 0) return true;
  return false;
}

/** A timed block starts: this thread is busy; returns the clock (t0 of timedBlock). */
export function timedStart(S: Float64Array): number {
  const at = statAt();
  S[at + ST_BUSY] = 1;
  S[at + ST_OTHERS] = othersBusy(S, at) ? 1 : 0;
  const t = performance.now();
  if (S[at + ST_T_FIRST] === 0) S[at + ST_T_FIRST] = performance.timeOrigin + t;
  return t;
}

/**
 * A timed block's ms (since t0) and items, in this thread's slots: groups of a colour (kind 0: the
 * first set's, 1: a joint sweep's second set's), or particles of a window copy (kind 2).
 */
export function timedBlock(S: Float64Array, kind: number, t0: number, items: number): void {
  const at = statAt();
  const now = performance.now();
  const ms = now - t0;
  S[at + ST_T_LAST] = performance.timeOrigin + now;
  const both = S[at + ST_OTHERS] !== 0 && othersBusy(S, at);
  S[at + ST_BUSY] = 0;
  S[at + (kind < 2 ? ST_WORK : ST_COPY)] += ms;
  S[at + (kind < 2 ? ST_GROUPS : ST_PARTICLES)] += items;
  if (items <= 0) return;
  const bin = Math.min(ST_BINS - 1, Math.floor((1e6 * ms) / items / (kind < 2 ? ST_GROUP_BIN : ST_COPY_BIN)));
  S[at + ST_HIST + (both ? kind : 3 + kind) * ST_BINS + bin] += items;
}

/** Whether an array lives on shared memory (the workers see the same bytes). */
export function isShared(a: Float64Array): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && a.buffer instanceof SharedArrayBuffer;
}

export function sharedF64(n: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(8 * n));
}

/**
 * awaitBlock, timed into FusedWaits (only where the block is not done: the clock is read on waits
 * alone), and into this thread's slots of S where the sweep is timed (S not null).
 */
export function awaitTimed(done: Int32Array, d: number, epoch: number, S: Float64Array | null): void {
  const w0 = performance.now();
  const loads = awaitBlock(done, d, epoch);
  const ms = performance.now() - w0;
  FusedWaits.ms += ms;
  FusedWaits.n++;
  if (S !== null) {
    const at = statAt();
    S[at + ST_WAIT] += ms;
    S[at + ST_WAITS]++;
    S[at + ST_LOADS] += loads;
  }
}
