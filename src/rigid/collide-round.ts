/**
 * Round shapes — spheres (a point swept by a radius) and capsules (a segment
 * swept by a radius) — against everything: against each other by the
 * closest points of their cores; against a half-space by each core point;
 * against polyhedra and triangles by the closest points of core and
 * polyhedron (GJK, gjk.ts) while the core is outside, and by the face of
 * least penetration while it is inside. A capsule lying along a face or
 * along another capsule gets two points (its core clipped to the face, or
 * the overlap of the two cores), so that it rests without rocking.
 * Contacts keep the core points with the radius (RigidContacts), so a
 * rolling ball's contact stays under its centre within the step.
 */
import { closestSegmentSegmentAt } from '../collision/geometry.js';
import type { Clip } from './collide-box.js';
import type { WorldPoly } from './collide-convex.js';
import { NF_A, NF_B, NF_CORES } from './contact-set.js';
import { gjkDistance, gjkPoints } from './gjk.js';
import type { Pair } from './manifold.js';

const SS = new Float64Array(3);
const seg0 = new Float64Array(6);
const seg1 = new Float64Array(6);

/** Core points of A (body 1) and B (body 2): 1 (sphere) or 2 (capsule) points each, world frame. */
export function collideRoundRound(
  A: Float64Array,
  na: number,
  ra: number,
  B: Float64Array,
  nb: number,
  rb: number,
  pair: Pair,
): void {
  closestSegmentSegmentAt(A, 0, na === 2 ? 3 : 0, B, 0, nb === 2 ? 3 : 0, SS);
  const d = Math.sqrt(SS[2]);
  if (d - ra - rb > pair.margin) return;
  const s = SS[0],
    t = SS[1];
  const a1 = na === 2 ? 3 : 0,
    b1 = nb === 2 ? 3 : 0;
  const px = A[0] + s * (A[a1] - A[0]),
    py = A[1] + s * (A[a1 + 1] - A[1]),
    pz = A[2] + s * (A[a1 + 2] - A[2]);
  const qx = B[0] + t * (B[b1] - B[0]),
    qy = B[1] + t * (B[b1 + 1] - B[1]),
    qz = B[2] + t * (B[b1 + 2] - B[2]);
  pair.begin();
  const n = pair.n;
  if (d > 1e-12) {
    n[0] = (px - qx) / d;
    n[1] = (py - qy) / d;
    n[2] = (pz - qz) / d;
  } else {
    n[0] = 0;
    n[1] = 1;
    n[2] = 0;
  }
  if (na === 2 && nb === 2) {
    // nearly parallel capsules: the two ends of the overlap of their cores
    const ux = A[3] - A[0],
      uy = A[4] - A[1],
      uz = A[5] - A[2];
    const vx = B[3] - B[0],
      vy = B[4] - B[1],
      vz = B[5] - B[2];
    const lu = ux * ux + uy * uy + uz * uz,
      lv = vx * vx + vy * vy + vz * vz;
    const c = ux * vx + uy * vy + uz * vz;
    if (lu > 0 && lv > 0 && c * c > 0.99 * lu * lv) {
      const t0 = ((B[0] - A[0]) * ux + (B[1] - A[1]) * uy + (B[2] - A[2]) * uz) / lu;
      const t1 = ((B[3] - A[0]) * ux + (B[4] - A[1]) * uy + (B[5] - A[2]) * uz) / lu;
      const lo = Math.max(0, Math.min(t0, t1)),
        hi = Math.min(1, Math.max(t0, t1));
      if (hi - lo > 1e-6) {
        for (let e = 0; e < 2; e++) {
          const w = e === 0 ? lo : hi;
          const ax = A[0] + w * ux,
            ay = A[1] + w * uy,
            az = A[2] + w * uz;
          let tb = ((ax - B[0]) * vx + (ay - B[1]) * vy + (az - B[2]) * vz) / lv;
          tb = Math.max(0, Math.min(1, tb));
          const bx = B[0] + tb * vx,
            by = B[1] + tb * vy,
            bz = B[2] + tb * vz;
          pair.push(ax, ay, az, bx, by, bz, Math.hypot(ax - bx, ay - by, az - bz) - ra - rb);
        }
        pair.emit(NF_CORES, ra, rb);
        return;
      }
    }
  }
  pair.push(px, py, pz, qx, qy, qz, d - ra - rb);
  pair.emit(NF_CORES, ra, rb);
}

/** Core points of body 1 (radius ra; a polyhedron's vertices with ra = 0) against the half-space n·p ≤ d of body 2. */
export function collideRoundPlane(
  A: Float64Array,
  na: number,
  ra: number,
  nx: number,
  ny: number,
  nz: number,
  d: number,
  pair: Pair,
): void {
  pair.begin();
  pair.n[0] = nx;
  pair.n[1] = ny;
  pair.n[2] = nz;
  for (let k = 0; k < na; k++) {
    const x = A[3 * k],
      y = A[3 * k + 1],
      z = A[3 * k + 2];
    const h = nx * x + ny * y + nz * z - d;
    pair.push(x, y, z, x - h * nx, y - h * ny, z - h * nz, h - ra);
  }
  pair.emit(NF_B, ra, 0);
}

