import { unionOfBoxes } from './boxes.js';
import { type BvhNodes, queryNodes } from './bvh-self-pairs.js';
// the candidate tests, written once with the surfaces module's in scripts/kernels/emit-broad-candidates.ts
import { eeCandidate, vtCandidate } from './surface-broad-candidates.generated.js';
import { emptyTopologyArrays, type TopologyArrays } from './surface-topology.js';

export { B_MARGIN, B_MEAN_EDGE, B_SURFACES, vtCandidate } from './surface-broad-candidates.generated.js';

/**
 * The candidate tests of the surface broad phase (surface-broad-phase.ts)
 * as functions of plain arrays, so that the same code runs on the calling
 * thread and, for the pairs of a full rebuild, in blocks on the worker pool
 * (src/parallel/, docs/solver.md "Threads"): what a test reads is in a
 * `BroadArrays` record, what it finds goes to a `PairSink`. Each block of
 * overlapping triangle pairs writes its own sink and the sinks are joined
 * in block order, so the lists are those of one pass over all pairs, in the
 * same order, for every thread count.
 */
export interface BroadArrays extends TopologyArrays {
  /** Vertices and edges owned by each triangle (CSR). */
  ownVStart: Int32Array;
  ownV: Int32Array;
  ownEStart: Int32Array;
  ownE: Int32Array;
  /** pairOn[a · surfaces + b] = 1 where surfaces a and b collide. */
  pairOn: Uint8Array;
  /** surfaces, marginFactor, meanEdge. */
  scalars: Float64Array;
  /** Snapshots (SurfaceSnapshots): positions, allowances, vertex boxes. */
  snap: Float64Array;
  delta: Float64Array;
  vBox: Float64Array;
  /** Triangle boxes and bounding spheres, edge boxes and half-lengths, sharp edges. */
  tBox: Float64Array;
  tSphere: Float64Array;
  eBox: Float64Array;
  eHalf: Float64Array;
  sharp: Uint8Array;
  /** The store's collision group and mask of each particle. */
  group: Int32Array;
  mask: Int32Array;
  /** Changed vertices, triangles and edges of a partial update (flags). */
  vDirty: Uint8Array;
  tDirty: Uint8Array;
  eDirty: Uint8Array;
}

/** A record of empty arrays (filled by SurfaceBroadPhase before each use). */
export function emptyBroadArrays(): BroadArrays {
  const i = new Int32Array(0),
    f = new Float64Array(0),
    u = new Uint8Array(0);
  return {
    ...emptyTopologyArrays(),
    ownVStart: i,
    ownV: i,
    ownEStart: i,
    ownE: i,
    pairOn: u,
    scalars: new Float64Array(3),
    snap: f,
    delta: f,
    vBox: f,
    tBox: f,
    tSphere: f,
    eBox: f,
    eHalf: f,
    sharp: u,
    group: i,
    mask: i,
    vDirty: u,
    tDirty: u,
    eDirty: u,
  };
}

/**
 * Where found candidates go: (vertex, triangle) pairs at vt[2k], vt[2k + 1]
 * and (edge, edge) pairs at ee[2k], ee[2k + 1]. A sink that may `grow` gets
 * larger arrays when full; one that may not (a block on a worker, whose
 * arrays are shared memory the calling thread reads) sets `full` and takes
 * nothing more, and the calling thread runs that block again in its own sink.
 */
export interface PairSink {
  vt: Int32Array;
  vtCount: number;
  ee: Int32Array;
  eeCount: number;
  grow: boolean;
  full: boolean;
}

/**
 * Keeps, in order at the front, the candidates (a, b) = (pairs[2k],
 * pairs[2k + 1]) of [0, n) whose a is clean in `dirtyA` and b in `dirtyB`,
 * with their distance bounds dist[k]; returns how many (the incremental
 * update drops the pairs of changed items and finds them again).
 */
export function keepCleanPairs(
  pairs: Int32Array,
  dist: Float64Array,
  n: number,
  dirtyA: Uint8Array,
  dirtyB: Uint8Array,
): number {
  let m = 0;
  for (let k = 0; k < n; k++) {
    const a = pairs[2 * k],
      b = pairs[2 * k + 1];
    if (dirtyA[a] !== 0 || dirtyB[b] !== 0) continue;
    pairs[2 * m] = a;
    pairs[2 * m + 1] = b;
    dist[m] = dist[k];
    m++;
  }
  return m;
}

