/**
 * The WebAssembly module of the surface broad phase, compiled by
 * scripts/build-kernels.ts into src/wasm/surfaces.generated.ts: the candidate
 * tests of the triangle pairs of a full rebuild or of an incremental update
 * (src/collision/surface-broad-pairs.ts collectPairRange with vtCandidate and
 * eeCandidate, partial mode on or off),
 * written in AssemblyScript as a port with the same tests in the same order
 * and the same floating-point operations (the exact distances are those of
 * src/collision/geometry.ts closestPointTriangleAt and closestSegmentSegmentAt;
 * WebAssembly's f64 arithmetic is IEEE with no contraction), so that the
 * lists are the JavaScript loop's entry for entry — checked by
 * test/surface-broad-wasm.test.ts. The box tests compare two axes per f64x2
 * instruction, with the same comparisons. A degenerate (zero-area) triangle
 * in an exact test stops the run (status 2) and the JavaScript loop does the
 * whole range instead (src/collision/surface-broad-wasm.ts).
 *
 * Arguments named like the JavaScript arrays are byte addresses in the
 * module's (imported) memory. Where there is shared memory that memory is the
 * broad phase's own (src/collision/surface-broad-wasm.ts BroadMemory: its
 * snapshots, boxes and flags are allocated there, and every thread of the
 * pool runs an instance of this module on it); elsewhere
 * src/collision/surface-broad-wasm.ts copies the arrays in before each run.
 */

// vtCandidate and eeCandidate, written once with src/collision/surface-broad-pairs.ts's in
// scripts/kernels/emit-broad-candidates.ts
// (and the layout of the triangles' records they read)
import {
  eeCandidate,
  R_E,
  R_EDGE,
  R_EDGESURFACE,
  R_EHALF,
  R_HEAD,
  R_NE,
  R_NV,
  R_TRI,
  R_TRISURFACE,
  R_TSPHERE,
  R_V,
  setCandidateScalars,
  vtCandidate,
} from './broad-candidates.generated';
// the self traversal, written once with src/collision/bvh-self-pairs.ts's in scripts/kernels/emit-self-traversal.ts
import { saturatedN, selfTraversal, setCounted, truncatedN } from './bvh-self-traversal.generated';
import { B, F, I, put, V } from './broad-memory';
// the address table's globals and their loads, written once with surface-broad-wasm.ts's lists in
// scripts/kernels/emit-slots.ts (BROAD)
import {
  loadTable,
  dirtyEnds,
  dirtyList,
  eBox,
  eDirty,
  edge,
  edgeSurface,
  eHalf,
  halfReach,
  nBox,
  nCount,
  nItems,
  nRight,
  nStart,
  ownE,
  ownEStart,
  ownV,
  ownVStart,
  tBox,
  tDirty,
  tri,
  triSurface,
  tSphere,
  vBox,
  vDirty,
  vertexSurface,
} from './broad-table.generated';

let vtOut: usize = 0,
  vtCap: i32 = 0,
  vtN: i32 = 0;
let eeOut: usize = 0,
  eeCap: i32 = 0,
  eeN: i32 = 0;

/** The addresses of the broad phase's arrays (BroadArrays, in the order of ARRAYS in surface-broad-wasm.ts) and its scalars. */
export function setArrays(table: usize, s: i32, m: f64, me: f64): void {
  loadTable(table);
  setCandidateScalars(s, m, me);
}

/** Where the candidates go: (q, t) pairs at vt, (e, f) pairs at ee, at most vc and ec of them. */
export function setOut(vt: usize, vc: i32, ee: usize, ec: i32): void {
  vtOut = vt;
  vtCap = vc;
  eeOut = ee;
  eeCap = ec;
  vtN = 0;
  eeN = 0;
}

export function vtCount(): i32 {
  return vtN;
}

export function eeCount(): i32 {
  return eeN;
}

/** Pair n (a, b) of the candidate list at `out` (two i32 each): the one write of both lists. */
@inline function putPair(out: usize, n: i32, a: i32, b: i32): void {
  const o = out + ((<usize>n) << 3);
  store<i32>(o, a);
  store<i32>(o, b, 4);
}

