import { edgeCross, edgeCrossOut } from '../mesh/triangle-mesh.js';
import type { TopologyArrays } from './surface-topology.js';

/**
 * The detection of the surface contacts (003 §4.3; surface-vertex-triangle.ts
 * and surface-edge-edge.ts say what is tested and why) as functions of
 * plain arrays, so that the same code runs on the calling thread and in
 * blocks on the worker pool (docs/solver.md, "Threads"): a scan over
 * candidates [k0, k1) writes, for every candidate that becomes a contact,
 * (k, flags | SIDE_NEG when s = −1) at hits[2k0 + 2i], and lowers the
 * candidates' distance bounds (each candidate's own slot). The contacts
 * are then pushed by the calling thread in candidate order, so the list is
 * the serial loop's, contact for contact, for every thread count.
 *
 * The four scans (scanVertexTriangles, scanEdgeEdges,
 * scanVertexTriangleCrossings, scanEdgeEdgeCrossings) are written once, with
 * their AssemblyScript twins of the narrow module (wasm/narrow.ts), in
 * scripts/kernels/emit-narrow-scans.ts, which emits them into
 * src/collision/surface-narrow-scans.generated.ts (`npm run kernels`); this
 * file holds the arrays they read and the per-pair tests they call.
 */
export interface NarrowArrays extends TopologyArrays {
  /** Untangling labels (tangled surfaces), sharp edges. */
  label: Int32Array | Uint8Array | Uint16Array;
  sharp: Uint8Array;
  /** The store: inverse masses, positions at the substep's start and its prediction. */
  invMass: Float64Array;
  x: Float64Array;
  p: Float64Array;
  /** Broad phase: swept boxes and motion of the vertices, the candidates and their distance bounds. */
  sv: Float64Array;
  motion: Float64Array;
  vtCand: Int32Array;
  vtDist: Float64Array;
  eeCand: Int32Array;
  eeDist: Float64Array;
  /** The fail-safe's rescans: only candidates with a vertex flagged here. */
  recheck: Uint8Array;
  /** marginFactor, meanEdge, tangled (1/0), rescan (1/0). */
  scalars: Float64Array;
}

export const N_MARGIN = 0;
export const N_MEAN_EDGE = 1;
export const N_TANGLED = 2;
export const N_RESCAN = 3;
/** In a hit's flags: the contact keeps side s = −1. */
export const SIDE_NEG = 16;

/** The thickness of a pair of surfaces (the mean of the two, or the one). */
export function pairThickness(A: NarrowArrays, a: number, b: number): number {
  const ha = A.thickness[a];
  return a === b ? ha : 0.5 * (ha + A.thickness[b]);
}

/**
 * Signed distance of q from the plane of (a, b, c) (0 for a degenerate triangle), along the normal
 * (b − a) × (c − a) of mesh/triangle-mesh.ts edgeCross (the same operations as written out here before).
 */
export function planeDistance(p: Float64Array, q3: number, a3: number, b3: number, c3: number): number {
  edgeCross(p, a3, b3, c3);
  const n = edgeCrossOut;
  const l = Math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(l > 1e-300)) return 0;
  return ((p[q3] - p[a3]) * n[0] + (p[q3 + 1] - p[a3 + 1]) * n[1] + (p[q3 + 2] - p[a3 + 2]) * n[2]) / l;
}

/** Does the box of vertex q (at oq) come within g of the box of the triangle with vertex boxes at oa, ob, oc? */
export function boxNearTriangle(
  b: Float64Array,
  oq: number,
  oa: number,
  ob: number,
  oc: number,
  g: number,
): boolean {
  for (let k = 0; k < 3; k++) {
    const hi = Math.max(b[oa + 3 + k], b[ob + 3 + k], b[oc + 3 + k]) + g;
    if (b[oq + k] > hi) return false;
    const lo = Math.min(b[oa + k], b[ob + k], b[oc + k]) - g;
    if (b[oq + 3 + k] < lo) return false;
  }
  return true;
}

/**
 * Signed distance between the lines a–b and c–d along (b − a) × (d − c) (0 when parallel): printed
 * with its AssemblyScript twin (wasm/narrow.ts) by scripts/kernels/emit-line-distance.ts.
 */
export { lineDistance } from './line-distance.generated.js';

/** Does the box of edge a–b (vertex boxes at oa, ob), grown by g, overlap that of edge c–d? */
export function edgeBoxesNear(
  sv: Float64Array,
  oa: number,
  ob: number,
  oc: number,
  od: number,
  g: number,
): boolean {
  for (let k = 0; k < 3; k++) {
    if (Math.min(sv[oa + k], sv[ob + k]) - g > Math.max(sv[oc + 3 + k], sv[od + 3 + k])) return false;
    if (Math.max(sv[oa + 3 + k], sv[ob + 3 + k]) + g < Math.min(sv[oc + k], sv[od + k])) return false;
  }
  return true;
}
