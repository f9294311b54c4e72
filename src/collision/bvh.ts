import { unionOfBoxes, writeBox } from './boxes.js';
import { queryNodes } from './bvh-self-pairs.js';
import { selfPairsBoundedWalk } from './bvh-self-traversal.generated.js';

/**
 * Where a tree allocates its node, parent and leaf arrays (zeroed): the
 * surface broad phase's shared WebAssembly memory (surface-broad-wasm.ts
 * BroadMemory), so that its module's instances on every thread read the
 * tree where it is (docs/collision.md, "Twelfth round, the broad phase").
 */
export interface BvhAlloc {
  f64(n: number): Float64Array;
  i32(n: number): Int32Array;
}

/**
 * A bounding volume hierarchy of axis-aligned boxes, built once (top-down,
 * median split of the centroids along the widest axis) and refitted
 * bottom-up whenever the items move (O(n), the tree's topology is kept).
 * Used for triangle meshes: the mesh colliders' exact distance queries and
 * signed distance field, and the edge–triangle intersection search of the
 * untangling pass, refitted every step.
 *
 * Layout: node n has its box at box[6n .. 6n + 5]; an inner node's left
 * child is n + 1 and its right child is `right[n]`; a leaf has
 * `count[n] > 0` and holds items[start[n] .. start[n] + count[n]). Nodes are
 * numbered in depth-first preorder, so every child has a larger index than
 * its parent and a refit can run over the nodes backwards.
 */
export class Bvh {
  box: Float64Array = new Float64Array(0);
  right: Int32Array = new Int32Array(0);
  start: Int32Array = new Int32Array(0);
  count: Int32Array = new Int32Array(0);
  /** Item ids, permuted so that every leaf holds a contiguous range. */
  items: Int32Array = new Int32Array(0);
  nodeCount = 0;
  itemCount = 0;
  /** Results of the last query: result[0 .. resultCount). */
  result: Int32Array = new Int32Array(64);
  resultCount = 0;
  /** Traversal stack (the tree depth is O(log n) by the median split). */
  stack = new Int32Array(256);
  private readonly leafSize: number;
  /** Whether the node arrays live on shared memory (read by the worker pool's tasks without copies). */
  private readonly shared: boolean;
  /** Where the node, parent and leaf arrays are allocated (null: plain or shared arrays of their own). */
  private readonly alloc: BvhAlloc | null;

  /** `shared`: the node arrays on shared memory, or allocated by that allocator. */
  constructor(leafSize = 4, shared: boolean | BvhAlloc = false) {
    this.leafSize = Math.max(1, leafSize | 0);
    this.alloc = typeof shared === 'object' ? shared : null;
    this.shared = shared !== false && typeof SharedArrayBuffer !== 'undefined';
  }

  /** An Int32Array of n (zeroed) from the allocator, on shared memory, or plain. */
  private i32(n: number): Int32Array {
    if (this.alloc !== null) return this.alloc.i32(n);
    return this.shared ? new Int32Array(new SharedArrayBuffer(4 * n)) : new Int32Array(n);
  }