/**
 * One record per triangle for the candidate tests (docs/collision.md, "Fifteenth round"): at
 * rec + recAt[t] (bytes), its box (6 f64), its corners a, b, c (R_TRI), the counts of the vertices
 * and edges it owns (R_NV, R_NE), its surface and bounding sphere (R_TRISURFACE, R_TSPHERE), then
 * per owned vertex its box, id and surface (R_V bytes), per owned edge its box, id, ends, surface
 * and half length (R_E bytes; the layout is scripts/kernels/emit-broad-candidates.ts RECORD). A triangle pair reads two records instead of the
 * nine arrays tri, ownVStart, ownV, vBox, tBox, ownEStart, ownE, eBox and edge. packRecords copies
 * them from those arrays (the same numbers: the tests compare the same values in the same order).
 */
let rec: usize = 0,
  recAt: usize = 0;

/** The records' bytes for a triangle owning nv vertices and ne edges (SurfaceTopology's ownership). */
export function recordBytes(nv: i32, ne: i32): i32 {
  return R_HEAD + R_V * nv + R_E * ne;
}

/** Where the records are: rec + recAt[t] (after setArrays). */
export function setRecords(r: usize, at: usize): void {
  rec = r;
  recAt = at;
}

/** Copies 6 f64 (a box) from src to dst. */
@inline function copyBox(dst: usize, src: usize): void {
  v128.store(dst, v128.load(src));
  v128.store(dst, v128.load(src, 16), 16);
  v128.store(dst, v128.load(src, 32), 32);
}

/** Writes triangle t's record from the address table's arrays. */
@inline function packRecord(t: i32): void {
  const R = rec + <usize>I(recAt, t);
  copyBox(R, tBox + (<usize>(6 * t) << 3));
  store<i32>(R, I(tri, 3 * t), R_TRI);
  store<i32>(R, I(tri, 3 * t + 1), R_TRI + 4);
  store<i32>(R, I(tri, 3 * t + 2), R_TRI + 8);
  store<i32>(R, I(triSurface, t), R_TRISURFACE);
  v128.store(R, V(tSphere, 4 * t), R_TSPHERE);
  v128.store(R, V(tSphere, 4 * t + 2), R_TSPHERE + 16);
  const v0 = I(ownVStart, t),
    v1 = I(ownVStart, t + 1),
    e0 = I(ownEStart, t),
    e1 = I(ownEStart, t + 1);
  store<i32>(R, v1 - v0, R_NV);
  store<i32>(R, e1 - e0, R_NE);
  let o = R + R_HEAD;
  for (let j = v0; j < v1; j++) {
    const q = I(ownV, j);
    copyBox(o, vBox + (<usize>(6 * q) << 3));
    store<i32>(o, q, 48);
    store<i32>(o, I(vertexSurface, q), 52);
    o += R_V;
  }
  for (let j = e0; j < e1; j++) {
    const e = I(ownE, j);
    copyBox(o, eBox + (<usize>(6 * e) << 3));
    store<i32>(o, e, 48);
    store<i32>(o, I(edge, 2 * e), R_EDGE);
    store<i32>(o, I(edge, 2 * e + 1), R_EDGE + 4);
    store<i32>(o, I(edgeSurface, e), R_EDGESURFACE);
    store<f64>(o, F(eHalf, e), R_EHALF);
    o += R_E;
  }
}

/**
 * Rewrites the records of triangles k0 … k1 − 1 (list 0), or of the triangles at list[k0 … k1). Each
 * record is its own bytes, so any thread may pack any range (a pooled rebuild's records are packed in
 * blocks while the calling thread refits the tree: src/collision/surface-broad-pack.ts, session 23).
 */
export function packRecords(list: usize, k0: i32, k1: i32): void {
  if (list == 0) for (let t = k0; t < k1; t++) packRecord(t);
  else for (let k = k0; k < k1; k++) packRecord(I(list, k));
}

/**
 * boxesOverlap of the boxes at byte addresses a and b: min x, y against max x, y in one f64x2
 * comparison each way, z alone, the answers and-ed without a branch (the same comparisons; one
 * branch at the caller where there were three: docs/collision.md, "Fifteenth round").
 */
@inline function overlapAt(a: usize, b: usize): bool {
  const m = v128.and(f64x2.le(v128.load(a), v128.load(b, 24)), f64x2.le(v128.load(b), v128.load(a, 24)));
  return (
    (<i32>i64x2.all_true(m) & <i32>(load<f64>(a, 16) <= load<f64>(b, 40)) & <i32>(load<f64>(a, 40) >= load<f64>(b, 16))) !=
    0
  );
}

