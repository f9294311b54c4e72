import { PbdError } from '../core/errors.js';
import { cross3, dot3, edgeVector, pointVector } from '../math/edges.js';
import { weightedGather } from '../math/weighted.js';
import { accumulateFaceNormals, type TriangleMesh } from '../mesh/triangle-mesh.js';

/** How a render mesh follows a simulation mesh (002 §5). */
export type EmbeddingMode = 'tets' | 'surface';

/**
 * A high-resolution render mesh driven by a coarse simulation mesh
 * (002 §5). Two attachments:
 *
 * - 'tets': each render vertex keeps barycentric coordinates in a tet of
 *   the simulation mesh (the containing one, or for vertices just outside,
 *   the nearest tet, extrapolated affinely), so x = Σ b_i x_i.
 * - 'surface' (Kobbelt et al., as the paper uses): each render vertex is
 *   assigned to a surface triangle; it is projected onto the triangle along
 *   the interpolated vertex normal, which gives barycentric coordinates b and
 *   a distance d; the deformed vertex is x = Σ b_i x_i + d n(b)/|n(b)| with
 *   n(b) = Σ b_i n_i interpolated from the deformed vertex normals. This
 *   follows cloth and surfaces with details above them.
 *
 * `update` recomputes the render positions from the simulation positions
 * and allocates nothing.
 */
export class RenderEmbedding {
  readonly mode: EmbeddingMode;
  /** Deformed render vertex positions (xyz interleaved), refreshed by `update`. */
  readonly positions: Float64Array;
  readonly triangles: Uint32Array;
  /** Per render vertex: the 4 (tets) or 3 (surface) body-local simulation vertices. */
  readonly vertices: Int32Array;
  /** Per render vertex: their weights (4 or 3). */
  readonly weights: Float64Array;
  /** Per render vertex: normal offset (surface mode). */
  readonly offsets: Float64Array;
  /** Simulation surface triangles whose vertex normals the surface mode interpolates. */
  private readonly surface: Uint32Array;
  private readonly normals: Float64Array;

  private constructor(
    mode: EmbeddingMode,
    render: TriangleMesh,
    vertices: Int32Array,
    weights: Float64Array,
    offsets: Float64Array,
    surface: Uint32Array,
    simCount: number,
    out: Float64Array | undefined,
  ) {
    this.mode = mode;
    this.positions = renderBuffer(render, out);
    this.triangles = new Uint32Array(render.triangles);
    this.vertices = vertices;
    this.weights = weights;
    this.offsets = offsets;
    this.surface = surface;
    this.normals = new Float64Array(mode === 'surface' ? 3 * simCount : 0);
  }

  /**
   * Embeds `render` in the tets of a simulation mesh whose rest positions
   * (body-local, xyz) are `rest`. `out` (3 numbers per render vertex) is
   * where the deformed positions go, e.g. `store.float64(n)` so that they
   * live on shared memory with the particles; by default a new array.
   */
  static inTets(
    render: TriangleMesh,
    rest: ArrayLike<number>,
    tets: ArrayLike<number>,
    out?: Float64Array,
  ): RenderEmbedding {
    const nr = render.positions.length / 3;
    const nt = tets.length / 4;
    const grid = new BoxGrid(rest, tets, 4);
    const vertices = new Int32Array(4 * nr);
    const weights = new Float64Array(4 * nr);
    const b = new Float64Array(4);
    const best = new Float64Array(4);
    for (let i = 0; i < nr; i++) {
      const px = render.positions[3 * i],
        py = render.positions[3 * i + 1],
        pz = render.positions[3 * i + 2];
      let bestT = -1,
        bestScore = -Infinity;
      const visit = (t: number) => {
        tetBarycentric(rest, tets, t, px, py, pz, b);
        const score = Math.min(b[0], b[1], b[2], b[3]);
        if (score > bestScore) {
          bestScore = score;
          bestT = t;
          best.set(b);
        }
      };
      grid.query(px, py, pz, visit);
      if (bestT < 0) for (let t = 0; t < nt; t++) visit(t);
      for (let k = 0; k < 4; k++) {
        vertices[4 * i + k] = tets[4 * bestT + k];
        weights[4 * i + k] = best[k];
      }
    }
    return new RenderEmbedding(
      'tets',
      render,
      vertices,
      weights,
      new Float64Array(0),
      new Uint32Array(0),
      0,
      out,
    );
  }

