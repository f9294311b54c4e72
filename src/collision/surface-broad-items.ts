/**
 * The boxes and bounding spheres of the surface broad phase's items
 * (surface-broad-phase.ts): triangle and edge boxes from the vertices'
 * allowance boxes, snapshot triangles' bounding spheres, triangle normals.
 */

import { edgeCross, edgeCrossOut } from '../mesh/triangle-mesh.js';

/** out box t = union of the vertex boxes a, b, c grown by g. */
export function unionBox(
  out: Float64Array,
  t: number,
  vb: Float64Array,
  a: number,
  b: number,
  c: number,
  g: number,
): void {
  const o = 6 * t,
    oa = 6 * a,
    ob = 6 * b,
    oc = 6 * c;
  for (let k = 0; k < 3; k++) {
    let lo = vb[oa + k];
    if (vb[ob + k] < lo) lo = vb[ob + k];
    if (vb[oc + k] < lo) lo = vb[oc + k];
    let hi = vb[oa + 3 + k];
    if (vb[ob + 3 + k] > hi) hi = vb[ob + 3 + k];
    if (vb[oc + 3 + k] > hi) hi = vb[oc + 3 + k];
    out[o + k] = lo - g;
    out[o + 3 + k] = hi + g;
  }
}

export function unionBox2(
  out: Float64Array,
  e: number,
  vb: Float64Array,
  a: number,
  b: number,
  g: number,
): void {
  const o = 6 * e,
    oa = 6 * a,
    ob = 6 * b;
  for (let k = 0; k < 3; k++) {
    out[o + k] = Math.min(vb[oa + k], vb[ob + k]) - g;
    out[o + 3 + k] = Math.max(vb[oa + 3 + k], vb[ob + 3 + k]) + g;
  }
}

/** Centroid and radius (largest vertex distance) of snapshot triangle (a, b, c) into out[4t .. 4t + 3]. */
export function boundingSphere(
  out: Float64Array,
  t: number,
  S: Float64Array,
  a: number,
  b: number,
  c: number,
): void {
  const a3 = 3 * a,
    b3 = 3 * b,
    c3 = 3 * c;
  const cx = (S[a3] + S[b3] + S[c3]) / 3,
    cy = (S[a3 + 1] + S[b3 + 1] + S[c3 + 1]) / 3,
    cz = (S[a3 + 2] + S[b3 + 2] + S[c3 + 2]) / 3;
  const ra = (S[a3] - cx) ** 2 + (S[a3 + 1] - cy) ** 2 + (S[a3 + 2] - cz) ** 2,
    rb = (S[b3] - cx) ** 2 + (S[b3 + 1] - cy) ** 2 + (S[b3 + 2] - cz) ** 2,
    rc = (S[c3] - cx) ** 2 + (S[c3 + 1] - cy) ** 2 + (S[c3 + 2] - cz) ** 2;
  const o = 4 * t;
  out[o] = cx;
  out[o + 1] = cy;
  out[o + 2] = cz;
  out[o + 3] = Math.sqrt(Math.max(ra, rb, rc));
}

/** Unit normal of triangle t (surface-vertex ids) at x into out (0 for a degenerate one). */
export function triangleNormal(
  x: Float64Array,
  vert: Int32Array,
  tri: Int32Array,
  t: number,
  out: Float64Array,
): void {
  // (b − a) × (c − a): mesh/triangle-mesh.ts edgeCross, the cross product areas and volumes share
  edgeCross(x, 3 * vert[tri[3 * t]], 3 * vert[tri[3 * t + 1]], 3 * vert[tri[3 * t + 2]]);
  const nx = edgeCrossOut[0],
    ny = edgeCrossOut[1],
    nz = edgeCrossOut[2];
  const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
  const inv = l > 0 ? 1 / l : 0;
  out[0] = nx * inv;
  out[1] = ny * inv;
  out[2] = nz * inv;
}

/**
 * Arrays of `n` elements on shared memory where there is any, else plain
 * ones: the broad phase keeps its snapshots, item boxes and dirty flags in
 * them, so that its tasks on the worker pool read them where they are
 * instead of copies made at every rebuild and update (surface-broad-tasks.ts).
 */
export function sharedF64(n: number): Float64Array {
  return typeof SharedArrayBuffer === 'undefined'
    ? new Float64Array(n)
    : new Float64Array(new SharedArrayBuffer(8 * n));
}

export function sharedU8(n: number): Uint8Array {
  return typeof SharedArrayBuffer === 'undefined'
    ? new Uint8Array(n)
    : new Uint8Array(new SharedArrayBuffer(n));
}

/** Where the broad phase allocates its arrays (zeroed): shared memory, or the WebAssembly memory of surface-broad-wasm.ts. */
export interface ArrayAlloc {
  f64(n: number): Float64Array;
  u8(n: number): Uint8Array;
}

/** sharedF64 and sharedU8 (plain arrays where there is no shared memory). */
export const sharedAlloc: ArrayAlloc = { f64: sharedF64, u8: sharedU8 };
