/**
 * The velocity post-process of position based fluids (PBF Algorithm 1 line
 * 22): XSPH viscosity (eq. 17) and vorticity confinement (eqs. 15–16) over
 * records of 8 doubles per slot, laid out as the density records
 * (density-passes.ts), so that listInside serves both.
 */
import { listInside } from './density-passes.js';

/**
 * Fills the records of the velocity post-process: R[8s … 8s + 7] = (v, 0, 0, x)
 * of each active slot from the store (positions at 8s + 5 … 8s + 7, as in
 * the density records, so that listInside serves both), and
 * Q[8s … 8s + 5] = 0 (Δv, ω). A neighbour's position and velocity then
 * share a cache line, and so do the sums it receives.
 */
export function initPostRecords(
  n: number,
  off: number,
  x: Float64Array,
  v: Float64Array,
  R: Float64Array,
  Q: Float64Array,
): void {
  for (let s = 0; s < n; s++) {
    const o = s << 3;
    const i3 = 3 * (off + s);
    R[o] = v[i3];
    R[o | 1] = v[i3 + 1];
    R[o | 2] = v[i3 + 2];
    R[o | 3] = 0;
    R[o | 4] = 0;
    R[o | 5] = x[i3];
    R[o | 6] = x[i3 + 1];
    R[o | 7] = x[i3 + 2];
    Q[o] = 0;
    Q[o | 1] = 0;
    Q[o | 2] = 0;
    Q[o | 3] = 0;
    Q[o | 4] = 0;
    Q[o | 5] = 0;
  }
}

/**
 * XSPH viscosity (PBF eq. 17) and the vorticity estimate (eq. 15) from the
 * same velocities, for the fluid pairs at the positions of R:
 *   Δv_i += c Σ_j (m/ρ0) v_ij W_ij (and −… on j), v_ij = v_j − v_i;
 *   ω_i = Σ_j (m/ρ0) v_ij × ∇_{p_j} W_ij, the same term adding to ω_j,
 * into Q (Δv, ω). `cW` = c (m/ρ0) K_poly6 and `gCoef` = (m/ρ0) · 45/(π h⁶);
 * vorticity is skipped when `vort` is false. Lists the pairs inside h in
 * `live` (first walk over each row, listInside), which the kernel terms and
 * then vorticityGradientPass walk.
 */
export function xsphVorticityPass(
  n: number,
  off: number,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  R: Float64Array,
  h: number,
  cW: number,
  gCoef: number,
  vort: boolean,
  Q: Float64Array,
  live: Int32Array,
  liveStart: Int32Array,
): void {
  const h2 = h * h;
  let kl = 0;
  liveStart[0] = 0;
  for (let a = 0; a < n; a++) {
    const oi = (sorted[a] - off) << 3;
    const px = R[oi | 5],
      py = R[oi | 6],
      pz = R[oi | 7];
    const vx = R[oi],
      vy = R[oi | 1],
      vz = R[oi | 2];
    const k1 = (kl = listInside(px, py, pz, h2, start[a], start[a + 1], nbr, R, live, kl));
    let ax = 0,
      ay = 0,
      az = 0,
      ox = 0,
      oy = 0,
      oz = 0;
    for (let k = liveStart[a]; k < k1; k++) {
      const o = live[k] << 3;
      const dx = px - R[o | 5],
        dy = py - R[o | 6],
        dz = pz - R[o | 7];
      const r2 = dx * dx + dy * dy + dz * dz;
      const ux = R[o] - vx,
        uy = R[o | 1] - vy,
        uz = R[o | 2] - vz;
      const q = h2 - r2;
      const wv = cW * q * q * q;
      ax += wv * ux;
      ay += wv * uy;
      az += wv * uz;
      Q[o] -= wv * ux;
      Q[o | 1] -= wv * uy;
      Q[o | 2] -= wv * uz;
      if (vort && r2 > 0) {
        const r = Math.sqrt(r2);
        const t = h - r;
        // ∇_{p_j} W_ij = −∇W(p_i − p_j) = (45/(π h⁶)) (h − r)² (p_i − p_j)/r
        const g = (gCoef * t * t) / r;
        const gx = g * dx,
          gy = g * dy,
          gz = g * dz;
        const cx = uy * gz - uz * gy,
          cy = uz * gx - ux * gz,
          cz = ux * gy - uy * gx;
        ox += cx;
        oy += cy;
        oz += cz;
        Q[o | 3] += cx;
        Q[o | 4] += cy;
        Q[o | 5] += cz;
      }
    }
    Q[oi] += ax;
    Q[oi | 1] += ay;
    Q[oi | 2] += az;
    Q[oi | 3] += ox;
    Q[oi | 4] += oy;
    Q[oi | 5] += oz;
    liveStart[a + 1] = kl;
  }
}

