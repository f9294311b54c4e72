import { PbdError } from '../core/errors.js';
import {
  buildEdgeTopology,
  edgeCross,
  edgeCrossOut,
  isClosed,
  orientConsistently,
  type TriangleMesh,
  validateTriangleMesh,
} from '../mesh/triangle-mesh.js';
import { Bvh } from './bvh.js';
import {
  closestPointTriangle,
  REGION_A,
  REGION_AB,
  REGION_B,
  REGION_BC,
  REGION_C,
  REGION_FACE,
} from './geometry.js';

const cp = new Float64Array(7);

/**
 * Exact signed distance to a closed (watertight), consistently oriented
 * triangle mesh: the nearest triangle by a BVH search, the sign by the
 * angle-weighted pseudonormal of the nearest feature (Bærentzen and Aanæs
 * 2005), which is exact for closed meshes: the sign is that of
 * (x − c) · N with c the closest point and N the pseudonormal of the face,
 * edge or vertex holding c.
 */
export class MeshDistance {
  readonly positions: Float64Array;
  readonly triangles: Uint32Array;
  readonly bvh = new Bvh(4);
  readonly boxes: Float64Array;
  /** Unit face normals (3 per triangle). */
  readonly faceNormal: Float64Array;
  /** Edge pseudonormals (sum of the two face normals), 3 per triangle edge k (corners k, k + 1). */
  readonly edgeNormal: Float64Array;
  /** Angle-weighted vertex pseudonormals (3 per vertex). */
  readonly vertexNormal: Float64Array;
  /** Triangle and region of the closest point found by the last query, and the point itself. */
  lastTriangle = -1;
  readonly lastPoint = new Float64Array(3);
  private stack = new Int32Array(256);

  constructor(mesh: TriangleMesh, where = 'mesh') {
    validateTriangleMesh(mesh, where);
    const m: TriangleMesh = {
      positions: new Float64Array(mesh.positions),
      triangles: new Uint32Array(mesh.triangles),
    };
    const topo = buildEdgeTopology(m.triangles, where);
    if (!isClosed(topo)) {
      throw new PbdError(
        'mesh/not-watertight',
        where,
        'a mesh collider needs a closed (watertight) mesh, but this one has boundary edges',
        'close the holes, or use a thin box or capsule collider for open sheets',
      );
    }
    orientConsistently(m);
    this.positions = m.positions;
    this.triangles = m.triangles;
    const P = this.positions,
      T = this.triangles;
    const nt = T.length / 3,
      nv = P.length / 3;
    this.boxes = new Float64Array(6 * nt);
    this.faceNormal = new Float64Array(3 * nt);
    this.edgeNormal = new Float64Array(9 * nt);
    this.vertexNormal = new Float64Array(3 * nv);
    for (let t = 0; t < nt; t++) {
      const a = 3 * T[3 * t],
        b = 3 * T[3 * t + 1],
        c = 3 * T[3 * t + 2];
      for (let k = 0; k < 3; k++) {
        this.boxes[6 * t + k] = Math.min(P[a + k], P[b + k], P[c + k]);
        this.boxes[6 * t + 3 + k] = Math.max(P[a + k], P[b + k], P[c + k]);
      }
      edgeCross(P, a, b, c);
      let nx = edgeCrossOut[0],
        ny = edgeCrossOut[1],
        nz = edgeCrossOut[2];
      const l = Math.hypot(nx, ny, nz);
      nx /= l;
      ny /= l;
      nz /= l;
      this.faceNormal[3 * t] = nx;
      this.faceNormal[3 * t + 1] = ny;
      this.faceNormal[3 * t + 2] = nz;
      // angle-weighted vertex normals
      for (let k = 0; k < 3; k++) {
        const i0 = 3 * T[3 * t + k],
          i1 = 3 * T[3 * t + ((k + 1) % 3)],
          i2 = 3 * T[3 * t + ((k + 2) % 3)];
        const ex = P[i1] - P[i0],
          ey = P[i1 + 1] - P[i0 + 1],
          ez = P[i1 + 2] - P[i0 + 2];
        const fx = P[i2] - P[i0],
          fy = P[i2 + 1] - P[i0 + 1],
          fz = P[i2 + 2] - P[i0 + 2];
        const cos = (ex * fx + ey * fy + ez * fz) / (Math.hypot(ex, ey, ez) * Math.hypot(fx, fy, fz));
        const angle = Math.acos(Math.min(1, Math.max(-1, cos)));
        this.vertexNormal[i0] += angle * nx;
        this.vertexNormal[i0 + 1] += angle * ny;
        this.vertexNormal[i0 + 2] += angle * nz;
      }
    }
    // edge pseudonormals: the two faces of each edge
    for (let e = 0; e < topo.edges.length / 2; e++) {
      const t0 = topo.edgeTriangles[2 * e],
        t1 = topo.edgeTriangles[2 * e + 1];
      const sx = this.faceNormal[3 * t0] + this.faceNormal[3 * t1],
        sy = this.faceNormal[3 * t0 + 1] + this.faceNormal[3 * t1 + 1],
        sz = this.faceNormal[3 * t0 + 2] + this.faceNormal[3 * t1 + 2];
      for (const t of [t0, t1]) {
        for (let k = 0; k < 3; k++) {
          if (topo.triangleEdges[3 * t + k] !== e) continue;
          this.edgeNormal[9 * t + 3 * k] = sx;
          this.edgeNormal[9 * t + 3 * k + 1] = sy;
          this.edgeNormal[9 * t + 3 * k + 2] = sz;
        }
      }
    }
    this.bvh.build(this.boxes, nt);
  }

