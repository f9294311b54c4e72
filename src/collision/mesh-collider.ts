import { requireIntegerIn } from '../core/errors.js';
import type { TriangleMesh } from '../mesh/triangle-mesh.js';
import { Collider, type ColliderOptions, unitOrAxis } from './colliders.js';
import { MeshDistance } from './mesh-distance.js';

export interface MeshColliderOptions extends ColliderOptions {
  /** A closed (watertight) triangle mesh in the collider's local frame. */
  mesh: TriangleMesh;
  /** Cells of the distance field along the mesh's longest side. Default 64. */
  resolution?: number;
  /** The free space is the inside of the mesh (a container such as a barrel). Default false. */
  inside?: boolean;
}

const SQRT3 = Math.sqrt(3);

/**
 * A static or kinematic triangle-mesh collider (003 §3.4). The mesh's
 * signed distance is sampled on a regular grid (exact values at the nodes)
 * and interpolated trilinearly far from the surface; in the cells near the
 * surface the distance is computed exactly from the triangles, from a short
 * list per cell that provably holds the nearest triangle of every point of
 * the cell (all triangles within |d(centre)| + √3·cell of the cell's centre).
 * The sign comes from angle-weighted pseudonormals, so it is exact for a
 * closed mesh. Outside the grid (padded by three cells) the distance to the
 * mesh's bounding box stands in: a lower bound, enough to reject. The continuous test (the ray x → p entering the surface grown
 * by the margin) is sphere tracing on this distance, and particles already
 * inside get the static fallback of ColliderContacts: the closest surface
 * point of the prediction.
 *
 * A kinematic mesh moves rigidly (its `motion`); the field lives in the
 * local frame, so moving costs nothing.
 */
export class MeshCollider extends Collider {
  readonly type = 'mesh';
  readonly distanceToMesh: MeshDistance;
  /** The mesh in the collider's local frame (shared with `distanceToMesh`; for drawing). */
  readonly mesh: { readonly positions: Float64Array; readonly triangles: Uint32Array };
  readonly inside: boolean;
  /** Grid origin (local frame), cell size and node counts. */
  readonly origin = new Float64Array(3);
  readonly cell: number;
  readonly nodes = new Int32Array(3);
  /** Signed distance at the nodes, x fastest. */
  readonly values: Float64Array;
  /** Per cell, its candidate triangles: cellTriangles[cellStart[c] .. cellStart[c + 1]). */
  readonly cellStart: Int32Array;
  readonly cellTriangles: Int32Array;
  private readonly meshRadius: number;
  /** The mesh's bounding box (local frame). */
  private readonly bounds: Float64Array;
  /** The last query: point, distance, normal. */
  private readonly memo = new Float64Array([Number.NaN, 0, 0, 0, 0, 0, 0, 0]);
  /** The last localDistance was exact (a cell near the surface), not interpolated. */
  private exact = false;

