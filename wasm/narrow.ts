/**
 * The WebAssembly module of the surface narrow phase, compiled by
 * scripts/build-kernels.ts into src/wasm/narrow.generated.ts: the detection
 * scans of src/collision/surface-narrow-scan.ts (scanVertexTriangles,
 * scanEdgeEdges, scanVertexTriangleCrossings, scanEdgeEdgeCrossings; 003 §4.3)
 * ported line for line to AssemblyScript, with the same filters in the same
 * order and the same floating-point operations: the exact distances are
 * those of src/collision/geometry.ts closestPointTriangleAt (its degenerate
 * triangles included) and closestSegmentSegmentAt, the continuous tests its
 * vertexTriangleCcd and edgeEdgeCcd (the coplanarity cubic of 003 §3.4 and
 * its roots on [0, 1]). WebAssembly's f64 arithmetic is IEEE with no
 * contraction, so each scan writes the JavaScript's hits and distance bounds,
 * entry for entry — checked by test/surface-narrow-wasm.test.ts. The box
 * tests compare x and y in one f64x2 instruction and z alone, with the same
 * comparisons (a NaN rejects nothing, as in the JavaScript).
 *
 * The arrays live in the module's (imported, possibly shared) memory; `table`
 * is the byte address of their addresses (T_* below, written by
 * src/collision/surface-narrow-wasm.ts). Nothing but the arrays of the scan
 * is written to memory: the scratch of the tests is in the instance's own
 * globals, so several threads' instances can scan blocks of one memory.
 */

import { edgeEdgeCcd, vertexTriangleCcd } from './ccd.generated';
import { closestSegmentSegment2, pointTriangle2, segS, segT } from './closest';

// the address table (i32 slots)
const T_TRI = 0,
  T_EDGE = 1,
  T_VERTEX = 2,
  T_VS = 3,
  T_TS = 4,
  T_ES = 5,
  T_HR = 6,
  T_THICK = 7,
  T_LABEL = 8,
  T_SHARP = 9,
  T_W = 10,
  T_X = 11,
  T_P = 12,
  T_SV = 13,
  T_MOTION = 14,
  T_VT = 15,
  T_VTD = 16,
  T_EE = 17,
  T_EED = 18,
  T_RECHECK = 19,
  T_VTHITS = 20,
  T_EEHITS = 21,
  /** f64 scalars: marginFactor, meanEdge, tangled (1/0), rescan (1/0). */
  T_SCALARS = 22;

const FLAG_PROXIMITY = 1,
  FLAG_CCD = 2,
  SIDE_NEG = 16;

let tri: usize = 0,
  edge: usize = 0,
  vertex: usize = 0,
  vs: usize = 0,
  ts: usize = 0,
  es: usize = 0,
  hr: usize = 0,
  thick: usize = 0,
  label: usize = 0,
  sharp: usize = 0,
  w: usize = 0,
  X: usize = 0,
  P: usize = 0,
  sv: usize = 0,
  motion: usize = 0,
  vtc: usize = 0,
  vtd: usize = 0,
  eec: usize = 0,
  eed: usize = 0,
  recheck: usize = 0,
  vtHits: usize = 0,
  eeHits: usize = 0;
let mf: f64 = 0,
  meanEdge: f64 = 0,
  tangled = false,
  rescan = false;

function bind(table: usize): void {
  tri = load<u32>(table + 4 * T_TRI);
  edge = load<u32>(table + 4 * T_EDGE);
  vertex = load<u32>(table + 4 * T_VERTEX);
  vs = load<u32>(table + 4 * T_VS);
  ts = load<u32>(table + 4 * T_TS);
  es = load<u32>(table + 4 * T_ES);
  hr = load<u32>(table + 4 * T_HR);
  thick = load<u32>(table + 4 * T_THICK);
  label = load<u32>(table + 4 * T_LABEL);
  sharp = load<u32>(table + 4 * T_SHARP);
  w = load<u32>(table + 4 * T_W);
  X = load<u32>(table + 4 * T_X);
  P = load<u32>(table + 4 * T_P);
  sv = load<u32>(table + 4 * T_SV);
  motion = load<u32>(table + 4 * T_MOTION);
  vtc = load<u32>(table + 4 * T_VT);
  vtd = load<u32>(table + 4 * T_VTD);
  eec = load<u32>(table + 4 * T_EE);
  eed = load<u32>(table + 4 * T_EED);
  recheck = load<u32>(table + 4 * T_RECHECK);
  vtHits = load<u32>(table + 4 * T_VTHITS);
  eeHits = load<u32>(table + 4 * T_EEHITS);
  const s = <usize>load<u32>(table + 4 * T_SCALARS);
  mf = load<f64>(s);
  meanEdge = load<f64>(s + 8);
  tangled = load<f64>(s + 16) != 0;
  rescan = load<f64>(s + 24) != 0;
}

