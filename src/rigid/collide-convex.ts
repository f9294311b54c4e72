/**
 * Convex polyhedra (boxes, hulls, mesh triangles) against each other by the
 * separating-axis test with Gauss-map pruning (Gregorius, "The Separating
 * Axis Test between Convex Polyhedra", GDC 2013): the face normals of both,
 * and the cross products of those edge pairs whose arcs on the Gauss map
 * cross (the only edge pairs that can touch: they form a face of the
 * Minkowski difference). The manifold comes from clipping the incident face
 * against the side planes of the reference face, as for boxes
 * (collide-box.ts); an edge axis gives one point, the closest points of the
 * two edges. A triangle is a polyhedron of two faces (front and back) whose
 * edges' arcs run from n to −n through the outward in-plane perpendicular;
 * it is one-sided: its back face is never a separating axis, and the caller
 * skips a triangle whose plane the other body's centre lies behind.
 */
import { mat3FromQuat } from '../math/mat3.js';
import { edgeCross, edgeCrossOut } from '../mesh/triangle-mesh.js';
import { type Clip, clipPolygon, emitFaceContacts } from './collide-box.js';
import { NF_A } from './contact-set.js';
import type { Pair } from './manifold.js';
import { ConvexPolyhedron } from './polyhedron.js';
import { polyhedraEdgeAxes } from './separating-axes.generated.js';

/** A side plane (sx, sy, sz, d) of a reference face. */
const SIDE = new Float64Array(4);

/** A polyhedron at a pose: world vertices, normals and plane offsets, and its centroid. */
export class WorldPoly {
  poly: ConvexPolyhedron;
  v = new Float64Array(0);
  n = new Float64Array(0);
  d = new Float64Array(0);
  /** Per edge: the midpoint direction of its Gauss-map arc (unit). */
  m = new Float64Array(0);
  readonly c = new Float64Array(3);
  /** One-sided triangle: face 1 (the back) is not a separating axis. */
  oneSided = false;
  private readonly R = new Float64Array(9);

  constructor(poly: ConvexPolyhedron) {
    this.poly = poly;
  }

  /**
   * The outward side plane of face f's edge k → k + 1 (k from the face's
   * vertex list s0 … s1): normal s = e × n for the face normal n, and offset
   * s·v_k, into out[0 …] (sx, sy, sz, d).
   */
  sidePlane(k: number, s0: number, s1: number, nx: number, ny: number, nz: number, out: Float64Array): void {
    const fv = this.poly.faceVerts,
      V = this.v;
    const a = 3 * fv[k],
      b = 3 * fv[k + 1 < s1 ? k + 1 : s0];
    const ex = V[b] - V[a],
      ey = V[b + 1] - V[a + 1],
      ez = V[b + 2] - V[a + 2];
    const sx = ey * nz - ez * ny,
      sy = ez * nx - ex * nz,
      sz = ex * ny - ey * nx;
    out[0] = sx;
    out[1] = sy;
    out[2] = sz;
    out[3] = sx * V[a] + sy * V[a + 1] + sz * V[a + 2];
  }

  /** Where clipToFace left its points (src or dst). */
  clipped: Float64Array = SIDE;

  /**
   * Clips the points src[0 .. 3 count) by `clip` to the side planes of face
   * f (normal n), passing them between src and dst; returns their count and
   * leaves them in `clipped`.
   */
  clipToFace(
    clip: Clip,
    f: number,
    nx: number,
    ny: number,
    nz: number,
    src: Float64Array,
    dst: Float64Array,
    count: number,
  ): number {
    const s0 = this.poly.faceStart[f],
      s1 = this.poly.faceStart[f + 1];
    for (let k = s0; k < s1 && count > 0; k++) {
      this.sidePlane(k, s0, s1, nx, ny, nz, SIDE);
      count = clip(src, count, SIDE[0], SIDE[1], SIDE[2], SIDE[3], dst);
      const t = src;
      src = dst;
      dst = t;
    }
    this.clipped = src;
    return count;
  }