/** boxesNear (box a within g of box b per axis), the same way. */
@inline function nearAt(a: usize, b: usize, g: f64): bool {
  const gg = f64x2.splat(g);
  const m = v128.and(
    f64x2.le(v128.load(a), f64x2.add(v128.load(b, 24), gg)),
    f64x2.ge(f64x2.add(v128.load(a, 24), gg), v128.load(b)),
  );
  return (
    (<i32>i64x2.all_true(m) &
      <i32>(load<f64>(a, 16) <= load<f64>(b, 40) + g) &
      <i32>(load<f64>(a, 40) + g >= load<f64>(b, 16))) !=
    0
  );
}

/**
 * The vertices owned by the triangle of record R1 against triangle t (record R2): 0, 1 (output
 * full) or 2 (degenerate). `clean`: t is not dirty in a partial update, so only dirty vertices are
 * tested. Inlined in collectPairRange: a rebuild's tests take 0.93 × the CPU they took with the
 * call (docs/collision.md, "Fourteenth round").
 */
@inline function vertexTests(R1: usize, t: i32, R2: usize, clean: bool): i32 {
  const a = load<i32>(R2, R_TRI),
    b = load<i32>(R2, R_TRI + 4),
    c = load<i32>(R2, R_TRI + 8);
  const end = R1 + R_HEAD + <usize>(R_V * load<i32>(R1, R_NV));
  for (let o = R1 + R_HEAD; o < end; o += R_V) {
    const q = load<i32>(o, 48);
    if ((clean && B(vDirty, q) == 0) || (<i32>(q == a) | <i32>(q == b) | <i32>(q == c)) != 0) continue;
    if (!nearAt(o, R2, F(halfReach, load<i32>(o, 52)))) continue;
    const r = vtCandidate(q, t, R2);
    if (r < 0) return 2;
    if (r == 0) continue;
    if (vtN >= vtCap) return 1;
    putPair(vtOut, vtN, q, t);
    vtN++;
  }
  return 0;
}

/**
 * collectPairRange over the triangle pairs k0 … k1 − 1 at `pairs`: 0 done,
 * 1 an output filled up, 2 a degenerate triangle met (the lists are then
 * incomplete: the caller runs the JavaScript loop). `partial` (an
 * incremental update, collectTrianglePair's partial mode): only the pairs
 * with a dirty vertex, triangle or edge. Reads the triangles' records
 * (packRecords after the item boxes).
 */
export function collectPairRange(pairs: usize, k0: i32, k1: i32, partial: i32): i32 {
  const part = partial != 0;
  for (let k = k0; k < k1; k++) {
    const t1 = I(pairs, 2 * k),
      t2 = I(pairs, 2 * k + 1);
    const R1 = rec + <usize>I(recAt, t1),
      R2 = rec + <usize>I(recAt, t2);
    // (half the triangles own no vertex: the tests only where there is one)
    let r = 0;
    if (load<i32>(R1, R_NV) > 0) r = vertexTests(R1, t2, R2, part && B(tDirty, t2) == 0);
    if (r != 0) return r;
    if (load<i32>(R2, R_NV) > 0) r = vertexTests(R2, t1, R1, part && B(tDirty, t1) == 0);
    if (r != 0) return r;
    const n2 = load<i32>(R2, R_NE);
    if (n2 == 0) continue;
    const E1 = R1 + R_HEAD + <usize>(R_V * load<i32>(R1, R_NV)),
      E2 = R2 + R_HEAD + <usize>(R_V * load<i32>(R2, R_NV));
    const end1 = E1 + <usize>(R_E * load<i32>(R1, R_NE)),
      end2 = E2 + <usize>(R_E * n2);
    for (let oe = E1; oe < end1; oe += R_E) {
      const e = load<i32>(oe, 48);
      const ce = part && B(eDirty, e) == 0;
      // every edge box of t2 lies inside t2's box
      if (!overlapAt(oe, R2)) continue;
      const ea = load<i32>(oe, R_EDGE),
        eb = load<i32>(oe, R_EDGE + 4);
      for (let fo = E2; fo < end2; fo += R_E) {
        const f = load<i32>(fo, 48);
        if (ce && B(eDirty, f) == 0) continue;
        const fa = load<i32>(fo, R_EDGE),
          fb = load<i32>(fo, R_EDGE + 4);
        if ((<i32>(fa == ea) | <i32>(fa == eb) | <i32>(fb == ea) | <i32>(fb == eb)) != 0) continue;
        if (!overlapAt(oe, fo) || !eeCandidate(e, f, oe, fo)) continue;
        if (eeN >= eeCap) return 1;
        putPair(eeOut, eeN, e, f);
        eeN++;
      }
    }
  }
  return 0;
}

