/**
 * The position corrections of position based fluids (PBF eqs. 13–14) over
 * the records the density passes leave (density-passes.ts documents the
 * record layout and the pair rows): Δp accumulates in acc[8s + 2 … 8s + 4]
 * and applyDeltas adds it to p (Jacobi).
 */
import { MIN_DISTANCE } from './density-passes.js';

/**
 * The symmetric correction of PBF eq. 14 for the fluid pairs:
 * Δp_i += w̃_i (λ_i + λ_j + s_corr) (m/ρ0) ∇W(p_i − p_j), Δp_j −= w̃_j (…) (…),
 * accumulated in acc[5s + 2 … 5s + 4], with the artificial pressure of PBF
 * eq. 13 measured from the rest spacing d:
 *   s_corr = corrScale · ((W(p_i − p_j) − W(d)) / (W(Δq) − W(d)))ⁿ  for |p_i − p_j| < d, else 0
 * (W = poly6; qRest3 = (h² − d²)³, invQd3 = 1/((h² − |Δq|²)³ − qRest3)). The
 * paper's s_corr = corrScale (W/W(Δq))ⁿ pushes every pair inside h apart,
 * also at the rest spacing, and a free surface — where nothing pushes back —
 * flew apart with it (a resting blob 13× its size after 2 s, docs/fluids.md);
 * measured from d, it is zero on the rest lattice and still pushes apart
 * pairs pressed closer than d, which is its purpose (against clumping).
 * Positions are those of the density pass (Jacobi), so the same pairs and
 * gradients result.
 */
export function fluidCorrectionPass(
  n: number,
  off: number,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  h: number,
  gCoef: number,
  nCorr: number,
  qRest3: number,
  invQd3: number,
  corrScale: number,
  acc: Float64Array,
): void {
  const h2 = h * h;
  const rMin = MIN_DISTANCE * h;
  const corr = corrScale !== 0;
  for (let a = 0; a < n; a++) {
    const oi = (sorted[a] - off) << 3;
    const px = acc[oi | 5],
      py = acc[oi | 6],
      pz = acc[oi | 7];
    const li = acc[oi];
    let ax = 0,
      ay = 0,
      az = 0;
    const e = start[a + 1];
    for (let k = start[a]; k < e; k++) {
      const o = nbr[k] << 3;
      let dx = px - acc[o | 5],
        dy = py - acc[o | 6],
        dz = pz - acc[o | 7];
      let r2 = dx * dx + dy * dy + dz * dz;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        dx = rMin;
        dy = 0;
        dz = 0;
        r = rMin;
        r2 = rMin * rMin;
      }
      const t = h - r;
      const g = (-gCoef * t * t) / r;
      let lij = li + acc[o];
      if (corr) {
        const q = h2 - r2;
        let ratio = (q * q * q - qRest3) * invQd3;
        if (ratio < 0) ratio = 0;
        let pw: number;
        if (nCorr === 4) {
          const r2c = ratio * ratio;
          pw = r2c * r2c;
        } else {
          pw = powInt(ratio, nCorr);
        }
        lij += corrScale * pw;
      }
      const c = lij * g;
      const cx = c * dx,
        cy = c * dy,
        cz = c * dz;
      ax += cx;
      ay += cy;
      az += cz;
      const wj = acc[o | 1];
      acc[o | 2] -= wj * cx;
      acc[o | 3] -= wj * cy;
      acc[o | 4] -= wj * cz;
    }
    const wi = acc[oi | 1];
    acc[oi | 2] += wi * ax;
    acc[oi | 3] += wi * ay;
    acc[oi | 4] += wi * az;
  }
}

/** x^n for an integer n ≥ 0 by repeated squaring (the same operations as the WebAssembly port). */
export function powInt(x: number, n: number): number {
  let r = 1;
  let b = x;
  while (n > 0) {
    if (n & 1) r *= b;
    b *= b;
    n >>= 1;
  }
  return r;
}

/**
 * The fluid–solid correction: Δp_i += w̃_i λ_i (Ψ_b/ρ0) ∇W_ib on the fluid
 * particle, and Δp_b = −w̃_b Σ_i λ_i (Ψ_b/ρ0) ∇W_ib on the solid one (into dps,
 * by row).
 */
export function solidCorrectionPass(
  ns: number,
  solids: Int32Array,
  psi: Float64Array,
  start: Int32Array,
  nbr: Int32Array,
  off: number,
  p: Float64Array,
  invMass: Float64Array,
  mF: number,
  h: number,
  spikyOverRho0: number,
  acc: Float64Array,
  dps: Float64Array,
): void {
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

/** The wall correction: Δp_i += w̃_i λ_i (−G n). */
export function wallCorrectionPass(
  nw: number,
  slot: Int32Array,
  wn: Float64Array,
  wg: Float64Array,
  acc: Float64Array,
): void {
  for (let r = 0; r < nw; r++) {
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