  constructor(opts: MeshColliderOptions, where = 'mesh collider') {
    super(opts, where);
    const res = opts.resolution ?? 64;
    requireIntegerIn(res, 4, 512, 'collider/invalid', `${where}.resolution`);
    this.inside = opts.inside ?? false;
    this.distanceToMesh = new MeshDistance(opts.mesh, `${where}.mesh`);
    this.mesh = { positions: this.distanceToMesh.positions, triangles: this.distanceToMesh.triangles };
    const P = this.distanceToMesh.positions;
    const lo = [Infinity, Infinity, Infinity],
      hi = [-Infinity, -Infinity, -Infinity];
    let r2 = 0;
    for (let i = 0; i < P.length; i += 3) {
      for (let k = 0; k < 3; k++) {
        lo[k] = Math.min(lo[k], P[i + k]);
        hi[k] = Math.max(hi[k], P[i + k]);
      }
      r2 = Math.max(r2, P[i] * P[i] + P[i + 1] * P[i + 1] + P[i + 2] * P[i + 2]);
    }
    this.meshRadius = Math.sqrt(r2);
    this.bounds = new Float64Array([lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]);
    const extent = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
    const cs = extent / res;
    this.cell = cs;
    const pad = 3 * cs + this.margin;
    for (let k = 0; k < 3; k++) {
      this.origin[k] = lo[k] - pad;
      this.nodes[k] = Math.ceil((hi[k] - lo[k] + 2 * pad) / cs) + 1;
    }
    const [nx, ny, nz] = this.nodes;
    this.values = buildField(this.distanceToMesh, this.origin, cs, nx, ny, nz);
    // candidate triangles of the cells near the surface
    const md = this.distanceToMesh;
    const cells = (nx - 1) * (ny - 1) * (nz - 1);
    this.cellStart = new Int32Array(cells + 1);
    const band = cs;
    let lists = new Int32Array(1024);
    let used = 0;
    const V = this.values;
    for (let iz = 0; iz < nz - 1; iz++) {
      for (let iy = 0; iy < ny - 1; iy++) {
        for (let ix = 0; ix < nx - 1; ix++) {
          const c = ix + (nx - 1) * (iy + (ny - 1) * iz);
          this.cellStart[c] = used;
          const i0 = ix + nx * (iy + ny * iz);
          let m = Number.POSITIVE_INFINITY;
          for (let k = 0; k < 8; k++) {
            const v = Math.abs(V[i0 + (k & 1) + nx * (((k >> 1) & 1) + ny * (k >> 2))]);
            if (v < m) m = v;
          }
          if (m > band) continue;
          // the nearest triangle of a point of the cell lies within |d(centre)| + √3·cell of the centre
          const cx = this.origin[0] + (ix + 0.5) * cs,
            cy = this.origin[1] + (iy + 0.5) * cs,
            cz = this.origin[2] + (iz + 0.5) * cs;
          const dc = Math.abs(md.signedDistance(cx, cy, cz, nrmBuild, m + SQRT3 * cs));
          const k = md.trianglesWithin(cx, cy, cz, dc + SQRT3 * cs);
          if (used + k > lists.length) {
            const g = new Int32Array(Math.max(2 * lists.length, used + k));
            g.set(lists);
            lists = g;
          }
          for (let j = 0; j < k; j++) lists[used++] = md.bvh.result[j];
        }
      }
    }
    this.cellStart[cells] = used;
    this.cellTriangles = lists.slice(0, used);
  }

  protected localDistance(x: number, y: number, z: number, n: Float64Array): number {
    // the contact generation asks about the same point several times: remember the last one
    const m = this.memo;
    if (x === m[0] && y === m[1] && z === m[2]) {
      n[0] = m[4];
      n[1] = m[5];
      n[2] = m[6];
      this.exact = m[7] !== 0;
      return m[3];
    }
    let d = this.fieldDistance(x, y, z, n);
    if (this.inside) {
      n[0] = -n[0];
      n[1] = -n[1];
      n[2] = -n[2];
      d = -d;
    }
    m[0] = x;
    m[1] = y;
    m[2] = z;
    m[3] = d;
    m[4] = n[0];
    m[5] = n[1];
    m[6] = n[2];
    m[7] = this.exact ? 1 : 0;
    return d;
  }

  /** Signed distance to the mesh surface (negative inside the mesh) and the outward normal. */
  private fieldDistance(x: number, y: number, z: number, n: Float64Array): number {
    const cs = this.cell;
    const fx = (x - this.origin[0]) / cs,
      fy = (y - this.origin[1]) / cs,
      fz = (z - this.origin[2]) / cs;
    const nx = this.nodes[0],
      ny = this.nodes[1],
      nz = this.nodes[2];
    if (!(fx >= 0 && fy >= 0 && fz >= 0 && fx < nx - 1 && fy < ny - 1 && fz < nz - 1)) {
      // outside the grid (at least three cells from the mesh): the distance to the mesh's bounding
      // box, a lower bound, which keeps rejection tests and sphere tracing conservative
      this.exact = false;
      return this.boxDistance(x, y, z, n);
    }
    const ix = Math.floor(fx),
      iy = Math.floor(fy),
      iz = Math.floor(fz);
    const c = ix + (nx - 1) * (iy + (ny - 1) * iz);
    const s = this.cellStart[c],
      e = this.cellStart[c + 1];
    this.exact = e > s;
    if (e > s) return this.distanceToMesh.signedDistanceAmong(x, y, z, this.cellTriangles, s, e, n);
    // far from the surface: trilinear interpolation and its gradient
    const tx = fx - ix,
      ty = fy - iy,
      tz = fz - iz;
    const V = this.values;
    const i0 = ix + nx * (iy + ny * iz);
    const sy = nx,
      sz = nx * ny;
    const v000 = V[i0],
      v100 = V[i0 + 1],
      v010 = V[i0 + sy],
      v110 = V[i0 + sy + 1],
      v001 = V[i0 + sz],
      v101 = V[i0 + sz + 1],
      v011 = V[i0 + sy + sz],
      v111 = V[i0 + sy + sz + 1];
    const a00 = v000 + (v100 - v000) * tx,
      a10 = v010 + (v110 - v010) * tx,
      a01 = v001 + (v101 - v001) * tx,
      a11 = v011 + (v111 - v011) * tx;
    const b0 = a00 + (a10 - a00) * ty,
      b1 = a01 + (a11 - a01) * ty;
    const d = b0 + (b1 - b0) * tz;
    // gradient
    const gx =
      ((v100 - v000) * (1 - ty) + (v110 - v010) * ty) * (1 - tz) +
      ((v101 - v001) * (1 - ty) + (v111 - v011) * ty) * tz;
    const gy = (a10 - a00) * (1 - tz) + (a11 - a01) * tz;
    const gz = b1 - b0;
    unitOrAxis(n, gx, gy, gz, 1);
    return d;
  }

