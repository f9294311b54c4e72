/**
 * The WebAssembly module of the surface narrow phase, compiled by scripts/build-kernels.ts into
 * src/wasm/narrow.generated.ts: the detection scans of src/collision/surface-narrow-scan.ts
 * (scanVertexTriangles, scanEdgeEdges, scanVertexTriangleCrossings, scanEdgeEdgeCrossings;
 * 003 §4.3) with the same filters in the same order and the same floating-point operations.
 * Nothing of them is written twice: the scans are written once, with their TypeScript, in
 * scripts/kernels/emit-narrow-scans.ts, which emits the module's entry
 * wasm/narrow-scans.generated.ts (scanVt, scanEe, crossVt, crossEe); the exact distances
 * (closestPointTriangleAt with its degenerate triangles, closestSegmentSegmentAt) in
 * scripts/kernels/emit-closest.ts (wasm/closest.generated.ts); the continuous tests (the
 * coplanarity cubic of 003 §3.4 and its roots on [0, 1]) in scripts/kernels/emit-ccd.ts
 * (wasm/ccd.generated.ts); the side of an edge–edge pair (lineDistance, with its TypeScript) in
 * scripts/kernels/emit-line-distance.ts (wasm/line-distance.generated.ts). This file is what the
 * scans read and call: the address table, the per-pair tests and the sides. WebAssembly's f64
 * arithmetic is IEEE with no contraction, so each scan writes the JavaScript's hits and distance
 * bounds, entry for entry — checked by test/surface-narrow-wasm.test.ts. The box tests compare x
 * and y in one f64x2 instruction and z alone, with the same comparisons (a NaN rejects nothing,
 * as in the JavaScript).
 *
 * The arrays live in the module's (imported, possibly shared) memory; `table` is the byte address
 * of their addresses (T_* below, written by src/collision/surface-narrow-wasm.ts). Nothing but the
 * arrays of the scan is written to memory: the scratch of the tests is in the instance's own
 * globals, so several threads' instances can scan blocks of one memory.
 */

import { closestSegmentSegment2, pointTriangle2 } from './closest';

// the address table (i32 slots T_TRI … T_SCALARS), written once with its TypeScript side in
// scripts/kernels/emit-slots.ts (NARROW)
import * as slot from './narrow-slots.generated';

export const FLAG_PROXIMITY = 1,
  FLAG_CCD = 2,
  SIDE_NEG = 16;

export let tri: usize = 0,
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
export let mf: f64 = 0,
  meanEdge: f64 = 0,
  tangled = false,
  rescan = false;

export function bind(table: usize): void {
  tri = load<u32>(table + 4 * slot.T_TRI);
  edge = load<u32>(table + 4 * slot.T_EDGE);
  vertex = load<u32>(table + 4 * slot.T_VERTEX);
  vs = load<u32>(table + 4 * slot.T_VS);
  ts = load<u32>(table + 4 * slot.T_TS);
  es = load<u32>(table + 4 * slot.T_ES);
  hr = load<u32>(table + 4 * slot.T_HR);
  thick = load<u32>(table + 4 * slot.T_THICK);
  label = load<u32>(table + 4 * slot.T_LABEL);
  sharp = load<u32>(table + 4 * slot.T_SHARP);
  w = load<u32>(table + 4 * slot.T_W);
  X = load<u32>(table + 4 * slot.T_X);
  P = load<u32>(table + 4 * slot.T_P);
  sv = load<u32>(table + 4 * slot.T_SV);
  motion = load<u32>(table + 4 * slot.T_MOTION);
  vtc = load<u32>(table + 4 * slot.T_VT);
  vtd = load<u32>(table + 4 * slot.T_VTD);
  eec = load<u32>(table + 4 * slot.T_EE);
  eed = load<u32>(table + 4 * slot.T_EED);
  recheck = load<u32>(table + 4 * slot.T_RECHECK);
  vtHits = load<u32>(table + 4 * slot.T_VTHITS);
  eeHits = load<u32>(table + 4 * slot.T_EEHITS);
  const s = <usize>load<u32>(table + 4 * slot.T_SCALARS);
  mf = load<f64>(s);
  meanEdge = load<f64>(s + 8);
  tangled = load<f64>(s + 16) != 0;
  rescan = load<f64>(s + 24) != 0;
}

@inline export function I(p: usize, i: i32): i32 {
  return load<i32>(p + ((<usize>i) << 2));
}
@inline export function F(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}
@inline export function SF(p: usize, i: i32, v: f64): void {
  store<f64>(p + ((<usize>i) << 3), v);
}
@inline export function V(p: usize, i: i32): v128 {
  return v128.load(p + ((<usize>i) << 3));
}
@inline export function B(p: usize, i: i32): i32 {
  return <i32>load<u8>(p + <usize>i);
}

