/**
 * The self-traversal of a Bvh (bvh.ts, `selfPairsBounded`) cut into
 * independent parts, for the worker pool (docs/solver.md, "Threads").
 *
 * The serial traversal pops a node pair (a, b) from a stack, tests the two
 * boxes, and either tests the items of two leaves or pushes the pair's
 * children; everything pushed while a pair is processed is popped before
 * anything below it on the stack. So the pairs it reports are the
 * concatenation, in pop order, of what each child pair reports, and any
 * "frontier" of node pairs reached by expanding pairs into their children
 * in pop order (`selfPairsFrontier`) gives, part after part
 * (`selfPairsOfNodes`), exactly the pairs of one traversal, in the same
 * order. Without budgets: a caller that keeps the budgets of
 * `selfPairsBounded` checks afterwards that no item reached its budget and
 * the pairs stayed below the total (then the serial traversal would have
 * given the same list), and runs the serial one otherwise.
 */

import { boxesOverlap } from './boxes.js';
// the traversal, written once with the surfaces module's in scripts/kernels/emit-self-traversal.ts
import { type BvhNodes, pushChildPairs, selfPairsOfNodes } from './bvh-self-traversal.generated.js';
import { overlaps } from './spatial-hash.js';

export { type BvhNodes, selfPairsOfNodes } from './bvh-self-traversal.generated.js';

/**
 * Writes the children of node pair (a, b), in the order the serial
 * traversal pushes them (it pops them in reverse), to out[2o …]; returns
 * how many (0 when the boxes of two different nodes do not overlap).
 * (a, b) must not be two leaves.
 */
function childPairs(N: BvhNodes, a: number, b: number, out: Int32Array, o: number): number {
  if (a !== b && !boxesOverlap(N.box, 6 * a, N.box, 6 * b)) return 0;
  return pushChildPairs(N.box, N.count, N.right, a, b, out, o);
}

/**
 * A frontier of the self-traversal from the root: node pairs (a, b) at
 * front[2k], front[2k + 1] whose traversals, concatenated in order, give the
 * traversal from the root. Rounds expand every pair that is not two leaves
 * into its children until there are at least `target` pairs (a round stops
 * as soon as the target is reached, so there are at most target + 1), or
 * nothing is left to expand. Returns the number of pairs; `front` must hold
 * 2 (target + 2) entries, `scratch` as many.
 */
export function selfPairsFrontier(
  N: BvhNodes,
  target: number,
  front: Int32Array,
  scratch: Int32Array,
): number {
  let cur = front,
    next = scratch;
  cur[0] = 0;
  cur[1] = 0;
  let n = 1;
  const count = N.count;
  for (;;) {
    let m = 0,
      expanded = false;
    for (let k = 0; k < n; k++) {
      const a = cur[2 * k],
        b = cur[2 * k + 1];
      if (m + (n - k) >= target || (count[a] > 0 && count[b] > 0)) {
        // target reached (the rest is copied as it is), or two leaves: kept
        next[2 * m] = a;
        next[2 * m + 1] = b;
        m++;
        continue;
      }
      const c = childPairs(N, a, b, next, m);
      // pushed order → popped order
      for (let i = 0, j = c - 1; i < j; i++, j--) {
        const x = next[2 * (m + i)],
          y = next[2 * (m + i) + 1];
        next[2 * (m + i)] = next[2 * (m + j)];
        next[2 * (m + i) + 1] = next[2 * (m + j) + 1];
        next[2 * (m + j)] = x;
        next[2 * (m + j) + 1] = y;
      }
      m += c;
      expanded = true;
    }
    const t = cur;
    cur = next;
    next = t;
    n = m;
    if (!expanded || n >= target) break;
  }
  if (cur !== front) front.set(cur.subarray(0, 2 * n));
  return n;
}

/** A thread's item pairs of its frontier parts (module state: one per thread), grown as needed. */
let partPairs = new Int32Array(2048);

/**
 * The overlapping item pairs of frontier node pairs from … to − 1
 * (front[2f], front[2f + 1]; selfPairsOfNodes, part after part) into this
 * thread's scratch (`partPairsScratch`), at most `most` in all. Returns
 * their number, or −1 when `most` was reached.
 */
export function frontierPartPairs(
  N: BvhNodes,
  boxes: Float64Array,
  front: Int32Array,
  from: number,
  to: number,
  most: number,
): number {
  for (;;) {
    let np = 0;
    const cap = Math.min(most, partPairs.length >> 1);
    for (let f = from; f < to && np >= 0; f++)
      np = selfPairsOfNodes(N, boxes, front[2 * f], front[2 * f + 1], partPairs, np, cap);
    if (np >= 0) return np;
    if (cap === most) return -1;
    partPairs = new Int32Array(2 * partPairs.length);
  }
}

/** The pairs of this thread's last frontierPartPairs (pairs[2k], pairs[2k + 1]). */
export function partPairsScratch(): Int32Array {
  return partPairs;
}

/**
 * Items whose box overlaps the query box q[0 .. 5] (min xyz, max xyz) into
 * out[0 …], in the order of `Bvh.query` (depth first, left child first):
 * the tree is searched with its node boxes, the items with `boxes` (those
 * it was last refitted with). Stops at `limit` items when `limit` > 0 (the
 * query is then truncated: the count equals the limit). Returns the count,
 * or −1 when `out` filled up first (the caller grows it and asks again).
 * `stack` holds the pending nodes (the tree depth is O(log n)).
 */
export function queryNodes(
  N: BvhNodes,
  boxes: Float64Array,
  q: Float64Array,
  limit: number,
  out: Int32Array,
  stack: Int32Array,
): number {
  const B = N.box,
    count = N.count,
    start = N.start,
    right = N.right,
    items = N.items;
  const minx = q[0],
    miny = q[1],
    minz = q[2],
    maxx = q[3],
    maxy = q[4],
    maxz = q[5];
  const cap = out.length;
  let m = 0,
    sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const n = stack[--sp];
    const o = 6 * n;
    if (
      B[o] > maxx ||
      B[o + 3] < minx ||
      B[o + 1] > maxy ||
      B[o + 4] < miny ||
      B[o + 2] > maxz ||
      B[o + 5] < minz
    )
      continue;
    const c = count[n];
    if (c > 0) {
      const s = start[n];
      for (let k = s; k < s + c; k++) {
        const i = items[k];
        if (overlaps(boxes, 6 * i, minx, miny, minz, maxx, maxy, maxz)) {
          if (m === cap) return -1;
          out[m++] = i;
          if (m === limit) return m;
        }
      }
    } else {
      stack[sp++] = right[n];
      stack[sp++] = n + 1;
    }
  }
  return m;
}
