/**
 * Convex polyhedra for the rigid-body family (boxes and convex hulls): flat
 * arrays of vertices, polygonal faces with their planes, and edges with the
 * two faces that meet there (the arcs of the Gauss map that the separating-
 * axis test of polyhedra prunes edge pairs with), plus the mass properties
 * of a solid polyhedron of unit density by the divergence theorem: the sum
 * of the signed tetrahedra (origin, a, b, c) over its triangulated faces,
 * volume a·(b×c)/6 and covariance V/20 (Σ vᵢvᵢᵀ + (Σ vᵢ)(Σ vᵢ)ᵀ) each.
 */
import type { HullData } from './quickhull.js';

/** A convex polyhedron in a body frame. */
export class ConvexPolyhedron {
  /** xyz per vertex. */
  readonly vertices: Float64Array;
  readonly vertexCount: number;
  /** Face f: vertices faceVerts[faceStart[f] .. faceStart[f + 1]), counter-clockwise seen from outside. */
  readonly faceStart: Int32Array;
  readonly faceVerts: Int32Array;
  readonly faceCount: number;
  /** Outward unit normal (3) and offset (n·x = d on the face) per face. */
  readonly normals: Float64Array;
  readonly offsets: Float64Array;
  /** Edge e joins vertices edges[2e], edges[2e + 1]; its faces are edgeFaces[2e] (on its left going from the first to the second vertex, seen from outside) and edgeFaces[2e + 1]. */
  readonly edges: Int32Array;
  readonly edgeFaces: Int32Array;
  readonly edgeCount: number;
  /** Largest distance of a vertex from the origin of the frame. */
  readonly radius: number;

  constructor(hull: HullData) {
    this.vertices = hull.vertices;
    this.vertexCount = hull.vertices.length / 3;
    this.faceStart = hull.faceStart;
    this.faceVerts = hull.faceVerts;
    this.faceCount = hull.faceStart.length - 1;
    this.normals = hull.normals;
    this.offsets = new Float64Array(this.faceCount);
    const V = this.vertices;
    for (let f = 0; f < this.faceCount; f++) {
      // the offset of the face's plane: the mean over its vertices (they agree to round-off)
      let d = 0;
      const s = this.faceStart[f],
        e = this.faceStart[f + 1];
      for (let k = s; k < e; k++) {
        const v = 3 * this.faceVerts[k];
        d +=
          this.normals[3 * f] * V[v] +
          this.normals[3 * f + 1] * V[v + 1] +
          this.normals[3 * f + 2] * V[v + 2];
      }
      this.offsets[f] = d / (e - s);
    }
    const n = this.vertexCount;
    const left = new Map<number, number>();
    for (let f = 0; f < this.faceCount; f++) {
      const s = this.faceStart[f],
        e = this.faceStart[f + 1];
      for (let k = s; k < e; k++) left.set(this.faceVerts[k] * n + this.faceVerts[k + 1 < e ? k + 1 : s], f);
    }
    const edges: number[] = [];
    const faces: number[] = [];
    for (const [key, f] of left) {
      const a = Math.floor(key / n),
        b = key % n;
      if (a > b) continue;
      edges.push(a, b);
      faces.push(f, left.get(b * n + a) ?? f);
    }
    this.edges = Int32Array.from(edges);
    this.edgeFaces = Int32Array.from(faces);
    this.edgeCount = edges.length / 2;
    let r = 0;
    for (let i = 0; i < V.length; i += 3) r = Math.max(r, Math.hypot(V[i], V[i + 1], V[i + 2]));
    this.radius = r;
  }