  /** Places the polyhedron at (x, q). */
  place(poly: ConvexPolyhedron, x: Float64Array, q: Float64Array): void {
    this.poly = poly;
    const R = this.R;
    mat3FromQuat(R, 0, q, 0);
    const nv = poly.vertexCount,
      nf = poly.faceCount;
    if (this.v.length < 3 * nv) this.v = new Float64Array(3 * nv);
    if (this.n.length < 3 * nf) {
      this.n = new Float64Array(3 * nf);
      this.d = new Float64Array(nf);
    }
    const V = poly.vertices;
    for (let i = 0; i < 3 * nv; i += 3) {
      const a = V[i],
        b = V[i + 1],
        c = V[i + 2];
      this.v[i] = x[0] + R[0] * a + R[1] * b + R[2] * c;
      this.v[i + 1] = x[1] + R[3] * a + R[4] * b + R[5] * c;
      this.v[i + 2] = x[2] + R[6] * a + R[7] * b + R[8] * c;
    }
    const N = poly.normals;
    for (let f = 0; f < nf; f++) {
      const a = N[3 * f],
        b = N[3 * f + 1],
        c = N[3 * f + 2];
      const nx = R[0] * a + R[1] * b + R[2] * c,
        ny = R[3] * a + R[4] * b + R[5] * c,
        nz = R[6] * a + R[7] * b + R[8] * c;
      this.n[3 * f] = nx;
      this.n[3 * f + 1] = ny;
      this.n[3 * f + 2] = nz;
      this.d[f] = poly.offsets[f] + nx * x[0] + ny * x[1] + nz * x[2];
    }
    this.c[0] = x[0];
    this.c[1] = x[1];
    this.c[2] = x[2];
    this.oneSided = false;
    this.arcs();
  }

  /** Sets this to the triangle (a, b, c) of P (world coordinates, counter-clockwise from its front). */
  triangle(P: Float64Array, a: number, b: number, c: number): void {
    if (this.v.length < 9) this.v = new Float64Array(9);
    if (this.n.length < 6) {
      this.n = new Float64Array(6);
      this.d = new Float64Array(2);
    }
    const T = this.v;
    for (let k = 0; k < 3; k++) {
      T[k] = P[3 * a + k];
      T[3 + k] = P[3 * b + k];
      T[6 + k] = P[3 * c + k];
    }
    // the normal (b − a) × (c − a), normalised below (the mesh's edgeCross, the same operations)
    edgeCross(T, 0, 3, 6);
    let nx = edgeCrossOut[0],
      ny = edgeCrossOut[1],
      nz = edgeCrossOut[2];
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
    nx /= len;
    ny /= len;
    nz /= len;
    this.n[0] = nx;
    this.n[1] = ny;
    this.n[2] = nz;
    this.n[3] = -nx;
    this.n[4] = -ny;
    this.n[5] = -nz;
    this.d[0] = nx * T[0] + ny * T[1] + nz * T[2];
    this.d[1] = -this.d[0];
    for (let k = 0; k < 3; k++) this.c[k] = (T[k] + T[3 + k] + T[6 + k]) / 3;
    this.oneSided = true;
    this.arcs();
  }

