import type { SharedTask, TaskRunner } from '../core/step-context.js';
import type { Bvh } from './bvh.js';
import { type BvhNodes, frontierPartPairs, partPairsScratch, selfPairsFrontier } from './bvh-self-pairs.js';
import { segmentCrossesTriangle } from './geometry.js';
import { pairsToArena } from './pair-arena.js';
import { grow32 } from './surface-broad-pairs.js';
import { startFrontierTask } from './surface-broad-tasks.js';

/**
 * The edge–triangle crossings of the untangling analysis (untangle.ts, 003
 * §4.3) as a function of plain arrays, and its search on the worker pool
 * (docs/collision.md, "Eighth round (session 14)"): the self-traversal of
 * the analysis's triangle tree cut at a frontier of node pairs, each part
 * traversed and its triangle pairs tested by whichever thread claims it,
 * its crossings put in a run of a shared arena. The analysis sorts the
 * crossings, so the parts may be joined in any order; they are joined in
 * frontier order all the same, and the pairs of every part are counted
 * against the budgets of the serial traversal (`Bvh.selfPairsBounded`):
 * where a triangle or the total reached one, the serial search runs
 * instead, with its budgets.
 */
export interface CrossingArrays {
  /** Positions (the store's) and the triangles' boxes at x. */
  x: Float64Array;
  boxes: Float64Array;
  /** Topology (SurfaceTopology): global index of each surface vertex, triangles, edges, edges owned by each triangle. */
  vertex: Int32Array;
  tri: Int32Array;
  edge: Int32Array;
  ownEStart: Int32Array;
  ownE: Int32Array;
  edgeSurface: Int32Array;
  triSurface: Int32Array;
  /** pairOn[a · surfaces + b] = 1 where surfaces a and b collide; surfaces = meta[0]. */
  pairOn: Uint8Array;
  meta: Int32Array;
  /** The store's collision group and mask of each particle. */
  group: Int32Array;
  mask: Int32Array;
}

/** Crossings found: (edge, triangle) at hits[2k], hits[2k + 1]. */
export interface CrossingHits {
  hits: Int32Array;
  count: number;
}

/**
 * The crossings of overlapping triangle pairs k0 … k1 − 1 (pairs[2k],
 * pairs[2k + 1]): each triangle's own edges (every edge has one owner)
 * against the other triangle (an edge's box lies inside its owner's),
 * appended to `out` (grown as needed).
 */
export function crossingsOfPairs(
  A: CrossingArrays,
  pairs: Int32Array,
  k0: number,
  k1: number,
  out: CrossingHits,
): void {
  const x = A.x,
    boxes = A.boxes,
    vert = A.vertex,
    tri = A.tri,
    edge = A.edge,
    oes = A.ownEStart,
    oe = A.ownE,
    group = A.group,
    mask = A.mask;
  const S = A.meta[0];
  for (let k = k0; k < k1; k++) {
    for (let side = 0; side < 2; side++) {
      const owner = pairs[2 * k + side],
        t = pairs[2 * k + 1 - side];
      const p = tri[3 * t],
        q = tri[3 * t + 1],
        r = tri[3 * t + 2];
      const o = 6 * t;
      for (let j = oes[owner]; j < oes[owner + 1]; j++) {
        const e = oe[j];
        const a = edge[2 * e],
          b = edge[2 * e + 1];
        if (p === a || p === b || q === a || q === b || r === a || r === b) continue;
        const a3 = 3 * vert[a],
          b3 = 3 * vert[b];
        if (
          Math.min(x[a3], x[b3]) > boxes[o + 3] ||
          Math.max(x[a3], x[b3]) < boxes[o] ||
          Math.min(x[a3 + 1], x[b3 + 1]) > boxes[o + 4] ||
          Math.max(x[a3 + 1], x[b3 + 1]) < boxes[o + 1] ||
          Math.min(x[a3 + 2], x[b3 + 2]) > boxes[o + 5] ||
          Math.max(x[a3 + 2], x[b3 + 2]) < boxes[o + 2]
        )
          continue;
        if (A.pairOn[A.edgeSurface[e] * S + A.triSurface[t]] !== 1) continue;
        const ga = vert[a],
          gp = vert[p];
        if ((mask[ga] & group[gp]) === 0 || (mask[gp] & group[ga]) === 0) continue;
        if (!segmentCrossesTriangle(x, a3, b3, 3 * gp, 3 * vert[q], 3 * vert[r])) continue;
        const n = out.count;
        if (2 * n + 2 > out.hits.length) out.hits = grow32(out.hits, 2 * n + 2);
        out.hits[2 * n] = e;
        out.hits[2 * n + 1] = t;
        out.count = n + 1;
      }
    }
  }
}