@inline function I(p: usize, i: i32): i32 {
  return load<i32>(p + ((<usize>i) << 2));
}
@inline function F(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}
@inline function SF(p: usize, i: i32, v: f64): void {
  store<f64>(p + ((<usize>i) << 3), v);
}
@inline function V(p: usize, i: i32): v128 {
  return v128.load(p + ((<usize>i) << 3));
}
@inline function B(p: usize, i: i32): i32 {
  return <i32>load<u8>(p + <usize>i);
}

@inline function max3(a: f64, b: f64, c: f64): f64 {
  return Math.max(Math.max(a, b), c);
}

function pairThickness(a: i32, b: i32): f64 {
  const ha = F(thick, a);
  return a == b ? ha : 0.5 * (ha + F(thick, b));
}

/** pointTriangle2 of vertex q3 against corners a3, b3, c3, all read from the array at Q. */
@inline function pointTriangleAt(Q: usize, q3: i32, a3: i32, b3: i32, c3: i32): f64 {
  return pointTriangle2(
    F(Q, q3), F(Q, q3 + 1), F(Q, q3 + 2), F(Q, a3), F(Q, a3 + 1), F(Q, a3 + 2),
    F(Q, b3), F(Q, b3 + 1), F(Q, b3 + 2), F(Q, c3), F(Q, c3 + 1), F(Q, c3 + 2),
  );
}



@inline function segmentSegmentAt(Q: usize, a3: i32, b3: i32, c3: i32, d3: i32): f64 {
  return closestSegmentSegment2(
    F(Q, a3), F(Q, a3 + 1), F(Q, a3 + 2), F(Q, b3), F(Q, b3 + 1), F(Q, b3 + 2),
    F(Q, c3), F(Q, c3 + 1), F(Q, c3 + 2), F(Q, d3), F(Q, d3 + 1), F(Q, d3 + 2),
  );
}

/** surface-contact-list.ts contactSide. */
@inline function contactSide(crossed: bool, dX: f64, dP: f64): f64 {
  if (crossed) return dX > 0 ? 1 : dX < 0 ? -1 : dP > 0 ? -1 : 1;
  return dP > 0 ? 1 : dP < 0 ? -1 : dX >= 0 ? 1 : -1;
}

/** surface-narrow-scan.ts planeDistance. */
function planeDistance(Q: usize, q3: i32, a3: i32, b3: i32, c3: i32): f64 {
  const ax = F(Q, a3),
    ay = F(Q, a3 + 1),
    az = F(Q, a3 + 2);
  const ux = F(Q, b3) - ax,
    uy = F(Q, b3 + 1) - ay,
    uz = F(Q, b3 + 2) - az;
  const vx = F(Q, c3) - ax,
    vy = F(Q, c3 + 1) - ay,
    vz = F(Q, c3 + 2) - az;
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(n > 1e-300)) return 0;
  return ((F(Q, q3) - ax) * nx + (F(Q, q3 + 1) - ay) * ny + (F(Q, q3 + 2) - az) * nz) / n;
}

/** surface-narrow-scan.ts lineDistance. */
function lineDistance(Q: usize, a3: i32, b3: i32, c3: i32, d3: i32): f64 {
  const ux = F(Q, b3) - F(Q, a3),
    uy = F(Q, b3 + 1) - F(Q, a3 + 1),
    uz = F(Q, b3 + 2) - F(Q, a3 + 2);
  const vx = F(Q, d3) - F(Q, c3),
    vy = F(Q, d3 + 1) - F(Q, c3 + 1),
    vz = F(Q, d3 + 2) - F(Q, c3 + 2);
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(n > 1e-300)) return 0;
  return (
    ((F(Q, a3) - F(Q, c3)) * nx + (F(Q, a3 + 1) - F(Q, c3 + 1)) * ny + (F(Q, a3 + 2) - F(Q, c3 + 2)) * nz) / n
  );
}