@inline export function max3(a: f64, b: f64, c: f64): f64 {
  return Math.max(Math.max(a, b), c);
}

export function pairThickness(thick: usize, a: i32, b: i32): f64 {
  const ha = F(thick, a);
  return a == b ? ha : 0.5 * (ha + F(thick, b));
}

/** pointTriangle2 of vertex q3 against corners a3, b3, c3, all read from the array at Q. */
@inline export function pointTriangleAt(Q: usize, q3: i32, a3: i32, b3: i32, c3: i32): f64 {
  return pointTriangle2(
    F(Q, q3), F(Q, q3 + 1), F(Q, q3 + 2), F(Q, a3), F(Q, a3 + 1), F(Q, a3 + 2),
    F(Q, b3), F(Q, b3 + 1), F(Q, b3 + 2), F(Q, c3), F(Q, c3 + 1), F(Q, c3 + 2),
  );
}



@inline export function segmentSegmentAt(Q: usize, a3: i32, b3: i32, c3: i32, d3: i32): f64 {
  return closestSegmentSegment2(
    F(Q, a3), F(Q, a3 + 1), F(Q, a3 + 2), F(Q, b3), F(Q, b3 + 1), F(Q, b3 + 2),
    F(Q, c3), F(Q, c3 + 1), F(Q, c3 + 2), F(Q, d3), F(Q, d3 + 1), F(Q, d3 + 2),
  );
}

/** surface-contact-list.ts contactSide. */
@inline export function contactSide(crossed: bool, dX: f64, dP: f64): f64 {
  if (crossed) return dX > 0 ? 1 : dX < 0 ? -1 : dP > 0 ? -1 : 1;
  return dP > 0 ? 1 : dP < 0 ? -1 : dX >= 0 ? 1 : -1;
}

/** surface-narrow-scan.ts planeDistance. */
export function planeDistance(Q: usize, q3: i32, a3: i32, b3: i32, c3: i32): f64 {
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

/** surface-narrow-scan.ts lineDistance, printed from one template with it by scripts/kernels/emit-line-distance.ts. */
export { lineDistance } from './line-distance.generated';

/**
 * surface-narrow-scan.ts boxNearTriangle: per axis, q's low above the corners' highest high + g,
 * or q's high below their lowest low − g, rejects (x and y in one f64x2 test each way, z alone).
 */
@inline export function boxNearTriangle(sv: usize, oq: i32, oa: i32, ob: i32, oc: i32, g: f64): bool {
  const gg = f64x2.splat(g);
  const hi = f64x2.add(f64x2.max(f64x2.max(V(sv, oa + 3), V(sv, ob + 3)), V(sv, oc + 3)), gg);
  const lo = f64x2.sub(f64x2.min(f64x2.min(V(sv, oa), V(sv, ob)), V(sv, oc)), gg);
  const out = v128.or(f64x2.gt(V(sv, oq), hi), f64x2.lt(V(sv, oq + 3), lo));
  if (v128.any_true(out)) return false;
  if (F(sv, oq + 2) > max3(F(sv, oa + 5), F(sv, ob + 5), F(sv, oc + 5)) + g) return false;
  return !(F(sv, oq + 5) < Math.min(Math.min(F(sv, oa + 2), F(sv, ob + 2)), F(sv, oc + 2)) - g);
}

/** surface-narrow-scan.ts edgeBoxesNear, the same way. */
@inline export function edgeBoxesNear(sv: usize, oa: i32, ob: i32, oc: i32, od: i32, g: f64): bool {
  const gg = f64x2.splat(g);
  const out = v128.or(
    f64x2.gt(f64x2.sub(f64x2.min(V(sv, oa), V(sv, ob)), gg), f64x2.max(V(sv, oc + 3), V(sv, od + 3))),
    f64x2.lt(f64x2.add(f64x2.max(V(sv, oa + 3), V(sv, ob + 3)), gg), f64x2.min(V(sv, oc), V(sv, od))),
  );
  if (v128.any_true(out)) return false;
  if (Math.min(F(sv, oa + 2), F(sv, ob + 2)) - g > Math.max(F(sv, oc + 5), F(sv, od + 5))) return false;
  return !(Math.max(F(sv, oa + 5), F(sv, ob + 5)) + g < Math.min(F(sv, oc + 2), F(sv, od + 2)));
}

@inline export function hit(at: usize, n: i32, k: i32, flags: i32): void {
  const o = at + ((<usize>n) << 3);
  store<i32>(o, k);
  store<i32>(o, flags, 4);
}
