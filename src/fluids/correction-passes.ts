/**
 * The position corrections of position based fluids (PBF eqs. 13–14) over
 * the records the density passes leave (density-passes.ts documents the
 * record layout and the pair rows): Δp accumulates in acc[8s + 2 … 8s + 4]
 * and applyDeltas adds it to p (Jacobi).
 */
import type { SolidRows } from './density-passes.js';
import { MIN_DISTANCE } from './pair-passes.generated.js';

/**
 * The fluid–solid correction: Δp_i += w̃_i λ_i (Ψ_b/ρ0) ∇W_ib on the fluid
 * particle, and Δp_b = −w̃_b Σ_i λ_i (Ψ_b/ρ0) ∇W_ib on the solid one (into dps,
 * by row).
 */
export function solidCorrectionPass(
  S: SolidRows,
  off: number,
  p: Float64Array,
  invMass: Float64Array,
  mF: number,
  h: number,
  spikyOverRho0: number,
  acc: Float64Array,
  dps: Float64Array,
): void {
  const { count: ns, solids, psi } = S,
    { start, nbr } = S.pairs;
  const h2 = h * h;
  const rMin = MIN_DISTANCE * h;
  for (let q = 0; q < ns; q++) {
    const b = solids[q];
    const b3 = 3 * b;
    const bx = p[b3],
      by = p[b3 + 1],
      bz = p[b3 + 2];
    const psiB = psi[q];
    let sx = 0,
      sy = 0,
      sz = 0;
    const e = start[q + 1];
    for (let k = start[q]; k < e; k++) {
      const i = nbr[k];
      const i3 = 3 * i;
      let dx = p[i3] - bx,
        dy = p[i3 + 1] - by,
        dz = p[i3 + 2] - bz;
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2) continue;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        dx = 0;
        dy = rMin;
        dz = 0;
        r = rMin;
      }
      const t = h - r;
      const g = (-psiB * spikyOverRho0 * t * t) / r;
      const o = (i - off) << 3;
      const c = acc[o] * g;
      const cx = c * dx,
        cy = c * dy,
        cz = c * dz;
      const wi = acc[o | 1];
      acc[o | 2] += wi * cx;
      acc[o | 3] += wi * cy;
      acc[o | 4] += wi * cz;
      sx += cx;
      sy += cy;
      sz += cz;
    }
    const wb = invMass[b] * mF;
    dps[3 * q] = -wb * sx;
    dps[3 * q + 1] = -wb * sy;
    dps[3 * q + 2] = -wb * sz;
  }
}

/** The wall correction: Δp_i += w̃_i λ_i (−G n), over records [r0, r1). */
export function wallCorrectionPass(
  r0: number,
  r1: number,
  slot: Int32Array,
  wn: Float64Array,
  wg: Float64Array,
  acc: Float64Array,
): void {
  for (let r = r0; r < r1; r++) {
    const o = slot[r] << 3;
    const c = -acc[o | 1] * acc[o] * wg[r];
    acc[o | 2] += c * wn[3 * r];
    acc[o | 3] += c * wn[3 * r + 1];
    acc[o | 4] += c * wn[3 * r + 2];
  }
}

/**
 * Ends a Jacobi iteration: p ← p + Δp for every active slot (acc[8s + 2 … 8s + 4]),
 * keeping λ_s in `lambda`.
 */
export function applyDeltas(
  n: number,
  off: number,
  p: Float64Array,
  acc: Float64Array,
  lambda: Float64Array,
): void {
  for (let s = 0; s < n; s++) {
    const o = s << 3;
    lambda[s] = acc[o];
    const i3 = 3 * (off + s);
    p[i3] += acc[o | 2];
    p[i3 + 1] += acc[o | 3];
    p[i3 + 2] += acc[o | 4];
  }
}
