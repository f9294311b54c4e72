import type { StepContext } from '../core/constraint-set.js';
import { quatRotate } from '../math/quat.js';
import type { FluidBody } from './fluid-body.js';

/**
 * Wall records of a fluid for one substep: the fluid particles within reach
 * of a collider, with the collider's tangent plane at the particle, s(p) =
 * n·p − c, the distance to the collider surface grown by its margin (see
 * wallLayers in kernels.ts). The density passes read them as the wall part
 * of each particle's density (wallDensityPass, wallCorrectionPass).
 */
export class FluidWalls {
  /** Records this substep. */
  count = 0;
  /** Fluid slot of each record. */
  slot = new Int32Array(0);
  /** Unit normal n of each record (3 each). */
  n = new Float64Array(0);
  /** Plane offset c of each record. */
  c = new Float64Array(0);
  /** Effective gradient magnitude G of each record (written by wallDensityPass). */
  g = new Float64Array(0);
  /** Fraction V_k of the kernel each record's wall fills (scratch of wallDensityPass). */
  v = new Float64Array(0);
  /** Per slot: Π (1 − V_k) over the walls near it (scratch of wallDensityPass). */
  P = new Float64Array(0);
  private readonly nrm = new Float64Array(3);

  /** Room for the per-slot scratch of `slots` fluid slots. */
  ensureSlots(slots: number): void {
    if (this.P.length < slots) this.P = new Float64Array(slots);
  }

  /**
   * Finds the fluid particles within 1.5 h of a collider (enabled, and whose
   * group and mask match the fluid's) and records the collider's tangent
   * plane there. Planes take a fast path (one dot product per particle);
   * `bounds` (min xyz, max xyz of the predicted positions) skips planes out
   * of reach of the whole fluid.
   */
  build(ctx: StepContext, fluid: FluidBody, bounds: Float64Array): void {
    this.count = 0;
    const cols = ctx.world.colliders;
    if (cols.length === 0) return;
    const store = ctx.store;
    const p = store.p;
    const n = fluid.activeCount;
    const off = fluid.offset;
    const reach = 1.5 * fluid.kernelRadius;
    const fg = store.group[off],
      fm = store.mask[off];
    const nrm = this.nrm;
    const b = bounds;
    let k = 0;
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c];
      if (!col.enabled || (fm & col.group) === 0 || (col.mask & fg) === 0) continue;
      const margin = col.margin;
      if (col.type === 'plane') {
        quatRotate(nrm, 0, col.rotation, 0, 0, 1, 0);
        const nx = nrm[0],
          ny = nrm[1],
          nz = nrm[2];
        const cc = nx * col.position[0] + ny * col.position[1] + nz * col.position[2] + margin;
        // the whole fluid is out of reach when its bounding box is
        const lo =
          (nx > 0 ? nx * b[0] : nx * b[3]) +
          (ny > 0 ? ny * b[1] : ny * b[4]) +
          (nz > 0 ? nz * b[2] : nz * b[5]);
        if (lo - cc >= reach) continue;
        // geometric growth: the planes' counts change a little every step, so room for exactly k + n
        // was short again at the next plane or step (each growth copies the records)
        if (k + n > this.slot.length) this.grow(Math.max(2 * this.slot.length, k + n + 256));
        k = planeWalls(n, off, p, nx, ny, nz, cc, reach, k, this.slot, this.n, this.c);
      } else {
        const R = col.boundingRadius() + margin + reach;
        const cx = col.position[0],
          cy = col.position[1],
          cz = col.position[2];
        for (let s = 0; s < n; s++) {
          const i3 = 3 * (off + s);
          const px = p[i3],
            py = p[i3 + 1],
            pz = p[i3 + 2];
          const ex = px - cx,
            ey = py - cy,
            ez = pz - cz;
          if (ex * ex + ey * ey + ez * ez > R * R) continue;
          const sd = col.distance(px, py, pz, nrm) - margin;
          if (sd >= reach) continue;
          if (k === this.slot.length) this.grow(2 * k + 256);
          this.slot[k] = s;
          this.n[3 * k] = nrm[0];
          this.n[3 * k + 1] = nrm[1];
          this.n[3 * k + 2] = nrm[2];
          this.c[k] = nrm[0] * px + nrm[1] * py + nrm[2] * pz - sd;
          k++;
        }
      }
    }
    this.count = k;
  }

  private grow(cap: number): void {
    const g = <T extends Float64Array | Int32Array>(a: T, stride: number): T => {
      const out = new (a.constructor as new (n: number) => T)(cap * stride);
      out.set(a);
      return out;
    };
    this.slot = g(this.slot, 1);
    this.n = g(this.n, 3);
    this.c = g(this.c, 1);
    this.g = g(this.g, 1);
    this.v = g(this.v, 1);
  }
}

/**
 * Wall records of one plane n·p = c (FluidWalls.build): every active slot with
 * n·p − c < reach, from record k on (room for n more is there). Returns the new count.
 */
function planeWalls(
  n: number,
  off: number,
  p: Float64Array,
  nx: number,
  ny: number,
  nz: number,
  c: number,
  reach: number,
  k: number,
  slot: Int32Array,
  wn: Float64Array,
  wc: Float64Array,
): number {
  for (let s = 0; s < n; s++) {
    const i3 = 3 * (off + s);
    const sd = nx * p[i3] + ny * p[i3 + 1] + nz * p[i3 + 2] - c;
    if (sd >= reach) continue;
    slot[k] = s;
    wn[3 * k] = nx;
    wn[3 * k + 1] = ny;
    wn[3 * k + 2] = nz;
    wc[k] = c;
    k++;
  }
  return k;
}