/**
 * Appends the pair (a, b) to the sink's vertex–triangle list (vt: a vertex q, a triangle t) or
 * edge–edge list (two edges), growing it; false when the list is full and the sink may not grow.
 */
export function addPair(out: PairSink, vt: boolean, a: number, b: number): boolean {
  const n = vt ? out.vtCount : out.eeCount;
  let list = vt ? out.vt : out.ee;
  if (2 * n + 2 > list.length) {
    if (!out.grow) {
      out.full = true;
      return false;
    }
    list = grow32(list, 2 * n + 2);
    if (vt) out.vt = list;
    else out.ee = list;
  }
  list[2 * n] = a;
  list[2 * n + 1] = b;
  if (vt) out.vtCount = n + 1;
  else out.eeCount = n + 1;
  return true;
}

/**
 * The candidates of one overlapping triangle pair: the vertices each owns
 * against the other triangle, and the edges each owns against the other's.
 * `partial`: only the pairs with a dirty vertex, triangle or edge. False
 * when the sink filled up (and may not grow).
 */
export function collectTrianglePair(
  A: BroadArrays,
  t1: number,
  t2: number,
  partial: boolean,
  out: PairSink,
): boolean {
  const vd = A.vDirty,
    td = A.tDirty,
    ed = A.eDirty;
  const ovs = A.ownVStart,
    ov = A.ownV,
    oes = A.ownEStart,
    oe = A.ownE;
  const vBox = A.vBox,
    tBox = A.tBox,
    eBox = A.eBox;
  // triangle boxes carry half the reach of their surface: a vertex box must come within its own half
  const hr = A.halfReach,
    vs = A.vertexSurface;
  const d1 = partial && td[t1] === 0,
    d2 = partial && td[t2] === 0;
  const tri = A.tri,
    edge = A.edge;
  const a1 = tri[3 * t1],
    b1 = tri[3 * t1 + 1],
    c1 = tri[3 * t1 + 2],
    a2 = tri[3 * t2],
    b2 = tri[3 * t2 + 1],
    c2 = tri[3 * t2 + 2];
  // (a vertex of the other triangle is never a candidate: tested here before the boxes)
  for (let j = ovs[t1]; j < ovs[t1 + 1]; j++) {
    const q = ov[j];
    if ((d2 && vd[q] === 0) || q === a2 || q === b2 || q === c2) continue;
    if (boxesNear(vBox, q, tBox, t2, hr[vs[q]]) && vtCandidate(A, q, t2) && !addPair(out, true, q, t2))
      return false;
  }
  for (let j = ovs[t2]; j < ovs[t2 + 1]; j++) {
    const q = ov[j];
    if ((d1 && vd[q] === 0) || q === a1 || q === b1 || q === c1) continue;
    if (boxesNear(vBox, q, tBox, t1, hr[vs[q]]) && vtCandidate(A, q, t1) && !addPair(out, true, q, t1))
      return false;
  }
  const e1 = oes[t2],
    e2 = oes[t2 + 1];
  if (e1 === e2) return true;
  for (let i = oes[t1]; i < oes[t1 + 1]; i++) {
    const e = oe[i];
    const ce = partial && ed[e] === 0;
    // every edge box of t2 lies inside t2's box
    if (!boxesOverlap(eBox, e, tBox, t2)) continue;
    const ea = edge[2 * e],
      eb = edge[2 * e + 1];
    for (let j = e1; j < e2; j++) {
      const f = oe[j];
      if (ce && ed[f] === 0) continue;
      // edges that share a vertex are never candidates
      const fa = edge[2 * f],
        fb = edge[2 * f + 1];
      if (fa === ea || fa === eb || fb === ea || fb === eb) continue;
      if (boxesOverlap(eBox, e, eBox, f) && eeCandidate(A, e, f) && !addPair(out, false, e, f)) return false;
    }
  }
  return true;
}

/**
 * The candidates of the overlapping triangle pairs k0 … k1 − 1 of a full
 * rebuild (pairs[2k], pairs[2k + 1]), or of an incremental update with
 * `partial` (collectDirtyPairs' list), appended to `out` in that order.
 * False when the sink filled up.
 */
export function collectPairRange(
  A: BroadArrays,
  pairs: Int32Array,
  k0: number,
  k1: number,
  out: PairSink,
  partial = false,
): boolean {
  for (let k = k0; k < k1; k++)
    if (!collectTrianglePair(A, pairs[2 * k], pairs[2 * k + 1], partial, out)) return false;
  return true;
}

