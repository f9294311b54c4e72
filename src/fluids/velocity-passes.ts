/**
 * The velocity post-process of position based fluids (PBF Algorithm 1 line
 * 22) around its pair loops (xsphVorticityPass and vorticityGradientPass,
 * in pair-passes.rows.ts): XSPH viscosity (eq. 17) and vorticity
 * confinement (eqs. 15–16) over records of 8 doubles per slot, laid out as
 * the density records (density-passes.ts), so that listInside serves both.
 */

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
