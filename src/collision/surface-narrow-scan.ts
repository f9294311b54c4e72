import {
  closestPointTriangleAt,
  closestSegmentSegmentAt,
  edgeEdgeCcd,
  vertexTriangleCcd,
} from './geometry.js';
import { contactSide, FLAG_CCD, FLAG_PROXIMITY } from './surface-contact-list.js';
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

const cp = new Float64Array(7);
const ss = new Float64Array(3);

function pairThickness(A: NarrowArrays, a: number, b: number): number {
  const ha = A.thickness[a];
  return a === b ? ha : 0.5 * (ha + A.thickness[b]);
}

/**
 * Vertex–triangle candidates [k0, k1): the distance-bound, box, label and
 * mass filters of the proximity pass, then proximity at p and the
 * continuous test x → p (mode 0 of VertexTriangleContacts.test). Returns
 * the number of hits written from hits[2 k0].
 */
export function scanVertexTriangles(A: NarrowArrays, k0: number, k1: number, hits: Int32Array): number {
  const { tri, vertex: vert, vertexSurface: vs, triSurface: ts, halfReach: hr, label, invMass: w } = A;
  const { x, p, sv, motion, vtCand: vt, vtDist } = A;
  const mf = A.scalars[N_MARGIN];
  const tol = 1e-9 * A.scalars[N_MEAN_EDGE];
  const tangled = A.scalars[N_TANGLED] !== 0;
  let n = 0;
  for (let k = k0; k < k1; k++) {
    const q = vt[2 * k],
      t = vt[2 * k + 1];
    const a = tri[3 * t],
      b = tri[3 * t + 1],
      c = tri[3 * t + 2];
    // a lower bound of the distance at x, carried over from earlier substeps
    const mv = motion[q] + Math.max(motion[a], motion[b], motion[c]);
    const lb = vtDist[k];
    const reach = hr[vs[q]] + hr[ts[t]];
    if (lb >= 0 && lb - mv > reach) continue;
    if (!boxNearTriangle(sv, 6 * q, 6 * a, 6 * b, 6 * c, reach)) continue;
    if (tangled && !(label[q] === label[a] && label[q] === label[b] && label[q] === label[c])) continue;
    const gq = vert[q],
      ga = vert[a],
      gb = vert[b],
      gc = vert[c];
    if (w[gq] === 0 && w[ga] === 0 && w[gb] === 0 && w[gc] === 0) continue;
    // the distance at x less the motion of the pair bounds the distance during the substep
    const q3 = 3 * gq,
      a3 = 3 * ga,
      b3 = 3 * gb,
      c3 = 3 * gc;
    closestPointTriangleAt(x, q3, x, a3, b3, c3, cp);
    const dX = Math.sqrt(cp[6]);
    vtDist[k] = dX;
    const h = pairThickness(A, vs[q], ts[t]);
    if (dX - mv > h * (1 + mf)) continue;
    // mode 0: proximity at p, and a crossing during x → p where the pair can touch at all
    let flags = 0;
    closestPointTriangleAt(p, q3, p, a3, b3, c3, cp);
    const r = h * (1 + mf);
    if (cp[6] < r * r) flags |= FLAG_PROXIMITY;
    const tHit = dX <= mv + tol ? vertexTriangleCcd(x, p, q3, a3, b3, c3, tol) : -1;
    if (tHit >= 0) flags |= FLAG_CCD;
    if (flags === 0) continue;
    // the side the vertex came from: before the first crossing, or where it is now
    const s = contactSide(tHit >= 0, planeDistance(x, q3, a3, b3, c3), planeDistance(p, q3, a3, b3, c3));
    hits[2 * (k0 + n)] = k;
    hits[2 * (k0 + n) + 1] = s < 0 ? flags | SIDE_NEG : flags;
    n++;
  }
  return n;
}

/**
 * Edge–edge candidates [k0, k1): proximity (between two sharp edges) at p
 * and crossings during x → p (EdgeEdgeContacts.detect and its test).
 * Returns the number of hits written from hits[2 k0].
 */