  /** Distance from (x, y, z) to the mesh's bounding box (outside it) and the box's outward normal there. */
  private boxDistance(x: number, y: number, z: number, n: Float64Array): number {
    const b = this.bounds;
    const dx = x < b[0] ? x - b[0] : x > b[3] ? x - b[3] : 0,
      dy = y < b[1] ? y - b[1] : y > b[4] ? y - b[4] : 0,
      dz = z < b[2] ? z - b[2] : z > b[5] ? z - b[5] : 0;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (d > 0) {
      n[0] = dx / d;
      n[1] = dy / d;
      n[2] = dz / d;
      return d;
    }
    // NaN or inside the box yet outside the grid: cannot happen for finite points; be safe
    return this.distanceToMesh.signedDistance(x, y, z, n);
  }

  /**
   * Sphere tracing of the segment a → b against the surface grown by r: steps
   * of (d − r)/√3 (the interpolated field grows at most √3 times faster than
   * the distance), ending once within 1 % of a cell of the surface.
   */
  protected override localRaycast(a: Float64Array, b: Float64Array, r: number): number {
    const ax = a[0],
      ay = a[1],
      az = a[2];
    const dx = b[0] - ax,
      dy = b[1] - ay,
      dz = b[2] - az;
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(len > 0)) return -1;
    const eps = 0.01 * this.cell;
    const n = tmpRay;
    let t = 0;
    for (let it = 0; it < 256; it++) {
      const d = this.localDistance(ax + dx * t, ay + dy * t, az + dz * t, n) - r;
      if (d <= eps) return t;
      // an exact distance is 1-Lipschitz: no point within d of here is on the grown surface; the
      // interpolated field may overestimate it, by at most √3
      t += Math.max(this.exact ? d : d / SQRT3, 0.5 * eps) / len;
      if (t > 1) {
        // the end point itself: entered within the last step?
        const de = this.localDistance(b[0], b[1], b[2], n) - r;
        return de <= eps ? 1 : -1;
      }
    }
    const de = this.localDistance(b[0], b[1], b[2], n) - r;
    return de <= eps ? 1 : -1;
  }

  boundingRadius(): number {
    return this.inside ? Number.POSITIVE_INFINITY : this.meshRadius + this.cell;
  }
}

const tmpRay = new Float64Array(3);
const nrmBuild = new Float64Array(3);

const cpf = new Float64Array(7);
const nrm = new Float64Array(3);

/**
 * Signed distance at the grid nodes (as in Batty's SDFGen): exact distances
 * in a band of two cells around every triangle, closest-triangle propagation
 * by two sweeps elsewhere; signs from the pseudonormals in the band and, for
 * the nodes outside it, by a flood fill from the grid boundary (the band
 * separates inside from outside, since every node next to the surface lies in
 * it).
 */