  /** Closest point of triangle t to (x, y, z) into cp (squared distance in cp[6]); returns its region. */
  private closestOn(x: number, y: number, z: number, t: number): number {
    return this.closestPointOn(x, y, z, t, cp);
  }

  /**
   * Closest point of triangle t to (x, y, z) into out[0 … 2] (closestPointTriangle: squared
   * distance in out[6]); returns its region (for pseudonormal).
   */
  closestPointOn(x: number, y: number, z: number, t: number, out: Float64Array): number {
    const P = this.positions,
      T = this.triangles;
    const a = 3 * T[3 * t],
      b = 3 * T[3 * t + 1],
      c = 3 * T[3 * t + 2];
    return closestPointTriangle(
      x,
      y,
      z,
      P[a],
      P[a + 1],
      P[a + 2],
      P[b],
      P[b + 1],
      P[b + 2],
      P[c],
      P[c + 1],
      P[c + 2],
      out,
    );
  }

  /** The pseudonormal of the feature `region` of triangle t into n (not normalised). */
  pseudonormal(t: number, region: number, n: Float64Array): void {
    let src: Float64Array, o: number;
    if (region === REGION_FACE) {
      src = this.faceNormal;
      o = 3 * t;
    } else if (region === REGION_A || region === REGION_B || region === REGION_C) {
      src = this.vertexNormal;
      o = 3 * this.triangles[3 * t + (region - REGION_A)];
    } else {
      src = this.edgeNormal;
      const k = region === REGION_AB ? 0 : region === REGION_BC ? 1 : 2;
      o = 9 * t + 3 * k;
    }
    n[0] = src[o];
    n[1] = src[o + 1];
    n[2] = src[o + 2];
  }