/**
 * surface-narrow-scan.ts boxNearTriangle: per axis, q's low above the corners' highest high + g,
 * or q's high below their lowest low − g, rejects (x and y in one f64x2 test each way, z alone).
 */
@inline function boxNearTriangle(oq: i32, oa: i32, ob: i32, oc: i32, g: f64): bool {
  const gg = f64x2.splat(g);
  const hi = f64x2.add(f64x2.max(f64x2.max(V(sv, oa + 3), V(sv, ob + 3)), V(sv, oc + 3)), gg);
  const lo = f64x2.sub(f64x2.min(f64x2.min(V(sv, oa), V(sv, ob)), V(sv, oc)), gg);
  const out = v128.or(f64x2.gt(V(sv, oq), hi), f64x2.lt(V(sv, oq + 3), lo));
  if (v128.any_true(out)) return false;
  if (F(sv, oq + 2) > max3(F(sv, oa + 5), F(sv, ob + 5), F(sv, oc + 5)) + g) return false;
  return !(F(sv, oq + 5) < Math.min(Math.min(F(sv, oa + 2), F(sv, ob + 2)), F(sv, oc + 2)) - g);
}

/** surface-narrow-scan.ts edgeBoxesNear, the same way. */
@inline function edgeBoxesNear(oa: i32, ob: i32, oc: i32, od: i32, g: f64): bool {
  const gg = f64x2.splat(g);
  const out = v128.or(
    f64x2.gt(f64x2.sub(f64x2.min(V(sv, oa), V(sv, ob)), gg), f64x2.max(V(sv, oc + 3), V(sv, od + 3))),
    f64x2.lt(f64x2.add(f64x2.max(V(sv, oa + 3), V(sv, ob + 3)), gg), f64x2.min(V(sv, oc), V(sv, od))),
  );
  if (v128.any_true(out)) return false;
  if (Math.min(F(sv, oa + 2), F(sv, ob + 2)) - g > Math.max(F(sv, oc + 5), F(sv, od + 5))) return false;
  return !(Math.max(F(sv, oa + 5), F(sv, ob + 5)) + g < Math.min(F(sv, oc + 2), F(sv, od + 2)));
}

@inline function hit(at: usize, n: i32, k: i32, flags: i32): void {
  const o = at + ((<usize>n) << 3);
  store<i32>(o, k);
  store<i32>(o, flags, 4);
}

/**
 * scanVertexTriangles over candidates [k0, k1): hits (k, flags | SIDE_NEG) from the table's
 * vertex–triangle hits + 8 k0, distance bounds lowered in place; returns the number of hits.
 */
export function scanVt(table: usize, k0: i32, k1: i32): i32 {
  bind(table);
  const out = vtHits + ((<usize>k0) << 3);
  const tol = 1e-9 * meanEdge;
  let n = 0;
  for (let k = k0; k < k1; k++) {
    const q = I(vtc, 2 * k),
      t = I(vtc, 2 * k + 1);
    const a = I(tri, 3 * t),
      b = I(tri, 3 * t + 1),
      c = I(tri, 3 * t + 2);
    const mv = F(motion, q) + max3(F(motion, a), F(motion, b), F(motion, c));
    const lb = F(vtd, k);
    const reach = F(hr, I(vs, q)) + F(hr, I(ts, t));
    if (lb >= 0 && lb - mv > reach) continue;
    if (!boxNearTriangle(6 * q, 6 * a, 6 * b, 6 * c, reach)) continue;
    if (tangled) {
      const lq = I(label, q);
      if (!(lq == I(label, a) && lq == I(label, b) && lq == I(label, c))) continue;
    }
    const gq = I(vertex, q),
      ga = I(vertex, a),
      gb = I(vertex, b),
      gc = I(vertex, c);
    if (F(w, gq) == 0 && F(w, ga) == 0 && F(w, gb) == 0 && F(w, gc) == 0) continue;
    const q3 = 3 * gq,
      a3 = 3 * ga,
      b3 = 3 * gb,
      c3 = 3 * gc;
    const dX = Math.sqrt(pointTriangleAt(X, q3, a3, b3, c3));
    SF(vtd, k, dX);
    const h = pairThickness(I(vs, q), I(ts, t));
    if (dX - mv > h * (1 + mf)) continue;
    let flags = 0;
    const dP2 = pointTriangleAt(P, q3, a3, b3, c3);
    const r = h * (1 + mf);
    if (dP2 < r * r) flags |= FLAG_PROXIMITY;
    const tHit = dX <= mv + tol ? vertexTriangleCcd(X, P, q3, a3, b3, c3, tol) : -1;
    if (tHit >= 0) flags |= FLAG_CCD;
    if (flags == 0) continue;
    const s = contactSide(tHit >= 0, planeDistance(X, q3, a3, b3, c3), planeDistance(P, q3, a3, b3, c3));
    hit(out, n, k, s < 0 ? flags | SIDE_NEG : flags);
    n++;
  }
  return n;
}