/** A thread's scratch for collectDirtyPairs: the query's results, its stack and its box, the triangle pairs found. */
export interface GroupScratch {
  result: Int32Array;
  stack: Int32Array;
  box: Float64Array;
  pairs: Int32Array;
  count: number;
}

export function groupScratch(): GroupScratch {
  return {
    result: new Int32Array(1024),
    stack: new Int32Array(256),
    box: new Float64Array(6),
    pairs: new Int32Array(2048),
    count: 0,
  };
}

/**
 * The overlapping triangle pairs of an incremental update's groups gFrom …
 * gTo − 1 (the triangles each stray made dirty: dirty[ends[g − 1] …
 * ends[g]), ends[−1] = 0), in S.pairs[0 … 2 S.count), in that order: each
 * dirty triangle against the triangles its box overlaps (a pair of two
 * dirty triangles taken from the smaller index), at most `per` per
 * triangle; their candidates are collectPairRange's in partial mode. The
 * same lists whether the groups run here in one call or in blocks on the
 * pool joined in order. One tree
 * query per group with the union of its triangles' boxes: the tree reports
 * items in the same depth-first order whatever the query box, so filtering
 * its answer by each triangle's own box gives exactly the items, in the
 * same order, that a query with that box alone would. Returns how many
 * triangles or queries reached their budget.
 */
export function collectDirtyPairs(
  A: BroadArrays,
  N: BvhNodes,
  dirty: Int32Array,
  ends: Int32Array,
  gFrom: number,
  gTo: number,
  per: number,
  S: GroupScratch,
): number {
  const tBox = A.tBox,
    td = A.tDirty,
    q = S.box;
  let over = 0,
    np = 0;
  let g0 = gFrom === 0 ? 0 : ends[gFrom - 1];
  for (let gi = gFrom; gi < gTo; gi++) {
    const g1 = ends[gi];
    unionOfBoxes(tBox, dirty, g0, g1, q, 0);
    const limit = per * (g1 - g0);
    if (S.result.length < limit) S.result = new Int32Array(limit);
    const m = queryNodes(N, tBox, q, limit, S.result, S.stack);
    if (m === limit) over++;
    const res = S.result;
    // (at most per pairs for each of the group's triangles)
    if (S.pairs.length < 2 * (np + limit)) S.pairs = grow32(S.pairs, 2 * (np + limit));
    const pairs = S.pairs;
    for (let i = g0; i < g1; i++) {
      const t1 = dirty[i];
      let found = 0;
      for (let k = 0; k < m; k++) {
        const t2 = res[k];
        if (t2 === t1 || (td[t2] !== 0 && t2 < t1)) continue;
        // the test of Bvh.query with t1's box
        if (boxesOverlap(tBox, t2, tBox, t1)) {
          if (found === per) {
            over++;
            break;
          }
          pairs[2 * np] = t1;
          pairs[2 * np + 1] = t2;
          np++;
          found++;
        }
      }
    }
    g0 = g1;
  }
  S.count = np;
  return over;
}

/** Do box i of A and box j of B overlap (closed boxes)? */
export function boxesOverlap(A: Float64Array, i: number, B: Float64Array, j: number): boolean {
  const a = 6 * i,
    b = 6 * j;
  return (
    A[a] <= B[b + 3] &&
    A[a + 3] >= B[b] &&
    A[a + 1] <= B[b + 4] &&
    A[a + 4] >= B[b + 1] &&
    A[a + 2] <= B[b + 5] &&
    A[a + 5] >= B[b + 2]
  );
}

/** Does box i of A come within g of box j of B (per axis)? */
function boxesNear(A: Float64Array, i: number, B: Float64Array, j: number, g: number): boolean {
  const a = 6 * i,
    b = 6 * j;
  return (
    A[a] <= B[b + 3] + g &&
    A[a + 3] + g >= B[b] &&
    A[a + 1] <= B[b + 4] + g &&
    A[a + 4] + g >= B[b + 1] &&
    A[a + 2] <= B[b + 5] + g &&
    A[a + 5] + g >= B[b + 2]
  );
}

export function grow64(a: Float64Array, need: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(Math.max(need, 2 * a.length, 64));
  b.set(a);
  return b;
}

export function grow32(a: Int32Array, need: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(Math.max(need, 2 * a.length, 64));
  b.set(a);
  return b;
}