  /**
   * Signed distance from (x, y, z) (negative inside) and the outward unit
   * normal n at the closest point, searching only triangles nearer than
   * `bound` (pass Infinity for no bound). Returns ±Infinity when nothing is
   * within the bound.
   */
  signedDistance(x: number, y: number, z: number, n: Float64Array, bound = Number.POSITIVE_INFINITY): number {
    const B = this.bvh.box;
    let stack = this.stack;
    let best2 = bound * bound;
    let bestT = -1,
      bestRegion = 0,
      bx = 0,
      by = 0,
      bz = 0;
    let sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
      const node = stack[--sp];
      const o = 6 * node;
      const dx = x < B[o] ? B[o] - x : x > B[o + 3] ? x - B[o + 3] : 0;
      const dy = y < B[o + 1] ? B[o + 1] - y : y > B[o + 4] ? y - B[o + 4] : 0;
      const dz = z < B[o + 2] ? B[o + 2] - z : z > B[o + 5] ? z - B[o + 5] : 0;
      if (dx * dx + dy * dy + dz * dz > best2) continue;
      const cnt = this.bvh.count[node];
      if (cnt > 0) {
        const s = this.bvh.start[node];
        for (let k = s; k < s + cnt; k++) {
          const t = this.bvh.items[k];
          const region = this.closestOn(x, y, z, t);
          if (cp[6] < best2) {
            best2 = cp[6];
            bestT = t;
            bestRegion = region;
            bx = cp[0];
            by = cp[1];
            bz = cp[2];
          }
        }
      } else {
        // visit the nearer child first
        const l = node + 1,
          r = this.bvh.right[node];
        const dl = boxDistance2(B, l, x, y, z),
          dr = boxDistance2(B, r, x, y, z);
        if (sp + 2 > stack.length) {
          const g = new Int32Array(2 * stack.length);
          g.set(stack);
          this.stack = stack = g;
        }
        if (dl < dr) {
          stack[sp++] = r;
          stack[sp++] = l;
        } else {
          stack[sp++] = l;
          stack[sp++] = r;
        }
      }
    }
    this.lastTriangle = bestT;
    if (bestT < 0) {
      n[0] = 0;
      n[1] = 1;
      n[2] = 0;
      return Number.POSITIVE_INFINITY;
    }
    return this.finish(x, y, z, bestT, bestRegion, bx, by, bz, best2, n);
  }

  /** Same as signedDistance, over a given list of candidate triangles (list[from .. to)). */
  signedDistanceAmong(
    x: number,
    y: number,
    z: number,
    list: Int32Array,
    from: number,
    to: number,
    n: Float64Array,
  ): number {
    let best2 = Number.POSITIVE_INFINITY,
      bestT = -1,
      bestRegion = 0,
      bx = 0,
      by = 0,
      bz = 0;
    // the previous query's triangle, when it is in this list, bounds the minimum from above before
    // the scan starts (the contact generation asks about one particle several times in a row, and
    // neighbouring particles share triangles), so that more triangles fall to the box test below;
    // its closest point is kept for when the scan reaches it
    const lt = this.lastTriangle;
    let bound = Number.POSITIVE_INFINITY,
      ltRegion = -1,
      lx = 0,
      ly = 0,
      lz = 0;
    if (lt >= 0) {
      for (let k = from; k < to; k++) {
        if (list[k] !== lt) continue;
        ltRegion = this.closestOn(x, y, z, lt);
        bound = cp[6];
        lx = cp[0];
        ly = cp[1];
        lz = cp[2];
        break;
      }
    }
    const B = this.boxes;
    for (let k = from; k < to; k++) {
      const t = list[k];
      // the squared distance to the triangle's box bounds the triangle's from below: a triangle
      // whose box lies farther than the best so far (or than the bound) cannot be closer; the
      // margin keeps every triangle that could tie within rounding, so that the one chosen is the
      // one a scan of every triangle picks
      const b6 = 6 * t;
      const ex = Math.max(B[b6] - x, 0, x - B[b6 + 3]),
        ey = Math.max(B[b6 + 1] - y, 0, y - B[b6 + 4]),
        ez = Math.max(B[b6 + 2] - z, 0, z - B[b6 + 5]);
      if (ex * ex + ey * ey + ez * ez > Math.min(best2, bound) * (1 + 1e-9)) continue;
      let region: number, d2: number, qx: number, qy: number, qz: number;
      if (t === lt && ltRegion >= 0) {
        region = ltRegion;
        d2 = bound;
        qx = lx;
        qy = ly;
        qz = lz;
      } else {
        region = this.closestOn(x, y, z, t);
        d2 = cp[6];
        qx = cp[0];
        qy = cp[1];
        qz = cp[2];
      }
      if (d2 < best2) {
        best2 = d2;
        bestT = t;
        bestRegion = region;
        bx = qx;
        by = qy;
        bz = qz;
      }
    }
    this.lastTriangle = bestT;
    if (bestT < 0) return this.signedDistance(x, y, z, n);
    return this.finish(x, y, z, bestT, bestRegion, bx, by, bz, best2, n);
  }

  private finish(
    x: number,
    y: number,
    z: number,
    t: number,
    region: number,
    bx: number,
    by: number,
    bz: number,
    d2: number,
    n: Float64Array,
  ): number {
    this.lastPoint[0] = bx;
    this.lastPoint[1] = by;
    this.lastPoint[2] = bz;
    this.pseudonormal(t, region, n);
    const dx = x - bx,
      dy = y - by,
      dz = z - bz;
    const side = dx * n[0] + dy * n[1] + dz * n[2];
    const d = Math.sqrt(d2);
    if (d > 1e-12) {
      // the outward normal: from the surface towards the point outside, away from it inside
      const s = side >= 0 ? 1 / d : -1 / d;
      n[0] = dx * s;
      n[1] = dy * s;
      n[2] = dz * s;
    } else {
      const l = Math.hypot(n[0], n[1], n[2]);
      n[0] /= l;
      n[1] /= l;
      n[2] /= l;
    }
    return side >= 0 ? d : -d;
  }

  /** Triangles whose closest point to (x, y, z) is within r, into the BVH's result list. */
  trianglesWithin(x: number, y: number, z: number, r: number): number {
    const m = this.bvh.query(this.boxes, x - r, y - r, z - r, x + r, y + r, z + r);
    const res = this.bvh.result;
    let k = 0;
    for (let j = 0; j < m; j++) {
      this.closestOn(x, y, z, res[j]);
      if (cp[6] <= r * r) res[k++] = res[j];
    }
    this.bvh.resultCount = k;
    return k;
  }
}

function boxDistance2(B: Float64Array, node: number, x: number, y: number, z: number): number {
  const o = 6 * node;
  const dx = x < B[o] ? B[o] - x : x > B[o + 3] ? x - B[o + 3] : 0;
  const dy = y < B[o + 1] ? B[o + 1] - y : y > B[o + 4] ? y - B[o + 4] : 0;
  const dz = z < B[o + 2] ? B[o + 2] - z : z > B[o + 5] ? z - B[o + 5] : 0;
  return dx * dx + dy * dy + dz * dz;
}