  /**
   * Attaches `render` to the triangle surface `surface` (body-local indices)
   * of a simulation mesh with rest positions `rest` (002 §5); `out` as in
   * `inTets`.
   */
  static onSurface(
    render: TriangleMesh,
    rest: ArrayLike<number>,
    surface: ArrayLike<number>,
    out?: Float64Array,
  ): RenderEmbedding {
    const nr = render.positions.length / 3;
    const ns = surface.length / 3;
    if (ns === 0)
      throw new PbdError(
        'embedding/no-surface',
        'render embedding',
        'the simulation mesh has no surface triangles',
      );
    const simCount = rest.length / 3;
    const normals = new Float64Array(3 * simCount);
    vertexNormals(rest, surface, normals);
    const grid = new BoxGrid(rest, surface, 3);
    const vertices = new Int32Array(3 * nr);
    const weights = new Float64Array(3 * nr);
    const offsets = new Float64Array(nr);
    const b = new Float64Array(3);
    for (let i = 0; i < nr; i++) {
      const px = render.positions[3 * i],
        py = render.positions[3 * i + 1],
        pz = render.positions[3 * i + 2];
      let bestT = -1,
        bestD = Infinity;
      const visit = (t: number) => {
        const d = closestOnTriangle(rest, surface, t, px, py, pz, b);
        if (d < bestD) {
          bestD = d;
          bestT = t;
        }
      };
      grid.query(px, py, pz, visit);
      if (bestT < 0) for (let t = 0; t < ns; t++) visit(t);
      closestOnTriangle(rest, surface, bestT, px, py, pz, b);
      // Kobbelt: find b with p = q(b) + d n(b); a few fixed-point steps from the closest point
      const i0 = surface[3 * bestT],
        i1 = surface[3 * bestT + 1],
        i2 = surface[3 * bestT + 2];
      let d = 0;
      for (let it = 0; it < 8; it++) {
        let nx = 0,
          ny = 0,
          nz = 0,
          qx = 0,
          qy = 0,
          qz = 0;
        for (let k = 0; k < 3; k++) {
          const v = surface[3 * bestT + k];
          nx += b[k] * normals[3 * v];
          ny += b[k] * normals[3 * v + 1];
          nz += b[k] * normals[3 * v + 2];
          qx += b[k] * rest[3 * v];
          qy += b[k] * rest[3 * v + 1];
          qz += b[k] * rest[3 * v + 2];
        }
        const nl = Math.hypot(nx, ny, nz) || 1;
        nx /= nl;
        ny /= nl;
        nz /= nl;
        d = (px - qx) * nx + (py - qy) * ny + (pz - qz) * nz;
        // project p − d n onto the triangle's plane, unclamped barycentrics
        planeBarycentric(rest, i0, i1, i2, px - d * nx, py - d * ny, pz - d * nz, b);
      }
      vertices[3 * i] = i0;
      vertices[3 * i + 1] = i1;
      vertices[3 * i + 2] = i2;
      weights.set(b, 3 * i);
      offsets[i] = d;
    }
    return new RenderEmbedding(
      'surface',
      render,
      vertices,
      weights,
      offsets,
      Uint32Array.from(surface),
      simCount,
      out,
    );
  }

  /** Recomputes `positions` from the simulation positions x (global store) of a body starting at `offset`. */
  update(x: ArrayLike<number>, offset: number): Float64Array {
    const out = this.positions;
    const vs = this.vertices,
      ws = this.weights;
    const nr = out.length / 3;
    if (this.mode === 'tets') {
      weightedGather(x, offset, vs, ws, 4, out, 0, false, null, 0);
      return out;
    }
    const n = this.normals;
    vertexNormals(x, this.surface, n, offset);
    for (let i = 0; i < nr; i++) {
      let px = 0,
        py = 0,
        pz = 0,
        nx = 0,
        ny = 0,
        nz = 0;
      for (let k = 0; k < 3; k++) {
        const l = vs[3 * i + k];
        const v = 3 * (offset + l);
        const wk = ws[3 * i + k];
        px += wk * x[v];
        py += wk * x[v + 1];
        pz += wk * x[v + 2];
        nx += wk * n[3 * l];
        ny += wk * n[3 * l + 1];
        nz += wk * n[3 * l + 2];
      }
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
      const s = nl > 0 ? this.offsets[i] / nl : 0;
      out[3 * i] = px + s * nx;
      out[3 * i + 1] = py + s * ny;
      out[3 * i + 2] = pz + s * nz;
    }
    return out;
  }
}