  /** Builds the tree over `n` item boxes (boxes[6i .. 6i + 5] = min xyz, max xyz). */
  build(boxes: Float64Array, n: number): void {
    this.itemCount = n;
    const sh = this.shared;
    this.items = this.i32(n);
    for (let i = 0; i < n; i++) this.items[i] = i;
    const maxNodes = 2 * n + 1;
    this.box =
      this.alloc !== null
        ? this.alloc.f64(6 * maxNodes)
        : sh
          ? new Float64Array(new SharedArrayBuffer(48 * maxNodes))
          : new Float64Array(6 * maxNodes);
    this.right = this.i32(maxNodes);
    this.start = this.i32(maxNodes);
    this.count = this.i32(maxNodes);
    const centroid = new Float64Array(3 * n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 3; k++) centroid[3 * i + k] = 0.5 * (boxes[6 * i + k] + boxes[6 * i + 3 + k]);
    }
    this.nodeCount = 0;
    if (n === 0) {
      this.nodeCount = 1;
      return;
    }
    this.buildNode(0, n, centroid);
    // parents and the leaf of each item, for refitting after a few items moved
    this.parent = this.i32(this.nodeCount);
    this.leafOf = this.i32(n);
    this.parent[0] = -1;
    for (let node = 0; node < this.nodeCount; node++) {
      const c = this.count[node];
      if (c > 0) {
        for (let k = this.start[node]; k < this.start[node] + c; k++) this.leafOf[this.items[k]] = node;
      } else {
        this.parent[node + 1] = node;
        this.parent[this.right[node]] = node;
      }
    }
    this.nodeDirty = new Uint8Array(this.nodeCount);
    this.dirtyNodes = new Int32Array(this.nodeCount);
    this.refit(boxes);
  }

  /** Parent of each node (−1 at the root), leaf of each item (read by the module's selfPairsBounded), and the scratch of refitItems. */
  parent: Int32Array = new Int32Array(0);
  leafOf: Int32Array = new Int32Array(0);
  private nodeDirty = new Uint8Array(0);
  private dirtyNodes = new Int32Array(0);

  /**
   * Refits after only the items ids[0 .. n) changed their boxes: the nodes
   * on their paths to the root are recomputed, children before parents
   * (larger preorder index first), each from the same formula as refit, so
   * the boxes equal those of a full refit.
   */
  refitItems(boxes: Float64Array, ids: Int32Array, n: number): void {
    if (this.itemCount === 0) return;
    const parent = this.parent,
      mark = this.nodeDirty,
      list = this.dirtyNodes;
    let m = 0;
    for (let k = 0; k < n; k++) {
      let node = this.leafOf[ids[k]];
      while (node >= 0 && mark[node] === 0) {
        mark[node] = 1;
        list[m++] = node;
        node = parent[node];
      }
    }
    const nodes = list.subarray(0, m);
    nodes.sort();
    for (let k = m - 1; k >= 0; k--) {
      const node = nodes[k];
      mark[node] = 0;
      this.refitNode(boxes, node);
    }
  }

  /** Numbers the subtree over items[begin .. end) in preorder; returns its root. */
  private buildNode(begin: number, end: number, centroid: Float64Array): number {
    const node = this.nodeCount++;
    const m = end - begin;
    if (m <= this.leafSize) {
      this.start[node] = begin;
      this.count[node] = m;
      return node;
    }
    const ex = centroidExtent(this.items, centroid, begin, end, 0),
      ey = centroidExtent(this.items, centroid, begin, end, 1),
      ez = centroidExtent(this.items, centroid, begin, end, 2);
    const axis = ex >= ey && ex >= ez ? 0 : ey >= ez ? 1 : 2;
    const mid = begin + (m >> 1);
    selectNth(this.items, centroid, axis, begin, end - 1, mid);
    this.count[node] = 0;
    this.buildNode(begin, mid, centroid);
    this.right[node] = this.buildNode(mid, end, centroid);
    return node;
  }

  /** Recomputes every node box from the item boxes (same layout as for build). */
  refit(boxes: Float64Array): void {
    for (let n = this.nodeCount - 1; n >= 0; n--) this.refitNode(boxes, n);
  }

  /** Node n's box from its items (a leaf) or its children's boxes. */
  private refitNode(boxes: Float64Array, n: number): void {
    const B = this.box;
    const o = 6 * n;
    const c = this.count[n];
    if (c > 0 || this.itemCount === 0) {
      const s = this.start[n];
      unionOfBoxes(boxes, this.items, s, s + c, B, o);
      return;
    }
    const l = 6 * (n + 1),
      r = 6 * this.right[n];
    writeBox(
      B,
      o,
      Math.min(B[l], B[r]),
      Math.min(B[l + 1], B[r + 1]),
      Math.min(B[l + 2], B[r + 2]),
      Math.max(B[l + 3], B[r + 3]),
      Math.max(B[l + 4], B[r + 4]),
      Math.max(B[l + 5], B[r + 5]),
    );
  }

  /**
   * Items whose box overlaps [min, max] into result[0 .. resultCount);
   * `boxes` are the item boxes the tree was last refitted with. With a
   * `limit` > 0 the search stops at that many items (`truncated`).
   */
  query(
    boxes: Float64Array,
    minx: number,
    miny: number,
    minz: number,
    maxx: number,
    maxy: number,
    maxz: number,
    limit = 0,
  ): number {
    this.resultCount = 0;
    this.truncated = false;
    if (this.itemCount === 0) return 0;
    const q = this.queryBox;
    q[0] = minx;
    q[1] = miny;
    q[2] = minz;
    q[3] = maxx;
    q[4] = maxy;
    q[5] = maxz;
    let m = queryNodes(this, boxes, q, limit, this.result, this.stack);
    while (m < 0) {
      // the results outgrew their array: a larger one, and the same search again
      this.result = new Int32Array(2 * this.result.length);
      m = queryNodes(this, boxes, q, limit, this.result, this.stack);
    }
    this.resultCount = m;
    this.truncated = limit > 0 && m === limit;
    return m;
  }

  /** The box of the current query (min xyz, max xyz). */
  private readonly queryBox = new Float64Array(6);

  /** Overlapping item pairs of the last `selfPairs`: (i, j) at pairs[2k], pairs[2k + 1]. */
  pairs: Int32Array = new Int32Array(256);
  pairCount = 0;
  /** The stack of selfPairsBounded's walk (grown by it). */
  pairStack: Int32Array = new Int32Array(512);
  private nodeMark = new Uint8Array(0);

  /**
   * All unordered pairs of different items whose boxes overlap, each once,
   * into pairs[0 .. 2 pairCount), by a simultaneous descent of the tree
   * against itself (a node against itself splits into its two children
   * against themselves and against each other). `boxes`: the item boxes the
   * tree was last refitted with. With `marked` (a flag per item), only the
   * pairs with at least one marked item are returned (subtrees without a
   * marked item are not descended against each other). Returns pairCount.
   */
  selfPairs(boxes: Float64Array, marked: Uint8Array | null = null): number {
    return this.selfPairsBounded(boxes, 0x7fffffff, 0, marked);
  }

  /** Items that reached `perItem` pairs in the last selfPairsBounded. */
  saturated = 0;
  /** Did the last selfPairsBounded stop at `maxPairs`? */
  truncated = false;
  /** Pairs of each item so far (selfPairsBounded), and per node its items still below the limit. */
  private itemPairs = new Int32Array(0);
  private open = new Int32Array(0);

  /**
   * selfPairs with budgets, for degenerate input (copies of a mesh on top of
   * each other, a mesh collapsed to a point), where every box overlaps every
   * other and the pairs grow with the square of the items: an item takes
   * part in at most `perItem` pairs (the pairs past it are skipped, and a
   * subtree whose items have all reached it is not descended: `open`
   * counts them), and the search stops at `maxPairs` pairs (`truncated`;
   * 0: no limit). Below both limits the pairs are those of selfPairs, in the
   * same order. The work is then bounded by the budgets, not by the
   * overlaps. `marked`: as in selfPairs (the one traversal of both).
   * Returns pairCount.
   */
  selfPairsBounded(
    boxes: Float64Array,
    perItem: number,
    maxPairs: number,
    marked: Uint8Array | null = null,
  ): number {
    this.pairCount = 0;
    this.saturated = 0;
    this.truncated = false;
    if (this.itemCount < 2) return 0;
    const n = this.itemCount,
      nodes = this.nodeCount;
    if (this.itemPairs.length < n) this.itemPairs = new Int32Array(n);
    if (this.open.length < nodes) this.open = new Int32Array(nodes);
    const ip = this.itemPairs,
      open = this.open,
      count = this.count,
      right = this.right;
    ip.fill(0, 0, n);
    for (let k = nodes - 1; k >= 0; k--) open[k] = count[k] > 0 ? count[k] : open[k + 1] + open[right[k]];
    // the walk, written once with the pooled parts' and the module's (bvh-self-traversal.generated.ts)
    this.pairCount = selfPairsBoundedWalk(
      this,
      boxes,
      perItem,
      maxPairs,
      marked,
      this.markNodes(marked),
      ip,
      open,
    );
    return this.pairCount;
  }

  /** Per node: does its subtree hold a marked item? (null without marks) */
  private markNodes(marked: Uint8Array | null): Uint8Array | null {
    if (marked === null) return null;
    if (this.nodeMark.length < this.nodeCount) this.nodeMark = new Uint8Array(this.nodeCount);
    const mk = this.nodeMark,
      items = this.items;
    for (let n = this.nodeCount - 1; n >= 0; n--) {
      const c = this.count[n];
      let m = 0;
      if (c > 0) {
        const s = this.start[n];
        for (let k = s; k < s + c; k++) m |= marked[items[k]];
      } else m = mk[n + 1] | mk[this.right[n]];
      mk[n] = m;
    }
    return mk;
  }
}