  /** The same polyhedron with every vertex mapped to R (v − c) (R row-major 3×3): a change of frame. */
  transformed(R: ArrayLike<number>, c: ArrayLike<number>): ConvexPolyhedron {
    const V = this.vertices;
    const out = new Float64Array(V.length);
    for (let i = 0; i < V.length; i += 3) {
      const x = V[i] - c[0],
        y = V[i + 1] - c[1],
        z = V[i + 2] - c[2];
      for (let k = 0; k < 3; k++) out[i + k] = R[3 * k] * x + R[3 * k + 1] * y + R[3 * k + 2] * z;
    }
    const N = this.normals;
    const nout = new Float64Array(N.length);
    for (let i = 0; i < N.length; i += 3) {
      for (let k = 0; k < 3; k++)
        nout[i + k] = R[3 * k] * N[i] + R[3 * k + 1] * N[i + 1] + R[3 * k + 2] * N[i + 2];
    }
    return new ConvexPolyhedron({
      vertices: out,
      faceStart: this.faceStart,
      faceVerts: this.faceVerts,
      normals: nout,
    });
  }
}

/** The box [−hx, hx] × [−hy, hy] × [−hz, hz] as a polyhedron (faces ordered +x, −x, +y, −y, +z, −z). */
export function boxPolyhedron(hx: number, hy: number, hz: number): ConvexPolyhedron {
  const vertices = new Float64Array(24);
  for (let i = 0; i < 8; i++) {
    vertices[3 * i] = i & 1 ? hx : -hx;
    vertices[3 * i + 1] = i & 2 ? hy : -hy;
    vertices[3 * i + 2] = i & 4 ? hz : -hz;
  }
  // counter-clockwise seen from outside
  const faceVerts = Int32Array.from([1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3, 0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1]);
  const faceStart = Int32Array.from([0, 4, 8, 12, 16, 20, 24]);
  const normals = Float64Array.from([1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1]);
  return new ConvexPolyhedron({ vertices, faceStart, faceVerts, normals });
}

/** Volume, centroid and inertia tensor (row-major, about the centroid, unit density) of a closed, outward-oriented polyhedron. */
export interface SolidProperties {
  volume: number;
  centroid: Float64Array;
  inertia: Float64Array;
}

/** Mass properties of the solid bounded by the polygons of `poly` (fans of triangles), at unit density. */
export function solidProperties(poly: ConvexPolyhedron): SolidProperties {
  const V = poly.vertices;
  let vol = 0;
  const c = new Float64Array(3);
  const C = new Float64Array(9); // Σ covariance about the origin
  for (let f = 0; f < poly.faceCount; f++) {
    const s = poly.faceStart[f],
      e = poly.faceStart[f + 1];
    const a = 3 * poly.faceVerts[s];
    for (let k = s + 1; k + 1 < e; k++) {
      const b = 3 * poly.faceVerts[k],
        d = 3 * poly.faceVerts[k + 1];
      // the triangle (A, B, D) and the origin: volume A · (B × D) / 6, centroid (A + B + D)/4
      const P = [V.subarray(a, a + 3), V.subarray(b, b + 3), V.subarray(d, d + 3)];
      const [A, B, D] = P;
      const tv =
        (A[0] * (B[1] * D[2] - B[2] * D[1]) +
          A[1] * (B[2] * D[0] - B[0] * D[2]) +
          A[2] * (B[0] * D[1] - B[1] * D[0])) /
        6;
      vol += tv;
      const S = [A[0] + B[0] + D[0], A[1] + B[1] + D[1], A[2] + B[2] + D[2]];
      for (let r = 0; r < 3; r++) c[r] += (tv * S[r]) / 4;
      for (let r = 0; r < 3; r++) {
        for (let q = 0; q < 3; q++) {
          C[3 * r + q] +=
            (tv / 20) * (P[0][r] * P[0][q] + P[1][r] * P[1][q] + P[2][r] * P[2][q] + S[r] * S[q]);
        }
      }
    }
  }
  c[0] /= vol;
  c[1] /= vol;
  c[2] /= vol;
  // about the centroid: C − V c cᵀ; inertia = tr(C) 1 − C
  for (let r = 0; r < 3; r++) for (let q = 0; q < 3; q++) C[3 * r + q] -= vol * c[r] * c[q];
  const tr = C[0] + C[4] + C[8];
  const I = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let q = 0; q < 3; q++) I[3 * r + q] = (r === q ? tr : 0) - C[3 * r + q];
  return { volume: vol, centroid: c, inertia: I };
}