/**
 * src/collision/bvh-self-pairs.ts selfPairsOfNodes over the tree of the
 * address table (nodes) and the triangle boxes (tBox): the overlapping
 * triangle pairs of the traversal from node pair (a0, b0), in its order,
 * appended to out[2n …] within `cap` pairs in all, with the traversal's
 * stack at `st` (room for stCap entries). Returns the new count, −1 when
 * `cap` was reached, −2 when the stack was too small (the caller then
 * runs the JavaScript traversal).
 */
export function selfPairsOfNodes(a0: i32, b0: i32, out: usize, n: i32, cap: i32, st: usize, stCap: i32): i32 {
  return selfTraversal(false, a0, b0, out, n, cap, st, stCap, 0, 0, 0, 0);
}

/**
 * What the last selfPairsBounded counted besides its pairs (the items that
 * reached their budget; 1 where it stopped at the total), or the last
 * dirtyPairs (the triangles or queries past their budget; after −3, the
 * result room a query needed): counted(0), counted(1).
 */
export function counted(k: i32): i32 {
  return k == 0 ? saturatedN : truncatedN;
}

/**
 * src/collision/bvh.ts Bvh.selfPairsBounded (without marks) over the tree of
 * the address table (nodes, with its parents and each item's leaf) and the
 * triangle boxes (tBox): the same pairs in the same order, each item in at
 * most `perItem` pairs (a subtree whose items have all reached it is not
 * descended: `open` per node), stopping at `maxPairs` pairs (0: no limit),
 * written to out[0 …] (room for `cap` pairs). `ip` (n i32) and `open`
 * (nodes i32) are scratch; the stack at `st` has room for stCap entries.
 * Returns the count (boundedSaturated, boundedTruncated say how it ended),
 * −1 when `cap` was too small, −2 when the stack was (the caller grows them
 * and runs it again). docs/collision.md, "Eleventh round".
 */
export function selfPairsBounded(
  n: i32,
  nodes: i32,
  perItem: i32,
  maxPairs: i32,
  ip: usize,
  open: usize,
  out: usize,
  cap: i32,
  st: usize,
  stCap: i32,
): i32 {
  setCounted(0, 0);
  if (n < 2) return 0;
  memory.fill(ip, 0, (<usize>n) << 2);
  for (let k = nodes - 1; k >= 0; k--) {
    const c = I(nCount, k);
    put(open, k, c > 0 ? c : I(open, k + 1) + I(open, I(nRight, k)));
  }
  return selfTraversal(true, 0, 0, out, 0, cap, st, stCap, perItem, maxPairs, ip, open);
}

/**
 * src/collision/bvh-self-pairs.ts queryNodes over the tree of the address
 * table (nodes) and the triangle boxes (tBox) with the query box (min x, y
 * in lo, max x, y in hi, z from z0 to z1): the items whose boxes overlap it,
 * depth first, left child first, to res[0 …], stopping at `limit` items; −1
 * where `resCap` filled up first, −2 where the stack at `st` (stCap
 * entries) did.
 */