  /** The midpoints of the edges' Gauss-map arcs: (n₁ + n₂)/|…|, or for a flat edge the outward in-plane perpendicular. */
  private arcs(): void {
    const p = this.poly;
    const ne = p.edgeCount;
    if (this.m.length < 3 * ne) this.m = new Float64Array(3 * ne);
    const N = this.n,
      V = this.v;
    for (let e = 0; e < ne; e++) {
      const f0 = p.edgeFaces[2 * e],
        f1 = p.edgeFaces[2 * e + 1];
      let mx = N[3 * f0] + N[3 * f1],
        my = N[3 * f0 + 1] + N[3 * f1 + 1],
        mz = N[3 * f0 + 2] + N[3 * f1 + 2];
      let len = Math.sqrt(mx * mx + my * my + mz * mz);
      if (len < 1e-9) {
        // flat edge: e × n, pointing away from the centroid
        const a = 3 * p.edges[2 * e],
          b = 3 * p.edges[2 * e + 1];
        const ex = V[b] - V[a],
          ey = V[b + 1] - V[a + 1],
          ez = V[b + 2] - V[a + 2];
        const nx = N[3 * f0],
          ny = N[3 * f0 + 1],
          nz = N[3 * f0 + 2];
        mx = ey * nz - ez * ny;
        my = ez * nx - ex * nz;
        mz = ex * ny - ey * nx;
        if (mx * (V[a] - this.c[0]) + my * (V[a + 1] - this.c[1]) + mz * (V[a + 2] - this.c[2]) < 0) {
          mx = -mx;
          my = -my;
          mz = -mz;
        }
        len = Math.sqrt(mx * mx + my * my + mz * mz) || 1;
      }
      this.m[3 * e] = mx / len;
      this.m[3 * e + 1] = my / len;
      this.m[3 * e + 2] = mz / len;
    }
  }
}

/** A triangle as a polyhedron: faces front (0, 1, 2) and back (0, 2, 1). */
export function trianglePolyhedron(): ConvexPolyhedron {
  return new ConvexPolyhedron({
    vertices: Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0]),
    faceStart: Int32Array.from([0, 3, 6]),
    faceVerts: Int32Array.from([0, 1, 2, 0, 2, 1]),
    normals: Float64Array.from([0, 0, 1, 0, 0, -1]),
  });
}

const REL = 0.95;
const ABS = 0.005;
const polyA = new Float64Array(3 * 64);
const polyB = new Float64Array(3 * 64);

/** Largest separation of B from A's faces: writes the face to best[0], returns the separation. */
function faceQuery(A: WorldPoly, B: WorldPoly, margin: number, best: Int32Array): number {
  let top = -Infinity;
  const nf = A.oneSided ? 1 : A.poly.faceCount;
  const nb = B.poly.vertexCount;
  const BV = B.v;
  for (let f = 0; f < nf; f++) {
    const nx = A.n[3 * f],
      ny = A.n[3 * f + 1],
      nz = A.n[3 * f + 2];
    let lo = Infinity;
    for (let i = 0; i < 3 * nb; i += 3) {
      const s = nx * BV[i] + ny * BV[i + 1] + nz * BV[i + 2];
      if (s < lo) lo = s;
    }
    const s = lo - A.d[f];
    if (s > top) {
      top = s;
      best[0] = f;
      if (s > margin) return s;
    }
  }
  return top;
}

/** The best edge axis: its edges of A and B, and l (polyhedraEdgeAxes). */
const EDGE = new Float64Array(5);
const faceA = new Int32Array(1);
const faceB = new Int32Array(1);

/**
 * Contacts of polyhedra A (body 1) and B (body 2, possibly a one-sided
 * triangle) into the pair's manifold, emitted with the normal in the frame
 * of the reference face's body.
 */
export function collidePolyhedra(A: WorldPoly, B: WorldPoly, pair: Pair): void {
  const margin = pair.margin;
  const sa = faceQuery(A, B, margin, faceA);
  if (sa > margin) return;
  const sb = faceQuery(B, A, margin, faceB);
  if (sb > margin) return;
  // edges whose Gauss-map arcs cross (B's arcs negated: the Minkowski difference A − B), the loop
  // written once for both shape pairs (scripts/kernels/emit-separating-axes.ts)
  const pa = A.poly;
  const se = polyhedraEdgeAxes(pa, A.v, A.n, A.m, A.c, B.poly, B.v, B.n, B.m, margin, EDGE);
  if (se > margin) return;
  const ea = EDGE[0];
  pair.begin();
  const faceBest = Math.max(sa, sb);
  if (ea >= 0 && se > REL * faceBest + ABS * pa.radius) {
    edgeContact(A, B, ea, EDGE[1], EDGE[2], EDGE[3], EDGE[4], pair);
    return;
  }
  // B's face only when clearly better (a one-sided triangle's front is face 0)
  if (sb > REL * sa + ABS * pa.radius) faceContact(B, faceB[0], A, pair, false);
  else faceContact(A, faceA[0], B, pair, true);
}