/** The array the deformed render vertices go to: `out` (checked, filled with the rest pose) or a copy of the rest pose. */
export function renderBuffer(render: TriangleMesh, out: Float64Array | undefined): Float64Array {
  if (!out) return new Float64Array(render.positions);
  if (out.length !== render.positions.length) {
    throw new PbdError(
      'embedding/buffer',
      'render embedding',
      `has ${render.positions.length / 3} vertices but its output array holds ${out.length / 3}`,
      'allocate 3 numbers per render vertex',
    );
  }
  out.set(render.positions);
  return out;
}

/** Area-weighted vertex normals of triangles (body-local indices) over positions x starting at `offset`. */
function vertexNormals(x: ArrayLike<number>, tris: ArrayLike<number>, out: Float64Array, offset = 0): void {
  out.fill(0);
  accumulateFaceNormals(x, tris, out, offset);
}

/** Edge vectors and products of tetBarycentric and planeBarycentric (set-up only). */
const scratch = new Float64Array(21);

/** Barycentric coordinates of p in tet t (4 numbers; all ≥ 0 inside). */
export function tetBarycentric(
  x: ArrayLike<number>,
  tets: ArrayLike<number>,
  t: number,
  px: number,
  py: number,
  pz: number,
  out: Float64Array,
): void {
  const a = 3 * tets[4 * t],
    b = 3 * tets[4 * t + 1],
    c = 3 * tets[4 * t + 2],
    d = 3 * tets[4 * t + 3];
  // w_a = V(p, b, c, d) / V(a, b, c, d) etc., with V(q, r, s, u) = (r − q) × (s − q) · (u − q):
  // solve [a b c] w = q (columns relative to d) by Cramer's rule, in E (src/math/edges.ts) as
  // a, b, c, q at 0, 3, 6, 9 and b × c, q × c, b × q at 12, 15, 18
  const E = scratch;
  edgeVector(x, d, a, E, 0);
  edgeVector(x, d, b, E, 3);
  edgeVector(x, d, c, E, 6);
  pointVector(x, d, px, py, pz, E, 9);
  cross3(E, 3, 6, 12);
  cross3(E, 9, 6, 15);
  cross3(E, 3, 9, 18);
  const det = dot3(E, 0, 12);
  const inv = det !== 0 ? 1 / det : 0;
  out[0] = dot3(E, 9, 12) * inv;
  out[1] = dot3(E, 0, 15) * inv;
  out[2] = dot3(E, 0, 18) * inv;
  out[3] = 1 - out[0] - out[1] - out[2];
}

/** Barycentric coordinates of the projection of p onto the plane of a triangle (may be negative). */
function planeBarycentric(
  x: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  px: number,
  py: number,
  pz: number,
  out: Float64Array,
): void {
  const a = 3 * i0;
  // u = x_1 − x_0, v = x_2 − x_0, w = p − x_0 at 0, 3, 6 of E (src/math/edges.ts)
  const E = scratch;
  edgeVector(x, a, 3 * i1, E, 0);
  edgeVector(x, a, 3 * i2, E, 3);
  pointVector(x, a, px, py, pz, E, 6);
  const uu = dot3(E, 0, 0),
    uv = dot3(E, 0, 3),
    vv = dot3(E, 3, 3);
  const wu = dot3(E, 6, 0),
    wv = dot3(E, 6, 3);
  const den = uu * vv - uv * uv;
  const s = den > 0 ? (vv * wu - uv * wv) / den : 0;
  const t = den > 0 ? (uu * wv - uv * wu) / den : 0;
  out[0] = 1 - s - t;
  out[1] = s;
  out[2] = t;
}

