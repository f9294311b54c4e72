/**
 * Box against box by the separating-axis test (Gottschalk, Lin and Manocha
 * 1996: the 3 + 3 face normals and the 9 cross products of edge directions)
 * and, for a face axis, the manifold by clipping the incident face (the face
 * of the other box most anti-parallel to the reference face) against the
 * side planes of the reference face (Sutherland–Hodgman), keeping the
 * clipped points below the reference face; for an edge axis, the closest
 * points of the two supporting edges. Face axes win over edge axes unless
 * the edge axis separates clearly more (relative tolerance, as Box2D does),
 * so that resting boxes get face contacts.
 */
import { mat3FromQuat } from '../math/mat3.js';
import { NF_A, NF_B } from './contact-set.js';
import type { Pair } from './manifold.js';
import { boxEdgeAxes } from './separating-axes.generated.js';

/** Rotation matrices (row-major) of both boxes. */
const RA = new Float64Array(9);
const RB = new Float64Array(9);
/** Polygon buffers for clipping (xyz, up to 16 points). */
const poly0 = new Float64Array(48);
const poly1 = new Float64Array(48);
let polyCount = 0;

/** Clips the points src[0 .. 3 count) to the half-space n·p ≤ d, writing to dst; returns the new count. */
export type Clip = (
  src: Float64Array,
  count: number,
  nx: number,
  ny: number,
  nz: number,
  d: number,
  dst: Float64Array,
) => number;

/** A Clip of a polygon (Sutherland–Hodgman). */
export const clipPolygon: Clip = (src, count, nx, ny, nz, d, dst) => {
  let out = 0;
  if (count === 0) return 0;
  let px = src[3 * (count - 1)],
    py = src[3 * (count - 1) + 1],
    pz = src[3 * (count - 1) + 2];
  let dp = nx * px + ny * py + nz * pz - d;
  for (let k = 0; k < count; k++) {
    const cx = src[3 * k],
      cy = src[3 * k + 1],
      cz = src[3 * k + 2];
    const dc = nx * cx + ny * cy + nz * cz - d;
    if (dp <= 0 !== dc <= 0 && out < 16) {
      const t = dp / (dp - dc);
      dst[3 * out] = px + t * (cx - px);
      dst[3 * out + 1] = py + t * (cy - py);
      dst[3 * out + 2] = pz + t * (cz - pz);
      out++;
    }
    if (dc <= 0 && out < 16) {
      dst[3 * out] = cx;
      dst[3 * out + 1] = cy;
      dst[3 * out + 2] = cz;
      out++;
    }
    px = cx;
    py = cy;
    pz = cz;
    dp = dc;
  }
  return out;
};

/** Face axes win unless an edge axis separates more than REL · face + ABS (m, times the smaller box's size). */
const REL = 0.95;
const ABS = 0.01;
/** The best edge axis: its edges of A and B, and l (boxEdgeAxes). */
const EDGE = new Float64Array(5);