/** Arguments of the 'untangle-crossings' task. */
interface CrossingTaskArgs {
  A: CrossingArrays;
  N: BvhNodes;
  /** The frontier's node pairs: block b traverses front[2b], front[2b + 1]. */
  front: Int32Array;
  /**
   * Each block claims a run of the arena (top[0]: its first free entry,
   * advanced atomically) for its triangle pairs and then its crossings;
   * top[1]: the most triangle pairs a block may find (the total budget).
   */
  arena: Int32Array;
  top: Int32Array;
  /** Per block: its run's start, triangle pairs, crossings, 1 when it did not fit (arena or budget). */
  counts: Int32Array;
}

const C = 4;

/** A thread's own crossings for its blocks (module state: one per thread), grown as needed. */
const localHits: CrossingHits = { hits: new Int32Array(64), count: 0 };

/** The task's kernel: block `block` = frontier node pair `from` (one per block). */
export function untangleCrossingsTask(args: CrossingTaskArgs, from: number, to: number, block: number): void {
  const c = args.counts,
    o = C * block;
  const np = frontierPartPairs(args.N, args.A.boxes, args.front, from, to, args.top[1]);
  if (np < 0) {
    c[o + 3] = 1;
    return;
  }
  const localPairs = partPairsScratch();
  localHits.count = 0;
  crossingsOfPairs(args.A, localPairs, 0, np, localHits);
  const nh = localHits.count;
  c[o + 1] = np;
  c[o + 2] = nh;
  pairsToArena(args.top, args.arena, c, o, 3, localPairs, np, localHits.hits, nh);
}

/** Node pairs of the frontier (a constant: the parts do not depend on the thread count). */
const FRONTIER = 64;
/** Largest arena (entries): 16 MB. */
const MAX_ARENA = 1 << 22;
/** Triangles below which the search stays on the calling thread. */
export const UNTANGLE_MIN_TRIANGLES = 2048;

type Shareable = Int32Array | Float64Array | Uint8Array;

/** The crossing search of one Untangler on the pool. */
export class ParallelCrossings {
  private readonly task: SharedTask = { kind: 'untangle-crossings', args: {}, version: 0 };
  private readonly A = {} as CrossingArrays;
  private readonly N = {} as BvhNodes;
  private readonly front = new Int32Array(new SharedArrayBuffer(8 * (FRONTIER + 2)));
  private readonly scratch = new Int32Array(2 * (FRONTIER + 2));
  private readonly top = new Int32Array(new SharedArrayBuffer(16));
  private readonly counts = new Int32Array(new SharedArrayBuffer(4 * C * (FRONTIER + 2)));
  private arena: Int32Array = new Int32Array(0);
  private arenaSize = 0;
  private perItem = new Int32Array(0);
  private topology = -1;
  private stale = true;
  /** Searches that ran on the pool (statistics, tests). */
  runs = 0;