/** Squared distance from p to triangle t; writes the closest point's barycentric coordinates. */
function closestOnTriangle(
  x: ArrayLike<number>,
  tris: ArrayLike<number>,
  t: number,
  px: number,
  py: number,
  pz: number,
  out: Float64Array,
): number {
  const i0 = tris[3 * t],
    i1 = tris[3 * t + 1],
    i2 = tris[3 * t + 2];
  planeBarycentric(x, i0, i1, i2, px, py, pz, out);
  if (out[0] < 0 || out[1] < 0 || out[2] < 0) {
    // closest point on the edges
    let best = Infinity;
    const bb = [0, 0, 0];
    const pairs = [
      [i0, i1, 0, 1],
      [i1, i2, 1, 2],
      [i2, i0, 2, 0],
    ];
    for (const [p, q, kp, kq] of pairs) {
      const a = 3 * p,
        b = 3 * q;
      const ex = x[b] - x[a],
        ey = x[b + 1] - x[a + 1],
        ez = x[b + 2] - x[a + 2];
      const l2 = ex * ex + ey * ey + ez * ez;
      let s = l2 > 0 ? ((px - x[a]) * ex + (py - x[a + 1]) * ey + (pz - x[a + 2]) * ez) / l2 : 0;
      s = Math.max(0, Math.min(1, s));
      const dx = x[a] + s * ex - px,
        dy = x[a + 1] + s * ey - py,
        dz = x[a + 2] + s * ez - pz;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 < best) {
        best = d2;
        bb[0] = bb[1] = bb[2] = 0;
        bb[kp] = 1 - s;
        bb[kq] = s;
      }
    }
    out[0] = bb[0];
    out[1] = bb[1];
    out[2] = bb[2];
    return best;
  }
  const qx = out[0] * x[3 * i0] + out[1] * x[3 * i1] + out[2] * x[3 * i2];
  const qy = out[0] * x[3 * i0 + 1] + out[1] * x[3 * i1 + 1] + out[2] * x[3 * i2 + 1];
  const qz = out[0] * x[3 * i0 + 2] + out[1] * x[3 * i1 + 2] + out[2] * x[3 * i2 + 2];
  return (qx - px) ** 2 + (qy - py) ** 2 + (qz - pz) ** 2;
}

/** A uniform grid over the bounding boxes of simplices (arity 3 or 4), for nearest-simplex queries. */
class BoxGrid {
  private readonly cells = new Map<number, number[]>();
  private readonly size: number;
  private readonly lo: number[];
  private readonly stamp: Int32Array;
  private queries = 0;

  constructor(x: ArrayLike<number>, simplices: ArrayLike<number>, arity: number) {
    const n = simplices.length / arity;
    let ext = 0;
    const lo = [Infinity, Infinity, Infinity];
    for (let s = 0; s < n; s++) {
      for (let k = 0; k < arity; k++) {
        const v = 3 * simplices[arity * s + k];
        for (let d = 0; d < 3; d++) lo[d] = Math.min(lo[d], x[v + d]);
      }
      const a = 3 * simplices[arity * s],
        b = 3 * simplices[arity * s + 1];
      ext += Math.hypot(x[b] - x[a], x[b + 1] - x[a + 1], x[b + 2] - x[a + 2]);
    }
    this.size = Math.max(1e-9, ext / Math.max(1, n));
    this.stamp = new Int32Array(n).fill(-1);
    this.lo = lo;
    for (let s = 0; s < n; s++) {
      const mn = [Infinity, Infinity, Infinity],
        mx = [-Infinity, -Infinity, -Infinity];
      for (let k = 0; k < arity; k++) {
        const v = 3 * simplices[arity * s + k];
        for (let d = 0; d < 3; d++) {
          mn[d] = Math.min(mn[d], x[v + d]);
          mx[d] = Math.max(mx[d], x[v + d]);
        }
      }
      const a = mn.map((m, d) => this.cell(m, d));
      const b = mx.map((m, d) => this.cell(m, d));
      for (let i = a[0]; i <= b[0]; i++)
        for (let j = a[1]; j <= b[1]; j++)
          for (let k = a[2]; k <= b[2]; k++) {
            const key = this.key(i, j, k);
            let l = this.cells.get(key);
            if (!l) {
              l = [];
              this.cells.set(key, l);
            }
            l.push(s);
          }
    }
  }

  private cell(v: number, d: number): number {
    return Math.floor((v - this.lo[d]) / this.size);
  }

  private key(i: number, j: number, k: number): number {
    return ((i + 512) * 1024 + (j + 512)) * 1024 + (k + 512);
  }

  /** Visits the simplices of the cells around p, widening the search until some are found (one ring at least, up to 8). */
  query(px: number, py: number, pz: number, visit: (s: number) => void): void {
    const ci = this.cell(px, 0),
      cj = this.cell(py, 1),
      ck = this.cell(pz, 2);
    const q = this.queries++;
    let found = 0;
    for (let r = 0; r <= 8; r++) {
      for (let i = ci - r; i <= ci + r; i++)
        for (let j = cj - r; j <= cj + r; j++)
          for (let k = ck - r; k <= ck + r; k++) {
            const l = this.cells.get(this.key(i, j, k));
            if (!l) continue;
            for (const s of l) {
              if (this.stamp[s] === q) continue;
              this.stamp[s] = q;
              found++;
              visit(s);
            }
          }
      // a containing simplex overlaps the query's own cell; one more ring covers near misses
      if (found > 0 && r >= 1) return;
    }
  }
}