/** Contacts of two boxes with half extents hA, hB at the pair's poses into the pair's manifold, emitted. */
export function collideBoxBox(hA: Float64Array, hB: Float64Array, pair: Pair): void {
  mat3FromQuat(RA, 0, pair.qA, 0);
  mat3FromQuat(RB, 0, pair.qB, 0);
  const dx = pair.xB[0] - pair.xA[0],
    dy = pair.xB[1] - pair.xA[1],
    dz = pair.xB[2] - pair.xA[2];
  // C[i][j] = a_i · b_j (axes are the matrices' columns)
  const C = C9;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) C[3 * i + j] = RA[i] * RB[j] + RA[3 + i] * RB[3 + j] + RA[6 + i] * RB[6 + j];
  }
  let bestFace = -Infinity,
    faceAxis = -1; // 0..2: A's, 3..5: B's
  for (let i = 0; i < 3; i++) {
    const da = RA[i] * dx + RA[3 + i] * dy + RA[6 + i] * dz;
    const s =
      Math.abs(da) -
      (hA[i] + hB[0] * Math.abs(C[3 * i]) + hB[1] * Math.abs(C[3 * i + 1]) + hB[2] * Math.abs(C[3 * i + 2]));
    if (s > pair.margin) return;
    if (s > bestFace) {
      bestFace = s;
      faceAxis = i;
    }
  }
  for (let j = 0; j < 3; j++) {
    const db = RB[j] * dx + RB[3 + j] * dy + RB[6 + j] * dz;
    const s =
      Math.abs(db) -
      (hA[0] * Math.abs(C[j]) + hA[1] * Math.abs(C[3 + j]) + hA[2] * Math.abs(C[6 + j]) + hB[j]);
    if (s > pair.margin) return;
    // B's face only when clearly better than A's
    if (s > REL * bestFace + ABS * Math.min(hB[0], hB[1], hB[2])) {
      bestFace = s;
      faceAxis = 3 + j;
    }
  }
  // the 9 edge axes a_i × b_j, written once for both shape pairs (scripts/kernels/emit-separating-axes.ts)
  const bestEdge = boxEdgeAxes(RA, hA, RB, hB, dx, dy, dz, pair.margin, EDGE);
  if (bestEdge > pair.margin) return;
  const ei = EDGE[0];
  pair.begin();
  const minH = Math.min(hA[0], hA[1], hA[2], hB[0], hB[1], hB[2]);
  if (ei >= 0 && bestEdge > REL * bestFace + ABS * minH) {
    edgeContact(hA, hB, pair, ei, EDGE[1], EDGE[2], EDGE[3], EDGE[4], dx, dy, dz);
    return;
  }
  if (faceAxis < 3) faceContact(pair, RA, hA, pair.xA, RB, hB, pair.xB, faceAxis, true);
  else faceContact(pair, RB, hB, pair.xB, RA, hA, pair.xA, faceAxis - 3, false);
}

const C9 = new Float64Array(9);

/**
 * The reference face is box R's face along axis i facing box I; clips I's
 * incident face against it. `refIsA`: R is body 1 of the pair.
 */
function faceContact(
  pair: Pair,
  R: Float64Array,
  hR: Float64Array,
  xR: Float64Array,
  I: Float64Array,
  hI: Float64Array,
  xI: Float64Array,
  i: number,
  refIsA: boolean,
): void {
  // the reference normal, pointing from R toward I
  let nx = R[i],
    ny = R[3 + i],
    nz = R[6 + i];
  if (nx * (xI[0] - xR[0]) + ny * (xI[1] - xR[1]) + nz * (xI[2] - xR[2]) < 0) {
    nx = -nx;
    ny = -ny;
    nz = -nz;
  }
  // incident face: I's axis most parallel to n, on the side facing R
  let j = 0,
    bestDot = -1;
  for (let k = 0; k < 3; k++) {
    const d = Math.abs(I[k] * nx + I[3 + k] * ny + I[6 + k] * nz);
    if (d > bestDot) {
      bestDot = d;
      j = k;
    }
  }
  const sj = I[j] * nx + I[3 + j] * ny + I[6 + j] * nz > 0 ? -1 : 1;
  const u = (j + 1) % 3,
    v = (j + 2) % 3;
  const cx = xI[0] + sj * hI[j] * I[j],
    cy = xI[1] + sj * hI[j] * I[3 + j],
    cz = xI[2] + sj * hI[j] * I[6 + j];
  const ux = hI[u] * I[u],
    uy = hI[u] * I[3 + u],
    uz = hI[u] * I[6 + u];
  const vx = hI[v] * I[v],
    vy = hI[v] * I[3 + v],
    vz = hI[v] * I[6 + v];
  const P = poly0;
  P[0] = cx + ux + vx;
  P[1] = cy + uy + vy;
  P[2] = cz + uz + vz;
  P[3] = cx - ux + vx;
  P[4] = cy - uy + vy;
  P[5] = cz - uz + vz;
  P[6] = cx - ux - vx;
  P[7] = cy - uy - vy;
  P[8] = cz - uz - vz;
  P[9] = cx + ux - vx;
  P[10] = cy + uy - vy;
  P[11] = cz + uz - vz;
  polyCount = 4;
  // side planes of the reference face: |(p − x_R)·r_k| ≤ h_k for the two other axes
  let src = poly0,
    dst = poly1;
  for (let t = 1; t <= 2; t++) {
    const k = (i + t) % 3;
    const ax = R[k],
      ay = R[3 + k],
      az = R[6 + k];
    const c = ax * xR[0] + ay * xR[1] + az * xR[2];
    polyCount = clipPolygon(src, polyCount, ax, ay, az, c + hR[k], dst);
    [src, dst] = [dst, src];
    polyCount = clipPolygon(src, polyCount, -ax, -ay, -az, -c + hR[k], dst);
    [src, dst] = [dst, src];
  }
  emitFaceContacts(pair, nx, ny, nz, nx * xR[0] + ny * xR[1] + nz * xR[2] + hR[i], src, polyCount, refIsA);
}