  /**
   * The crossings of every overlapping triangle pair of `tree` (refitted to
   * src.boxes) appended to `out`, on the pool; false when they were not
   * (the pool could not run it now, arrays not on shared memory, an arena
   * too small — it grows for the next time — or a budget reached: `out` is
   * then as it was and the caller runs the serial search).
   */
  run(
    tasks: TaskRunner,
    src: CrossingArrays,
    topology: number,
    tree: Bvh,
    perItem: number,
    maxPairs: number,
    out: CrossingHits,
  ): boolean {
    const nt = tree.itemCount;
    if (nt < 2 || !this.share(src, topology, tree)) return false;
    const nf = selfPairsFrontier(this.N, FRONTIER, this.front, this.scratch);
    const rec = this.stale ? this.record() : null;
    const sent = startFrontierTask(tasks, this.task, rec, this.top, maxPairs, nf);
    this.stale = false;
    if (!sent) return false;
    const used = Atomics.load(this.top, 0);
    if (used > this.arena.length) {
      // grows for the next analysis (the workers receive it before the next step)
      this.arenaSize = Math.min(MAX_ARENA, Math.ceil(1.25 * used));
    }
    const c = this.counts,
      arena = this.arena,
      ip = this.perItem;
    ip.fill(0, 0, nt);
    const n0 = out.count;
    let total = 0;
    for (let b = 0; b < nf; b++) {
      const o = C * b;
      const at = c[o],
        np = c[o + 1],
        nh = c[o + 2];
      let over = c[o + 3] !== 0;
      // the budgets of Bvh.selfPairsBounded: below them its pairs are these
      total += np;
      if (maxPairs > 0 && total >= maxPairs) over = true;
      for (let k = at; k < at + 2 * np && !over; k++) if (++ip[arena[k]] >= perItem) over = true;
      if (over) {
        out.count = n0;
        return false;
      }
      const n = out.count;
      if (2 * (n + nh) > out.hits.length) out.hits = grow32(out.hits, 2 * (n + nh));
      out.hits.set(arena.subarray(at + 2 * np, at + 2 * (np + nh)), 2 * n);
      out.count = n + nh;
    }
    this.runs++;
    return true;
  }

  /** The task's record (sent to the workers when it changed). */
  private record(): CrossingTaskArgs & Record<string, unknown> {
    const { A, N, front, arena, top, counts } = this;
    return { A, N, front, arena, top, counts };
  }

  /** Points the task's record at the current arrays (copies where they are not shared); false where x or the boxes are not. */
  private share(src: CrossingArrays, topology: number, tree: Bvh): boolean {
    if (!(src.x.buffer instanceof SharedArrayBuffer) || !(src.boxes.buffer instanceof SharedArrayBuffer))
      return false;
    if (!(tree.box.buffer instanceof SharedArrayBuffer)) return false;
    const A = this.A as unknown as Record<string, Shareable>;
    const S = src as unknown as Record<string, Shareable>;
    const fresh = this.topology !== topology;
    for (const key in S) {
      const a = S[key];
      if (a.buffer instanceof SharedArrayBuffer) {
        if (A[key] !== a) {
          A[key] = a;
          this.stale = true;
        }
        continue;
      }
      // (the topology's arrays again only when it changed; the small ones every time)
      if (A[key] === undefined || A[key].length !== a.length || fresh) {
        const Ctor = a.constructor as new (b: SharedArrayBuffer) => Shareable;
        A[key] = new Ctor(new SharedArrayBuffer(Math.max(8, a.length * a.BYTES_PER_ELEMENT))).subarray(
          0,
          a.length,
        );
        this.stale = true;
      } else if (key !== 'pairOn' && key !== 'meta' && key !== 'group' && key !== 'mask') continue;
      A[key].set(a);
    }
    this.topology = topology;
    const N = this.N;
    if (N.box !== tree.box || N.items !== tree.items) {
      N.box = tree.box;
      N.right = tree.right;
      N.start = tree.start;
      N.count = tree.count;
      N.items = tree.items;
      this.stale = true;
    }
    const nt = tree.itemCount;
    if (this.perItem.length < nt) this.perItem = new Int32Array(nt);
    if (this.arenaSize === 0) this.arenaSize = Math.min(MAX_ARENA, 48 * nt);
    if (this.arena.length < this.arenaSize) {
      this.arena = new Int32Array(new SharedArrayBuffer(4 * this.arenaSize));
      this.stale = true;
    }
    return true;
  }
}