/** Adds a candidate of core point c and polyhedron point p, swapping sides when the round shape is body 2. */
function pushRP(
  pair: Pair,
  flip: boolean,
  cx: number,
  cy: number,
  cz: number,
  px: number,
  py: number,
  pz: number,
  s: number,
): void {
  if (flip) pair.push(px, py, pz, cx, cy, cz, s);
  else pair.push(cx, cy, cz, px, py, pz, s);
}

/**
 * A round shape (core C of nc points, radius r) against the polyhedron P.
 * `flip`: the round shape is body 2 and P body 1 (otherwise the reverse).
 */
export function collideRoundPoly(
  C: Float64Array,
  nc: number,
  r: number,
  P: WorldPoly,
  pair: Pair,
  flip: boolean,
): void {
  const margin = pair.margin;
  const poly = P.poly;
  const nfaces = P.oneSided ? 1 : poly.faceCount;
  const dist = gjkDistance(C, nc, P.v, poly.vertexCount);
  pair.begin();
  const n = pair.n;
  const sgn = flip ? -1 : 1;
  let f = -1;
  if (dist > 1e-9) {
    if (dist - r > margin) return;
    const G = gjkPoints;
    const nx = (G[0] - G[3]) / dist,
      ny = (G[1] - G[4]) / dist,
      nz = (G[2] - G[5]) / dist;
    // the face whose normal this is (the closest feature is a face), if any
    let best = 1 - 1e-6;
    for (let g = 0; g < nfaces; g++) {
      const dd = P.n[3 * g] * nx + P.n[3 * g + 1] * ny + P.n[3 * g + 2] * nz;
      if (dd > best) {
        best = dd;
        f = g;
      }
    }
    if (f < 0) {
      n[0] = sgn * nx;
      n[1] = sgn * ny;
      n[2] = sgn * nz;
      pushRP(pair, flip, G[0], G[1], G[2], G[3], G[4], G[5], dist - r);
      pair.emit(NF_CORES, flip ? 0 : r, flip ? r : 0);
      return;
    }
  } else {
    // the core is inside: the face of least penetration
    let top = -Infinity;
    for (let g = 0; g < nfaces; g++) {
      let lo = Infinity;
      for (let k = 0; k < nc; k++) {
        const s = P.n[3 * g] * C[3 * k] + P.n[3 * g + 1] * C[3 * k + 1] + P.n[3 * g + 2] * C[3 * k + 2];
        if (s < lo) lo = s;
      }
      if (lo - P.d[g] > top) {
        top = lo - P.d[g];
        f = g;
      }
    }
  }
  const fx = P.n[3 * f],
    fy = P.n[3 * f + 1],
    fz = P.n[3 * f + 2],
    fd = P.d[f];
  n[0] = sgn * fx;
  n[1] = sgn * fy;
  n[2] = sgn * fz;
  let count = nc;
  let src: Float64Array = seg0;
  for (let k = 0; k < 3 * nc; k++) src[k] = C[k];
  if (nc === 2) {
    // a capsule along the face: its core clipped to the face's side planes
    const ux = C[3] - C[0],
      uy = C[4] - C[1],
      uz = C[5] - C[2];
    const along = Math.abs(ux * fx + uy * fy + uz * fz) / (Math.sqrt(ux * ux + uy * uy + uz * uz) || 1);
    if (along < 0.3) {
      count = P.clipToFace(clipSegment, f, fx, fy, fz, src, seg1, count);
      src = P.clipped;
      if (count === 0) {
        for (let k = 0; k < 6; k++) src[k] = C[k];
        count = 2;
      }
    }
  }
  for (let k = 0; k < count; k++) {
    const x = src[3 * k],
      y = src[3 * k + 1],
      z = src[3 * k + 2];
    const h = fx * x + fy * y + fz * z - fd;
    pushRP(pair, flip, x, y, z, x - h * fx, y - h * fy, z - h * fz, h - r);
  }
  pair.emit(flip ? NF_A : NF_B, flip ? 0 : r, flip ? r : 0);
}

/** Clips a segment (2 points) or a point to n·p ≤ d (a 2-point "polygon": clipPolygon would close it). */
const clipSegment: Clip = (src, count, nx, ny, nz, d, dst) => {
  if (count === 1) {
    if (nx * src[0] + ny * src[1] + nz * src[2] <= d) {
      dst[0] = src[0];
      dst[1] = src[1];
      dst[2] = src[2];
      return 1;
    }
    return 0;
  }
  const d0 = nx * src[0] + ny * src[1] + nz * src[2] - d,
    d1 = nx * src[3] + ny * src[4] + nz * src[5] - d;
  if (d0 > 0 && d1 > 0) return 0;
  for (let k = 0; k < 6; k++) dst[k] = src[k];
  if (d0 > 0 || d1 > 0) {
    const t = d0 / (d0 - d1);
    const o = d0 > 0 ? 0 : 3;
    for (let k = 0; k < 3; k++) dst[o + k] = src[k] + t * (src[3 + k] - src[k]);
  }
  return 2;
};