/**
 * The contacts of a clipped incident face src[0 .. 3 count) on the reference
 * face n·p = d (n outward of the reference body): each point paired with its
 * projection onto the face, at separation n·p − d; the pair's normal points
 * from body 2 into body 1. refIsA: the reference face is body 1's.
 */
export function emitFaceContacts(
  pair: Pair,
  nx: number,
  ny: number,
  nz: number,
  d: number,
  src: Float64Array,
  count: number,
  refIsA: boolean,
): void {
  const n = pair.n;
  const sgn = refIsA ? -1 : 1;
  n[0] = sgn * nx;
  n[1] = sgn * ny;
  n[2] = sgn * nz;
  for (let k = 0; k < count; k++) {
    const px = src[3 * k],
      py = src[3 * k + 1],
      pz = src[3 * k + 2];
    const s = nx * px + ny * py + nz * pz - d;
    const rx = px - s * nx,
      ry = py - s * ny,
      rz = pz - s * nz;
    if (refIsA) pair.push(rx, ry, rz, px, py, pz, s);
    else pair.push(px, py, pz, rx, ry, rz, s);
  }
  pair.emit(refIsA ? NF_A : NF_B, 0, 0);
}

/** Edge–edge contact along the axis l = a_i × b_j: the closest points of the supporting edges. */
function edgeContact(
  hA: Float64Array,
  hB: Float64Array,
  pair: Pair,
  i: number,
  j: number,
  lx: number,
  ly: number,
  lz: number,
  dx: number,
  dy: number,
  dz: number,
): void {
  // orient l from A to B
  if (lx * dx + ly * dy + lz * dz < 0) {
    lx = -lx;
    ly = -ly;
    lz = -lz;
  }
  // A's supporting edge: centre + Σ_{k≠i} sign(a_k·l) h_k a_k, direction a_i
  let pax = pair.xA[0],
    pay = pair.xA[1],
    paz = pair.xA[2];
  for (let k = 0; k < 3; k++) {
    if (k === i) continue;
    const s = RA[k] * lx + RA[3 + k] * ly + RA[6 + k] * lz > 0 ? hA[k] : -hA[k];
    pax += s * RA[k];
    pay += s * RA[3 + k];
    paz += s * RA[6 + k];
  }
  let pbx = pair.xB[0],
    pby = pair.xB[1],
    pbz = pair.xB[2];
  for (let k = 0; k < 3; k++) {
    if (k === j) continue;
    const s = RB[k] * lx + RB[3 + k] * ly + RB[6 + k] * lz > 0 ? -hB[k] : hB[k];
    pbx += s * RB[k];
    pby += s * RB[3 + k];
    pbz += s * RB[6 + k];
  }
  // closest points of the lines pa + s a_i and pb + t b_j, clamped to the edges
  const ax = RA[i],
    ay = RA[3 + i],
    az = RA[6 + i];
  const bx = RB[j],
    by = RB[3 + j],
    bz = RB[6 + j];
  const rx = pbx - pax,
    ry = pby - pay,
    rz = pbz - paz;
  const ab = ax * bx + ay * by + az * bz;
  const ar = ax * rx + ay * ry + az * rz,
    br = bx * rx + by * ry + bz * rz;
  const den = 1 - ab * ab;
  let s = den > 1e-12 ? (ar - ab * br) / den : 0;
  s = Math.max(-hA[i], Math.min(hA[i], s));
  let t = ab * s - br;
  t = Math.max(-hB[j], Math.min(hB[j], t));
  const qax = pax + s * ax,
    qay = pay + s * ay,
    qaz = paz + s * az;
  const qbx = pbx + t * bx,
    qby = pby + t * by,
    qbz = pbz + t * bz;
  const n = pair.n;
  n[0] = -lx;
  n[1] = -ly;
  n[2] = -lz;
  // separation along l: (qb − qa)·l
  pair.push(qax, qay, qaz, qbx, qby, qbz, (qbx - qax) * lx + (qby - qay) * ly + (qbz - qaz) * lz);
  pair.emit(NF_A, 0, 0);
}