/** Clips the incident face of I against reference face f of R; refIsA: R is body 1. */
function faceContact(R: WorldPoly, f: number, I: WorldPoly, pair: Pair, refIsA: boolean): void {
  const nx = R.n[3 * f],
    ny = R.n[3 * f + 1],
    nz = R.n[3 * f + 2];
  const pi = I.poly;
  let inc = 0,
    low = Infinity;
  for (let g = 0; g < pi.faceCount; g++) {
    const d = I.n[3 * g] * nx + I.n[3 * g + 1] * ny + I.n[3 * g + 2] * nz;
    if (d < low) {
      low = d;
      inc = g;
    }
  }
  const src = polyA,
    dst = polyB;
  let count = 0;
  for (let k = pi.faceStart[inc]; k < pi.faceStart[inc + 1] && count < 16; k++) {
    const v = 3 * pi.faceVerts[k];
    src[3 * count] = I.v[v];
    src[3 * count + 1] = I.v[v + 1];
    src[3 * count + 2] = I.v[v + 2];
    count++;
  }
  count = R.clipToFace(clipPolygon, f, nx, ny, nz, src, dst, count);
  emitFaceContacts(pair, nx, ny, nz, R.d[f], R.clipped, count, refIsA);
}

/** One point: the closest points of edge i of A and edge j of B, along the axis l (outward from A). */
function edgeContact(
  A: WorldPoly,
  B: WorldPoly,
  i: number,
  j: number,
  lx: number,
  ly: number,
  lz: number,
  pair: Pair,
): void {
  const a0 = 3 * A.poly.edges[2 * i],
    a1 = 3 * A.poly.edges[2 * i + 1];
  const b0 = 3 * B.poly.edges[2 * j],
    b1 = 3 * B.poly.edges[2 * j + 1];
  const AV = A.v,
    BV = B.v;
  const ux = AV[a1] - AV[a0],
    uy = AV[a1 + 1] - AV[a0 + 1],
    uz = AV[a1 + 2] - AV[a0 + 2];
  const vx = BV[b1] - BV[b0],
    vy = BV[b1 + 1] - BV[b0 + 1],
    vz = BV[b1 + 2] - BV[b0 + 2];
  const rx = AV[a0] - BV[b0],
    ry = AV[a0 + 1] - BV[b0 + 1],
    rz = AV[a0 + 2] - BV[b0 + 2];
  const a = ux * ux + uy * uy + uz * uz,
    e = vx * vx + vy * vy + vz * vz,
    b = ux * vx + uy * vy + uz * vz;
  const c = ux * rx + uy * ry + uz * rz,
    f = vx * rx + vy * ry + vz * rz;
  const den = a * e - b * b;
  let s = den > 1e-20 * a * e ? (b * f - c * e) / den : 0;
  s = Math.max(0, Math.min(1, s));
  let t = (b * s + f) / e;
  if (t < 0 || t > 1) {
    t = Math.max(0, Math.min(1, t));
    s = Math.max(0, Math.min(1, (b * t - c) / a));
  }
  const px = AV[a0] + s * ux,
    py = AV[a0 + 1] + s * uy,
    pz = AV[a0 + 2] + s * uz;
  const qx = BV[b0] + t * vx,
    qy = BV[b0 + 1] + t * vy,
    qz = BV[b0 + 2] + t * vz;
  pair.n[0] = -lx;
  pair.n[1] = -ly;
  pair.n[2] = -lz;
  pair.push(px, py, pz, qx, qy, qz, (qx - px) * lx + (qy - py) * ly + (qz - pz) * lz);
  pair.emit(NF_A, 0, 0);
}