export function scanEdgeEdges(A: NarrowArrays, k0: number, k1: number, hits: Int32Array): number {
  const { edge, vertex: vert, edgeSurface: es, halfReach: hr, label, invMass: w, sharp: sharpE } = A;
  const { x, p, sv, motion, eeCand: ee, eeDist } = A;
  const mf = A.scalars[N_MARGIN];
  const tol = 1e-9 * A.scalars[N_MEAN_EDGE];
  const tangled = A.scalars[N_TANGLED] !== 0;
  let n = 0;
  for (let k = k0; k < k1; k++) {
    const e = ee[2 * k],
      f = ee[2 * k + 1];
    const a = edge[2 * e],
      b = edge[2 * e + 1],
      c = edge[2 * f],
      d = edge[2 * f + 1];
    const mv = Math.max(motion[a], motion[b]) + Math.max(motion[c], motion[d]);
    const lb = eeDist[k];
    // proximity contacts only between two sharp (creased or boundary) edges; crossings for every pair
    const sharp = sharpE[e] !== 0 && sharpE[f] !== 0;
    const reach = hr[es[e]] + hr[es[f]];
    if (lb >= 0 && lb - mv > (sharp ? reach : tol)) continue;
    if (!edgeBoxesNear(sv, 6 * a, 6 * b, 6 * c, 6 * d, reach)) continue;
    if (tangled && !(label[a] === label[b] && label[a] === label[c] && label[a] === label[d])) continue;
    const ga = vert[a],
      gb = vert[b],
      gc = vert[c],
      gd = vert[d];
    if (w[ga] === 0 && w[gb] === 0 && w[gc] === 0 && w[gd] === 0) continue;
    const a3 = 3 * ga,
      b3 = 3 * gb,
      c3 = 3 * gc,
      d3 = 3 * gd;
    closestSegmentSegmentAt(x, a3, b3, x, c3, d3, ss);
    const dX = Math.sqrt(ss[2]);
    eeDist[k] = dX;
    let mode = 1,
      mayCross = true;
    const h = pairThickness(A, es[e], es[f]);
    if (!sharp) {
      if (dX > mv + tol) continue;
    } else {
      if (dX - mv > h * (1 + mf)) continue;
      mode = 0;
      mayCross = dX <= mv + tol;
    }
    let flags = 0;
    if (mode === 0) {
      closestSegmentSegmentAt(p, a3, b3, p, c3, d3, ss);
      const r = h * (1 + mf);
      // closest points strictly inside both edges: end points are vertex–triangle business
      if (ss[2] < r * r && ss[0] > 0 && ss[0] < 1 && ss[1] > 0 && ss[1] < 1) flags |= FLAG_PROXIMITY;
    }
    let tHit = mayCross ? edgeEdgeCcd(x, p, a3, b3, c3, d3, tol) : -1;
    // crossings only (mode 1): a pair that already touches at x has no side to keep and is no crossing
    if (tHit === 0 && mode === 1) tHit = -1;
    if (tHit >= 0) flags |= FLAG_CCD;
    if (flags === 0) continue;
    const s = contactSide(tHit >= 0, lineDistance(x, a3, b3, c3, d3), lineDistance(p, a3, b3, c3, d3));
    hits[2 * (k0 + n)] = k;
    hits[2 * (k0 + n) + 1] = s < 0 ? flags | SIDE_NEG : flags;
    n++;
  }
  return n;
}

/**
 * The fail-safe's crossing test x → p over vertex–triangle candidates
 * [k0, k1) (with rescan, only those with a vertex in `recheck`): the
 * distance bounds drop by the motion of the substep, and a pair that can
 * cross is tested continuously (a pair already touching at x is no
 * crossing). Labelled (tangled) vertices are left to the untangling.
 * Returns the number of crossings written from hits[2 k0].
 */
export function scanVertexTriangleCrossings(
  A: NarrowArrays,
  k0: number,
  k1: number,
  hits: Int32Array,
): number {
  const { tri, vertex: vert, label, x, p, sv, motion, vtCand: vt, vtDist, recheck } = A;
  const tol = 1e-9 * A.scalars[N_MEAN_EDGE];
  const tangled = A.scalars[N_TANGLED] !== 0;
  const rescan = A.scalars[N_RESCAN] !== 0;
  let n = 0;
  for (let k = k0; k < k1; k++) {
    const q = vt[2 * k],
      t = vt[2 * k + 1];
    const a = tri[3 * t],
      b = tri[3 * t + 1],
      c = tri[3 * t + 2];
    if (rescan && (recheck[q] | recheck[a] | recheck[b] | recheck[c]) === 0) continue;
    const mv = motion[q] + Math.max(motion[a], motion[b], motion[c]);
    // x moves to p at the end of the substep: the bound drops by the motion of the pair
    const lb = vtDist[k];
    if (lb >= 0) {
      const next = lb - mv;
      vtDist[k] = next > 0 ? next : -1;
      if (next > tol) continue;
    }
    if (!boxNearTriangle(sv, 6 * q, 6 * a, 6 * b, 6 * c, 0)) continue;
    if (tangled && (label[q] !== 0 || label[a] !== 0 || label[b] !== 0 || label[c] !== 0)) continue;
    const q3 = 3 * vert[q],
      a3 = 3 * vert[a],
      b3 = 3 * vert[b],
      c3 = 3 * vert[c];
    // a pair farther apart at x than it moves cannot cross (lb ≤ mv + tol here, or unknown)
    let dX = lb;
    if (dX < 0) {
      closestPointTriangleAt(x, q3, x, a3, b3, c3, cp);
      dX = Math.sqrt(cp[6]);
      const next = dX - mv;
      vtDist[k] = next > 0 ? next : -1;
    }
    if (dX > mv + tol) continue;
    const tHit = vertexTriangleCcd(x, p, q3, a3, b3, c3, tol);
    if (!(tHit > 0)) continue;
    const s = contactSide(true, planeDistance(x, q3, a3, b3, c3), planeDistance(p, q3, a3, b3, c3));
    hits[2 * (k0 + n)] = k;
    hits[2 * (k0 + n) + 1] = s < 0 ? FLAG_CCD | SIDE_NEG : FLAG_CCD;
    n++;
  }
  return n;
}