/** The extent (max − min) of the centroids of items[begin .. end) on `axis` (set-up: the split axis). */
function centroidExtent(
  items: Int32Array,
  centroid: Float64Array,
  begin: number,
  end: number,
  axis: number,
): number {
  let lo = Infinity,
    hi = -Infinity;
  for (let k = begin; k < end; k++) {
    const v = centroid[3 * items[k] + axis];
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return hi - lo;
}

/** Quickselect: reorders items[lo..hi] so that items[k] has the k-th smallest centroid on `axis`. */
function selectNth(
  items: Int32Array,
  centroid: Float64Array,
  axis: number,
  lo: number,
  hi: number,
  k: number,
): void {
  while (hi > lo) {
    // median of three pivot
    const mid = (lo + hi) >> 1;
    const a = centroid[3 * items[lo] + axis],
      b = centroid[3 * items[mid] + axis],
      c = centroid[3 * items[hi] + axis];
    const pivot = a < b ? (b < c ? b : Math.max(a, c)) : a < c ? a : Math.max(b, c);
    let i = lo,
      j = hi;
    while (i <= j) {
      while (centroid[3 * items[i] + axis] < pivot) i++;
      while (centroid[3 * items[j] + axis] > pivot) j--;
      if (i <= j) {
        const t = items[i];
        items[i] = items[j];
        items[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}