/** scanEdgeEdges over candidates [k0, k1), the same way. */
export function scanEe(table: usize, k0: i32, k1: i32): i32 {
  bind(table);
  const out = eeHits + ((<usize>k0) << 3);
  const tol = 1e-9 * meanEdge;
  let n = 0;
  for (let k = k0; k < k1; k++) {
    const e = I(eec, 2 * k),
      f = I(eec, 2 * k + 1);
    const a = I(edge, 2 * e),
      b = I(edge, 2 * e + 1),
      c = I(edge, 2 * f),
      d = I(edge, 2 * f + 1);
    const mv = Math.max(F(motion, a), F(motion, b)) + Math.max(F(motion, c), F(motion, d));
    const lb = F(eed, k);
    const sh = B(sharp, e) != 0 && B(sharp, f) != 0;
    const reach = F(hr, I(es, e)) + F(hr, I(es, f));
    if (lb >= 0 && lb - mv > (sh ? reach : tol)) continue;
    if (!edgeBoxesNear(6 * a, 6 * b, 6 * c, 6 * d, reach)) continue;
    if (tangled) {
      const la = I(label, a);
      if (!(la == I(label, b) && la == I(label, c) && la == I(label, d))) continue;
    }
    const ga = I(vertex, a),
      gb = I(vertex, b),
      gc = I(vertex, c),
      gd = I(vertex, d);
    if (F(w, ga) == 0 && F(w, gb) == 0 && F(w, gc) == 0 && F(w, gd) == 0) continue;
    const a3 = 3 * ga,
      b3 = 3 * gb,
      c3 = 3 * gc,
      d3 = 3 * gd;
    const dX = Math.sqrt(segmentSegmentAt(X, a3, b3, c3, d3));
    SF(eed, k, dX);
    let mode = 1,
      mayCross = true;
    const h = pairThickness(I(es, e), I(es, f));
    if (!sh) {
      if (dX > mv + tol) continue;
    } else {
      if (dX - mv > h * (1 + mf)) continue;
      mode = 0;
      mayCross = dX <= mv + tol;
    }
    let flags = 0;
    if (mode == 0) {
      const d2 = segmentSegmentAt(P, a3, b3, c3, d3);
      const r = h * (1 + mf);
      if (d2 < r * r && segS > 0 && segS < 1 && segT > 0 && segT < 1) flags |= FLAG_PROXIMITY;
    }
    let tHit = mayCross ? edgeEdgeCcd(X, P, a3, b3, c3, d3, tol) : -1;
    if (tHit == 0 && mode == 1) tHit = -1;
    if (tHit >= 0) flags |= FLAG_CCD;
    if (flags == 0) continue;
    const s = contactSide(tHit >= 0, lineDistance(X, a3, b3, c3, d3), lineDistance(P, a3, b3, c3, d3));
    hit(out, n, k, s < 0 ? flags | SIDE_NEG : flags);
    n++;
  }
  return n;
}