function buildField(
  md: MeshDistance,
  origin: Float64Array,
  cs: number,
  nx: number,
  ny: number,
  nz: number,
): Float64Array {
  const nt = md.triangles.length / 3;
  const N = nx * ny * nz;
  const dist = new Float64Array(N).fill(Number.POSITIVE_INFINITY);
  const closest = new Int32Array(N).fill(-1);
  const bandWidth = 2 * cs;
  const sy = nx,
    sz = nx * ny;
  const ox = origin[0],
    oy = origin[1],
    oz = origin[2];
  const nodeDist = (i: number, t: number): number => {
    const ix = i % nx,
      iy = Math.floor(i / nx) % ny,
      iz = Math.floor(i / sz);
    md.closestPointOn(ox + ix * cs, oy + iy * cs, oz + iz * cs, t, cpf);
    return Math.sqrt(cpf[6]);
  };
  // 1. exact distances near each triangle
  for (let t = 0; t < nt; t++) {
    const o = 6 * t,
      B = md.boxes;
    const x0 = Math.max(0, Math.floor((B[o] - bandWidth - ox) / cs)),
      x1 = Math.min(nx - 1, Math.ceil((B[o + 3] + bandWidth - ox) / cs));
    const y0 = Math.max(0, Math.floor((B[o + 1] - bandWidth - oy) / cs)),
      y1 = Math.min(ny - 1, Math.ceil((B[o + 4] + bandWidth - oy) / cs));
    const z0 = Math.max(0, Math.floor((B[o + 2] - bandWidth - oz) / cs)),
      z1 = Math.min(nz - 1, Math.ceil((B[o + 5] + bandWidth - oz) / cs));
    for (let iz = z0; iz <= z1; iz++)
      for (let iy = y0; iy <= y1; iy++)
        for (let ix = x0; ix <= x1; ix++) {
          const i = ix + sy * iy + sz * iz;
          const d = nodeDist(i, t);
          if (d < dist[i]) {
            dist[i] = d;
            closest[i] = t;
          }
        }
  }
  const inBand = new Uint8Array(N);
  for (let i = 0; i < N; i++) if (dist[i] <= bandWidth) inBand[i] = 1;
  // 2. propagate the closest triangles outwards (forward and backward sweeps)
  for (let pass = 0; pass < 2; pass++) {
    const fwd = pass === 0;
    for (let iz = fwd ? 0 : nz - 1; fwd ? iz < nz : iz >= 0; iz += fwd ? 1 : -1)
      for (let iy = fwd ? 0 : ny - 1; fwd ? iy < ny : iy >= 0; iy += fwd ? 1 : -1)
        for (let ix = fwd ? 0 : nx - 1; fwd ? ix < nx : ix >= 0; ix += fwd ? 1 : -1) {
          const i = ix + sy * iy + sz * iz;
          if (inBand[i]) continue;
          const s = fwd ? -1 : 1;
          const nb0 = ix + s >= 0 && ix + s < nx ? i + s : -1;
          const nb1 = iy + s >= 0 && iy + s < ny ? i + s * sy : -1;
          const nb2 = iz + s >= 0 && iz + s < nz ? i + s * sz : -1;
          for (const j of [nb0, nb1, nb2]) {
            if (j < 0 || closest[j] < 0 || closest[j] === closest[i]) continue;
            const d = nodeDist(i, closest[j]);
            if (d < dist[i]) {
              dist[i] = d;
              closest[i] = closest[j];
            }
          }
        }
  }
  // 3. signs: pseudonormals in the band, flood fill from the boundary outside it
  const sign = new Int8Array(N);
  for (let i = 0; i < N; i++) {
    if (!inBand[i]) continue;
    const t = closest[i];
    const ix = i % nx,
      iy = Math.floor(i / nx) % ny,
      iz = Math.floor(i / sz);
    const x = ox + ix * cs,
      y = oy + iy * cs,
      z = oz + iz * cs;
    const region = md.closestPointOn(x, y, z, t, cpf);
    md.pseudonormal(t, region, nrm);
    sign[i] = (x - cpf[0]) * nrm[0] + (y - cpf[1]) * nrm[1] + (z - cpf[2]) * nrm[2] >= 0 ? 1 : -1;
  }
  const queue = new Int32Array(N);
  let head = 0,
    tail = 0;
  for (let iz = 0; iz < nz; iz++)
    for (let iy = 0; iy < ny; iy++)
      for (let ix = 0; ix < nx; ix++) {
        if (ix > 0 && ix < nx - 1 && iy > 0 && iy < ny - 1 && iz > 0 && iz < nz - 1) continue;
        const i = ix + sy * iy + sz * iz;
        if (inBand[i] || sign[i] !== 0) continue;
        sign[i] = 1;
        queue[tail++] = i;
      }
  while (head < tail) {
    const i = queue[head++];
    const ix = i % nx,
      iy = Math.floor(i / nx) % ny,
      iz = Math.floor(i / sz);
    for (let k = 0; k < 6; k++) {
      const d = (k & 1) === 0 ? -1 : 1;
      const axis = k >> 1;
      const c = axis === 0 ? ix + d : axis === 1 ? iy + d : iz + d;
      const lim = axis === 0 ? nx : axis === 1 ? ny : nz;
      if (c < 0 || c >= lim) continue;
      const j = i + d * (axis === 0 ? 1 : axis === 1 ? sy : sz);
      if (inBand[j] || sign[j] !== 0) continue;
      sign[j] = 1;
      queue[tail++] = j;
    }
  }
  const values = new Float64Array(N);
  for (let i = 0; i < N; i++) values[i] = (sign[i] === 0 ? -1 : sign[i]) * dist[i];
  return values;
}