/** The same for edge–edge candidates [k0, k1). */
export function scanEdgeEdgeCrossings(A: NarrowArrays, k0: number, k1: number, hits: Int32Array): number {
  const { edge, vertex: vert, label, x, p, sv, motion, eeCand: ee, eeDist, recheck } = A;
  const tol = 1e-9 * A.scalars[N_MEAN_EDGE];
  const tangled = A.scalars[N_TANGLED] !== 0;
  const rescan = A.scalars[N_RESCAN] !== 0;
  let n = 0;
  for (let k = k0; k < k1; k++) {
    const e = ee[2 * k],
      f = ee[2 * k + 1];
    const a = edge[2 * e],
      b = edge[2 * e + 1],
      c = edge[2 * f],
      d = edge[2 * f + 1];
    if (rescan && (recheck[a] | recheck[b] | recheck[c] | recheck[d]) === 0) continue;
    const mv = Math.max(motion[a], motion[b]) + Math.max(motion[c], motion[d]);
    const lb = eeDist[k];
    if (lb >= 0) {
      const next = lb - mv;
      eeDist[k] = next > 0 ? next : -1;
      if (next > tol) continue;
    }
    if (!edgeBoxesNear(sv, 6 * a, 6 * b, 6 * c, 6 * d, 0)) continue;
    if (tangled && (label[a] !== 0 || label[b] !== 0 || label[c] !== 0 || label[d] !== 0)) continue;
    const a3 = 3 * vert[a],
      b3 = 3 * vert[b],
      c3 = 3 * vert[c],
      d3 = 3 * vert[d];
    let dX = lb;
    if (dX < 0) {
      closestSegmentSegmentAt(x, a3, b3, x, c3, d3, ss);
      dX = Math.sqrt(ss[2]);
      const next = dX - mv;
      eeDist[k] = next > 0 ? next : -1;
    }
    if (dX > mv + tol) continue;
    const tHit = edgeEdgeCcd(x, p, a3, b3, c3, d3, tol);
    if (!(tHit > 0)) continue;
    const s = contactSide(true, lineDistance(x, a3, b3, c3, d3), lineDistance(p, a3, b3, c3, d3));
    hits[2 * (k0 + n)] = k;
    hits[2 * (k0 + n) + 1] = s < 0 ? FLAG_CCD | SIDE_NEG : FLAG_CCD;
    n++;
  }
  return n;
}

/** Signed distance of q from the plane of (a, b, c) (0 for a degenerate triangle). */
export function planeDistance(p: Float64Array, q3: number, a3: number, b3: number, c3: number): number {
  const ax = p[a3],
    ay = p[a3 + 1],
    az = p[a3 + 2];
  const ux = p[b3] - ax,
    uy = p[b3 + 1] - ay,
    uz = p[b3 + 2] - az;
  const vx = p[c3] - ax,
    vy = p[c3 + 1] - ay,
    vz = p[c3 + 2] - az;
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(n > 1e-300)) return 0;
  return ((p[q3] - ax) * nx + (p[q3 + 1] - ay) * ny + (p[q3 + 2] - az) * nz) / n;
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

/** Signed distance between the lines a–b and c–d along (b − a) × (d − c) (0 when parallel). */
export function lineDistance(p: Float64Array, a3: number, b3: number, c3: number, d3: number): number {
  const ux = p[b3] - p[a3],
    uy = p[b3 + 1] - p[a3 + 1],
    uz = p[b3 + 2] - p[a3 + 2];
  const vx = p[d3] - p[c3],
    vy = p[d3 + 1] - p[c3 + 1],
    vz = p[d3 + 2] - p[c3 + 2];
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(n > 1e-300)) return 0;
  return ((p[a3] - p[c3]) * nx + (p[a3 + 1] - p[c3 + 1]) * ny + (p[a3 + 2] - p[c3 + 2]) * nz) / n;
}

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
