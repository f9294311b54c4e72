/**
 * An independent intersection counter for the collision tests. It shares no
 * code with src/collision: its own edge list, a sort-and-sweep broad phase
 * on x, and the Möller–Trumbore segment–triangle test.
 */

import type { ConstraintSet, Strands, World } from '../src/index.js';

/** Global triangles (three particle indices each) of some bodies. */
export function globalTriangles(bodies: { offset: number; renderTriangles(): Uint32Array }[]): Uint32Array {
  const out: number[] = [];
  for (const b of bodies) for (const t of b.renderTriangles()) out.push(t + b.offset);
  return Uint32Array.from(out);
}

/**
 * Number of (edge, triangle) pairs of the mesh whose edge crosses the
 * triangle, over edges and triangles sharing no vertex. Zero for a mesh (or
 * a set of meshes) that does not intersect itself.
 */
export function countEdgeTriangleIntersections(x: Float64Array, tris: Uint32Array): number {
  const nt = tris.length / 3;
  const edges: number[] = [];
  const seen = new Set<string>();
  for (let t = 0; t < nt; t++) {
    for (let j = 0; j < 3; j++) {
      const a = tris[3 * t + j],
        b = tris[3 * t + ((j + 1) % 3)];
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push(Math.min(a, b), Math.max(a, b));
    }
  }
  // items sorted by the low end of their x interval
  const n = nt + edges.length / 2;
  const lo = new Float64Array(n),
    hi = new Float64Array(n);
  for (let t = 0; t < nt; t++) {
    const xs = [x[3 * tris[3 * t]], x[3 * tris[3 * t + 1]], x[3 * tris[3 * t + 2]]];
    lo[t] = Math.min(...xs);
    hi[t] = Math.max(...xs);
  }
  for (let e = 0; e < edges.length / 2; e++) {
    const xa = x[3 * edges[2 * e]],
      xb = x[3 * edges[2 * e + 1]];
    lo[nt + e] = Math.min(xa, xb);
    hi[nt + e] = Math.max(xa, xb);
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => lo[a] - lo[b]);
  const active: number[] = [];
  let count = 0;
  for (const it of order) {
    for (let k = active.length - 1; k >= 0; k--) if (hi[active[k]] < lo[it]) active.splice(k, 1);
    for (const other of active) {
      const tri = it < nt ? it : other < nt ? other : -1;
      const edge = it >= nt ? it - nt : other >= nt ? other - nt : -1;
      if (tri < 0 || edge < 0 || it < nt === other < nt) continue;
      const a = tris[3 * tri],
        b = tris[3 * tri + 1],
        c = tris[3 * tri + 2];
      const p = edges[2 * edge],
        q = edges[2 * edge + 1];
      if (p === a || p === b || p === c || q === a || q === b || q === c) continue;
      if (segmentHitsTriangle(x, p, q, a, b, c)) count++;
    }
    active.push(it);
  }
  return count;
}

/** Möller–Trumbore: does the segment p–q meet triangle (a, b, c)? */
function segmentHitsTriangle(
  x: Float64Array,
  p: number,
  q: number,
  a: number,
  b: number,
  c: number,
): boolean {
  const P = [x[3 * p], x[3 * p + 1], x[3 * p + 2]];
  const D = [x[3 * q] - P[0], x[3 * q + 1] - P[1], x[3 * q + 2] - P[2]];
  const A = [x[3 * a], x[3 * a + 1], x[3 * a + 2]];
  const E1 = [x[3 * b] - A[0], x[3 * b + 1] - A[1], x[3 * b + 2] - A[2]];
  const E2 = [x[3 * c] - A[0], x[3 * c + 1] - A[1], x[3 * c + 2] - A[2]];
  const H = cross(D, E2);
  const det = dot(E1, H);
  // a segment (nearly) parallel to the plane does not cross it: relative threshold against rounding
  if (Math.abs(det) < 1e-10 * Math.sqrt(dot(E1, E1) * dot(E2, E2) * dot(D, D))) return false;
  const f = 1 / det;
  const S = [P[0] - A[0], P[1] - A[1], P[2] - A[2]];
  const u = f * dot(S, H);
  if (u < 0 || u > 1) return false;
  const Q = cross(S, E1);
  const v = f * dot(D, Q);
  if (v < 0 || u + v > 1) return false;
  const t = f * dot(E2, Q);
  return t >= 0 && t <= 1;
}

function cross(u: number[], v: number[]): number[] {
  return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
}