/** R[8s + 3] = |ω_s| (from Q) and R[8s … 8s + 2] = 0, for the η sums of vorticityGradientPass. */
export function vorticityMagnitudes(n: number, R: Float64Array, Q: Float64Array): void {
  for (let s = 0; s < n; s++) {
    const o = s << 3;
    R[o | 3] = Math.sqrt(Q[o | 3] * Q[o | 3] + Q[o | 4] * Q[o | 4] + Q[o | 5] * Q[o | 5]);
    R[o] = 0;
    R[o | 1] = 0;
    R[o | 2] = 0;
  }
}

/**
 * η_i = ∇|ω|_i (PBF eq. 16) as the SPH gradient of differences,
 * Σ_j (m/ρ0)(|ω_j| − |ω_i|) ∇W(p_i − p_j); the same term adds to η_j. Reads
 * positions and |ω| from R and sums η into R[8s … 8s + 2]; walks the
 * pairs inside h that xsphVorticityPass listed.
 */
export function vorticityGradientPass(
  n: number,
  off: number,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  R: Float64Array,
  h: number,
  gCoef: number,
): void {
  for (let a = 0; a < n; a++) {
    const oi = (sorted[a] - off) << 3;
    const px = R[oi | 5],
      py = R[oi | 6],
      pz = R[oi | 7];
    const mi = R[oi | 3];
    let ex = 0,
      ey = 0,
      ez = 0;
    const e = start[a + 1];
    for (let k = start[a]; k < e; k++) {
      const o = nbr[k] << 3;
      const dx = px - R[o | 5],
        dy = py - R[o | 6],
        dz = pz - R[o | 7];
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 === 0) continue;
      const r = Math.sqrt(r2);
      const t = h - r;
      // (|ω_i| − |ω_j|) times the factor g of ∇_{p_j} W_ij that xsphVorticityPass computed
      const f = (mi - R[o | 3]) * ((gCoef * t * t) / r);
      ex += f * dx;
      ey += f * dy;
      ez += f * dz;
      R[o] += f * dx;
      R[o | 1] += f * dy;
      R[o | 2] += f * dz;
    }
    R[oi] += ex;
    R[oi | 1] += ey;
    R[oi | 2] += ez;
  }
}

/**
 * Vorticity confinement (PBF eq. 16): N = η/|η| with η = ∇|ω| (R[8s …]),
 * and the velocity change k (N × ω) (ω = Q[8s + 3 …]) added to Δv (Q[8s …]),
 * where k = ε times the substep.
 */
export function vorticityForce(n: number, k: number, R: Float64Array, Q: Float64Array): void {
  for (let s = 0; s < n; s++) {
    const o = s << 3;
    const ex = R[o],
      ey = R[o | 1],
      ez = R[o | 2];
    const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (!(el > 1e-12)) continue;
    const nx = ex / el,
      ny = ey / el,
      nz = ez / el;
    const ox = Q[o | 3],
      oy = Q[o | 4],
      oz = Q[o | 5];
    Q[o] += k * (ny * oz - nz * oy);
    Q[o | 1] += k * (nz * ox - nx * oz);
    Q[o | 2] += k * (nx * oy - ny * ox);
  }
}

/** v += Δv (Q[8s …]) for the active slots that can move. */
export function addVelocities(
  n: number,
  off: number,
  invMass: Float64Array,
  v: Float64Array,
  Q: Float64Array,
): void {
  for (let s = 0; s < n; s++) {
    const i = off + s;
    if (invMass[i] === 0) continue;
    const i3 = 3 * i;
    const o = s << 3;
    v[i3] += Q[o];
    v[i3 + 1] += Q[o | 1];
    v[i3 + 2] += Q[o | 2];
  }
}