/** scanVertexTriangleCrossings over candidates [k0, k1). */
export function crossVt(table: usize, k0: i32, k1: i32): i32 {
  bind(table);
  const out = vtHits + ((<usize>k0) << 3);
  const tol = 1e-9 * meanEdge;
  let n = 0;
  for (let k = k0; k < k1; k++) {
    const q = I(vtc, 2 * k),
      t = I(vtc, 2 * k + 1);
    const a = I(tri, 3 * t),
      b = I(tri, 3 * t + 1),
      c = I(tri, 3 * t + 2);
    if (rescan && (B(recheck, q) | B(recheck, a) | B(recheck, b) | B(recheck, c)) == 0) continue;
    const mv = F(motion, q) + max3(F(motion, a), F(motion, b), F(motion, c));
    const lb = F(vtd, k);
    if (lb >= 0) {
      const next = lb - mv;
      SF(vtd, k, next > 0 ? next : -1);
      if (next > tol) continue;
    }
    if (!boxNearTriangle(6 * q, 6 * a, 6 * b, 6 * c, 0)) continue;
    if (tangled && (I(label, q) != 0 || I(label, a) != 0 || I(label, b) != 0 || I(label, c) != 0)) continue;
    const q3 = 3 * I(vertex, q),
      a3 = 3 * I(vertex, a),
      b3 = 3 * I(vertex, b),
      c3 = 3 * I(vertex, c);
    let dX = lb;
    if (dX < 0) {
      dX = Math.sqrt(pointTriangleAt(X, q3, a3, b3, c3));
      const next = dX - mv;
      SF(vtd, k, next > 0 ? next : -1);
    }
    if (dX > mv + tol) continue;
    const tHit = vertexTriangleCcd(X, P, q3, a3, b3, c3, tol);
    if (!(tHit > 0)) continue;
    const s = contactSide(true, planeDistance(X, q3, a3, b3, c3), planeDistance(P, q3, a3, b3, c3));
    hit(out, n, k, s < 0 ? FLAG_CCD | SIDE_NEG : FLAG_CCD);
    n++;
  }
  return n;
}

/** scanEdgeEdgeCrossings over candidates [k0, k1). */
export function crossEe(table: usize, k0: i32, k1: i32): i32 {
  bind(table);
  const out = eeHits + ((<usize>k0) << 3);
  const tol = 1e-9 * meanEdge;
  let n = 0;
  for (let k = k0; k < k1; k++) {
    const e = I(eec, 2 * k),
      f = I(eec, 2 * k + 1);
    const a = I(edge, 2 * e),
      b = I(edge, 2 * e + 1),
      c = I(edge, 2 * f),
      d = I(edge, 2 * f + 1);
    if (rescan && (B(recheck, a) | B(recheck, b) | B(recheck, c) | B(recheck, d)) == 0) continue;
    const mv = Math.max(F(motion, a), F(motion, b)) + Math.max(F(motion, c), F(motion, d));
    const lb = F(eed, k);
    if (lb >= 0) {
      const next = lb - mv;
      SF(eed, k, next > 0 ? next : -1);
      if (next > tol) continue;
    }
    if (!edgeBoxesNear(6 * a, 6 * b, 6 * c, 6 * d, 0)) continue;
    if (tangled && (I(label, a) != 0 || I(label, b) != 0 || I(label, c) != 0 || I(label, d) != 0)) continue;
    const a3 = 3 * I(vertex, a),
      b3 = 3 * I(vertex, b),
      c3 = 3 * I(vertex, c),
      d3 = 3 * I(vertex, d);
    let dX = lb;
    if (dX < 0) {
      dX = Math.sqrt(segmentSegmentAt(X, a3, b3, c3, d3));
      const next = dX - mv;
      SF(eed, k, next > 0 ? next : -1);
    }
    if (dX > mv + tol) continue;
    const tHit = edgeEdgeCcd(X, P, a3, b3, c3, d3, tol);
    if (!(tHit > 0)) continue;
    const s = contactSide(true, lineDistance(X, a3, b3, c3, d3), lineDistance(P, a3, b3, c3, d3));
    hit(out, n, k, s < 0 ? FLAG_CCD | SIDE_NEG : FLAG_CCD);
    n++;
  }
  return n;
}