function dot(u: number[], v: number[]): number {
  return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

/**
 * An independent check that strands never pass through each other: after
 * every substep it looks at every pair of segments (not neighbours along a
 * strand) and reports
 *
 * - `crossings`: pairs whose centrelines went through each other during the
 *   substep, with every particle moving on a straight line from its old to
 *   its new position: the four end points become coplanar at some time
 *   (the signed volume of the tetrahedron a b c d changes sign, found by
 *   sampling and bisection) at which the two segments meet (their distance
 *   below 1e-6 of the radii);
 * - `minGap`: the smallest distance between two centrelines, relative to the
 *   sum of their radii (1: touching; 0: the centrelines meet).
 *
 * It uses nothing of the contact code (its own closest points by alternating
 * line minimisations), so it can fail when that code is wrong.
 */
export interface StrandCheck {
  crossings: number;
  /** The first crossings: the four particles (a, b of one segment, c, d of the other) and the substep. */
  where: number[][];
  minGap: number;
  substeps: number;
}

function closestOnSegments(P: ArrayLike<number>, a: number, b: number, c: number, d: number): number {
  // minimise |(a + s(b − a)) − (c + t(d − c))| over [0, 1]² by alternating exact line minimisations
  let s = 0.5,
    t = 0.5;
  const ab = [0, 1, 2].map((k) => P[3 * b + k] - P[3 * a + k]);
  const cd = [0, 1, 2].map((k) => P[3 * d + k] - P[3 * c + k]);
  const aa = ab[0] ** 2 + ab[1] ** 2 + ab[2] ** 2,
    cc = cd[0] ** 2 + cd[1] ** 2 + cd[2] ** 2;
  for (let it = 0; it < 100; it++) {
    const q = [0, 1, 2].map((k) => P[3 * c + k] + t * cd[k] - P[3 * a + k]);
    s = aa > 0 ? Math.min(1, Math.max(0, (q[0] * ab[0] + q[1] * ab[1] + q[2] * ab[2]) / aa)) : 0;
    const r = [0, 1, 2].map((k) => P[3 * a + k] + s * ab[k] - P[3 * c + k]);
    t = cc > 0 ? Math.min(1, Math.max(0, (r[0] * cd[0] + r[1] * cd[1] + r[2] * cd[2]) / cc)) : 0;
  }
  return Math.hypot(...[0, 1, 2].map((k) => P[3 * a + k] + s * ab[k] - P[3 * c + k] - t * cd[k]));
}

/** The four end points of two segments at time τ ∈ [0, 1] of the substep (linear motion), as points 0…3. */
function at(prev: Float64Array, x: Float64Array, ids: number[], tau: number, out: Float64Array): void {
  for (let q = 0; q < 4; q++)
    for (let k = 0; k < 3; k++) out[3 * q + k] = (1 - tau) * prev[3 * ids[q] + k] + tau * x[3 * ids[q] + k];
}

/** Signed volume (×6) of the tetrahedron of points 0…3. */
function volume(P: Float64Array): number {
  const u = [P[3] - P[0], P[4] - P[1], P[5] - P[2]],
    v = [P[6] - P[0], P[7] - P[1], P[8] - P[2]],
    w = [P[9] - P[0], P[10] - P[1], P[11] - P[2]];
  return (
    u[0] * (v[1] * w[2] - v[2] * w[1]) -
    u[1] * (v[0] * w[2] - v[2] * w[0]) +
    u[2] * (v[0] * w[1] - v[1] * w[0])
  );
}

/** Adds the check to the world (a set that only looks, after every substep) over the given strand bodies. */
export function watchStrands(world: World, bodies: Strands[], skip = 2): StrandCheck {
  const segs: { a: number; b: number; body: number; j: number }[] = [];
  bodies.forEach((body, bi) => {
    const lines = body.renderLines();
    for (let k = 0; k < lines.length; k += 2)
      segs.push({ a: body.offset + lines[k], b: body.offset + lines[k + 1], body: bi, j: lines[k] });
  });
  const result: StrandCheck = { crossings: 0, where: [], minGap: Infinity, substeps: 0 };
  let prev: Float64Array | null = null;
  const r = world.store.radius;
  const P = new Float64Array(12);
  const set: ConstraintSet = {
    kind: 'strand-check',
    order: 10_000,
    enabled: true,
    count: 0,
    project() {},
    endStep(ctx) {
      const x = ctx.store.x;
      result.substeps++;
      for (let u = 0; u < segs.length; u++) {
        const A = segs[u];
        for (let v = u + 1; v < segs.length; v++) {
          const B = segs[v];
          if (A.body === B.body && Math.abs(A.j - B.j) <= skip) continue;
          if (A.a === B.a || A.a === B.b || A.b === B.a || A.b === B.b) continue;
          const R = 0.5 * (r[A.a] + r[A.b] + r[B.a] + r[B.b]);
          // a cheap reject: the boxes of the two segments over the substep farther apart than 3R
          let near = true;
          for (let k = 0; k < 3 && near; k++) {
            const e1 = [x[3 * A.a + k], x[3 * A.b + k]],
              e2 = [x[3 * B.a + k], x[3 * B.b + k]];
            if (prev) {
              e1.push(prev[3 * A.a + k], prev[3 * A.b + k]);
              e2.push(prev[3 * B.a + k], prev[3 * B.b + k]);
            }
            near = Math.min(...e1) - 3 * R <= Math.max(...e2) && Math.min(...e2) - 3 * R <= Math.max(...e1);
          }
          if (!near) continue;
          result.minGap = Math.min(result.minGap, closestOnSegments(x, A.a, A.b, B.a, B.b) / R);
          if (!prev) continue;
          // the coplanar times: sign changes of the volume on 8 samples, each refined by bisection
          const ids = [A.a, A.b, B.a, B.b];
          at(prev, x, ids, 0, P);
          let f0 = volume(P);
          for (let m = 1; m <= 8; m++) {
            at(prev, x, ids, m / 8, P);
            const f1 = volume(P);
            if (f0 === 0 || f0 * f1 < 0) {
              let lo = (m - 1) / 8,
                hi = m / 8,
                flo = f0;
              for (let it = 0; it < 50 && f0 !== 0; it++) {
                const mid = 0.5 * (lo + hi);
                at(prev, x, ids, mid, P);
                const fm = volume(P);
                if (flo * fm <= 0) hi = mid;
                else {
                  lo = mid;
                  flo = fm;
                }
              }
              at(prev, x, ids, f0 === 0 ? (m - 1) / 8 : hi, P);
              if (closestOnSegments(P, 0, 1, 2, 3) < 1e-6 * R) {
                result.crossings++;
                if (result.where.length < 10) result.where.push([A.a, A.b, B.a, B.b, result.substeps]);
                break;
              }
            }
            f0 = f1;
          }
        }
      }
      prev = Float64Array.from(x);
    },
  };
  world.addConstraintSet(set);
  return result;
}
