/**
 * An independent intersection counter for the collision tests. It shares no
 * code with src/collision: its own edge list, a sort-and-sweep broad phase
 * on x, and the Möller–Trumbore segment–triangle test.
 */

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