function queryTree(
  limit: i32,
  res: usize,
  resCap: i32,
  st: usize,
  stCap: i32,
  lo: v128,
  hi: v128,
  z0: f64,
  z1: f64,
): i32 {
  const x0 = f64x2.extract_lane(lo, 0),
    y0 = f64x2.extract_lane(lo, 1),
    x1 = f64x2.extract_lane(hi, 0),
    y1 = f64x2.extract_lane(hi, 1);
  let m = 0,
    sp = 0;
  put(st, sp++, 0);
  while (sp > 0) {
    const n = I(st, --sp);
    const o = 6 * n;
    const B = nBox;
    // (the six answers or-ed without a branch: one branch where there were up to six)
    if (
      (<i32>(F(B, o) > x1) |
        <i32>(F(B, o + 3) < x0) |
        <i32>(F(B, o + 1) > y1) |
        <i32>(F(B, o + 4) < y0) |
        <i32>(F(B, o + 2) > z1) |
        <i32>(F(B, o + 5) < z0)) !=
      0
    )
      continue;
    const c = I(nCount, n);
    if (c > 0) {
      const s = I(nStart, n);
      for (let k = s; k < s + c; k++) {
        const i = I(nItems, k);
        const b = 6 * i;
        if (
          (<i32>(F(tBox, b) <= x1) &
            <i32>(F(tBox, b + 3) >= x0) &
            <i32>(F(tBox, b + 1) <= y1) &
            <i32>(F(tBox, b + 4) >= y0) &
            <i32>(F(tBox, b + 2) <= z1) &
            <i32>(F(tBox, b + 5) >= z0)) !=
          0
        ) {
          if (m == resCap) return -1;
          put(res, m++, i);
          if (m == limit) return m;
        }
      }
    } else {
      if (sp + 2 > stCap) return -2;
      put(st, sp++, I(nRight, n));
      put(st, sp++, n + 1);
    }
  }
  return m;
}

/**
 * src/collision/surface-broad-pairs.ts collectDirtyPairs over the groups
 * gFrom … gTo − 1 of the address table's dirty triangles (dirtyList, ends
 * at dirtyEnds): per group one tree query with the union of its triangles'
 * boxes (queryTree, at most `per` items per triangle), whose answer is
 * filtered by each triangle's own box, at most `per` pairs per triangle;
 * the same pairs in the same order to out[0 …] (room for `cap` pairs), the
 * query's results at `res` (resCap entries), its stack at `st`. Returns the
 * pair count (counted(0): the triangles or queries past their budget), −1
 * where `cap` was too small, −2 the stack, −3 the results (counted(1): the
 * room needed). docs/collision.md, "Twelfth round, the broad phase".
 */
export function dirtyPairs(
  gFrom: i32,
  gTo: i32,
  per: i32,
  out: usize,
  cap: i32,
  res: usize,
  resCap: i32,
  st: usize,
  stCap: i32,
): i32 {
  let over = 0,
    np = 0;
  setCounted(0, 0);
  let g0 = gFrom == 0 ? 0 : I(dirtyEnds, gFrom - 1);
  for (let gi = gFrom; gi < gTo; gi++) {
    const g1 = I(dirtyEnds, gi);
    // the union of the group's boxes as the JavaScript's `if (v < m) m = v` takes it: pmin(m, v)
    // is v < m ? v : m and pmax(m, v) is m < v ? v : m, lane by lane (a NaN leaves m, as there)
    let lo = f64x2.splat(Infinity),
      hi = f64x2.splat(-Infinity),
      z0 = Infinity,
      z1 = -Infinity;
    for (let i = g0; i < g1; i++) {
      const o = 6 * I(dirtyList, i);
      lo = f64x2.pmin(lo, V(tBox, o));
      hi = f64x2.pmax(hi, V(tBox, o + 3));
      if (F(tBox, o + 2) < z0) z0 = F(tBox, o + 2);
      if (F(tBox, o + 5) > z1) z1 = F(tBox, o + 5);
    }
    const limit = per * (g1 - g0);
    const m = queryTree(limit, res, resCap, st, stCap, lo, hi, z0, z1);
    if (m == -1) {
      setCounted(0, limit);
      return -3;
    }
    if (m < 0) return -2;
    if (m == limit) over++;
    for (let i = g0; i < g1; i++) {
      const t1 = I(dirtyList, i);
      let found = 0;
      for (let k = 0; k < m; k++) {
        const t2 = I(res, k);
        if (t2 == t1 || (B(tDirty, t2) != 0 && t2 < t1)) continue;
        // the test of Bvh.query with t1's box
        if (overlapAt(tBox + ((<usize>(6 * t2)) << 3), tBox + ((<usize>(6 * t1)) << 3))) {
          if (found == per) {
            over++;
            break;
          }
          if (np == cap) return -1;
          put(out, 2 * np, t1);
          put(out, 2 * np + 1, t2);
          np++;
          found++;
        }
      }
    }
    g0 = g1;
  }
  setCounted(over, 0);
  return np;
}
