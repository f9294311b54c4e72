import { weightedGather } from '../math/weighted.js';
import type { ClothLevel } from './cloth-level.js';

/**
 * The restriction and prolongation operators of multi-resolution shape
 * matching (Algorithm 2, Bender et al. 2013): barycentric transfer between
 * two levels of a cloth, in their common rest plane.
 */
/** Barycentric transfer from one level to another: each target vertex interpolates a source triangle. */
export class Transfer {
  /** Per target vertex: three source vertices and their weights. */
  readonly index: Int32Array;
  readonly weight: Float64Array;

  constructor(from: ClothLevel, to: ClothLevel) {
    const n = to.vertices;
    this.index = new Int32Array(3 * n);
    this.weight = new Float64Array(3 * n);
    const tri = from.triangles,
      uv = from.uv;
    const nt = tri.length / 3;
    for (let v = 0; v < n; v++) {
      const px = to.uv[2 * v],
        py = to.uv[2 * v + 1];
      // the source triangle containing the point, or the one whose barycentric coordinates are least negative
      let best = -1,
        bestMin = -Infinity,
        bw = [0, 0, 0];
      for (let t = 0; t < nt; t++) {
        const a = tri[3 * t],
          b = tri[3 * t + 1],
          c = tri[3 * t + 2];
        const x0 = uv[2 * a],
          y0 = uv[2 * a + 1];
        const x1 = uv[2 * b] - x0,
          y1 = uv[2 * b + 1] - y0;
        const x2 = uv[2 * c] - x0,
          y2 = uv[2 * c + 1] - y0;
        const d = x1 * y2 - x2 * y1;
        const qx = px - x0,
          qy = py - y0;
        const l1 = (qx * y2 - x2 * qy) / d,
          l2 = (x1 * qy - qx * y1) / d;
        const l0 = 1 - l1 - l2;
        const mn = Math.min(l0, l1, l2);
        if (mn > bestMin) {
          bestMin = mn;
          best = t;
          bw = [l0, l1, l2];
          if (mn >= 0) break;
        }
      }
      // clamp to the triangle (points just outside the source mesh)
      const cl = bw.map((x) => Math.max(0, x));
      const s = cl[0] + cl[1] + cl[2];
      for (let k = 0; k < 3; k++) {
        this.index[3 * v + k] = tri[3 * best + k];
        this.weight[3 * v + k] = cl[k] / s;
      }
    }
  }

  /** out[v] = flags[off + i] of the source vertex i with the largest weight for target vertex v. */
  dominant(flags: Float64Array, off: number, out: Float64Array): void {
    const idx = this.index,
      w = this.weight;
    for (let v = 0; v < out.length; v++) {
      let k = 0;
      if (w[3 * v + 1] > w[3 * v + k]) k = 1;
      if (w[3 * v + 2] > w[3 * v + k]) k = 2;
      out[v] = flags[off + idx[3 * v + k]] === 0 ? 0 : 1;
    }
  }

  /** dst[3 (doff + v) …] (+)= Σ_k w_k src[3 (soff + i_k) …] for every target vertex v. */
  apply(
    src: Float64Array,
    soff: number,
    dst: Float64Array,
    doff: number,
    add: boolean,
    fixed: Float64Array | null,
    fixedOff = 0,
  ): void {
    weightedGather(src, soff, this.index, this.weight, 3, dst, doff, add, fixed, fixedOff);
  }
}
