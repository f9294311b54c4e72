/**
 * The joint normal solve of a manifold's up to four points
 * (contact-blocks.ts): the multipliers Δλ_n of all points together from one
 * linearisation at the same poses, instead of one point after the other.
 * Müller et al. 2020, §3.5 ("Handling contacts and friction") projects each
 * point alone, Δλ = c/(w₁ + w₂) with the generalized inverse masses of
 * eq. 2; solving the points of one patch jointly is that projection with
 * the coupling of the points through the shared bodies kept:
 *
 *   Σ_j K_ij Δλ_j = c_i,  K_ij = m₁⁻¹ + m₂⁻¹ + (r₁ᵢ × n)ᵀ I₁⁻¹ (r₁ⱼ × n) + (r₂ᵢ × n)ᵀ I₂⁻¹ (r₂ⱼ × n),
 *
 * whose diagonal is eq. 2's w₁ + w₂. The result does not depend on the
 * order in which the manifold lists its points, so a patch that the
 * clipping lists in another order after a round-off gets the same
 * correction (docs/rigid.md, Speed). Four coplanar points constrain only
 * three degrees of freedom along the normal (one translation, two tilts),
 * so K is singular; a small regularisation ε = REG × mean(K_ii) gives the
 * nearly least-norm solution, spread evenly over the points, within about
 * REG of the exact correction (what is left is taken up in the next
 * substep). Everything works on the module's scratch arrays; nothing is
 * allocated.
 */

/** The regularisation of K relative to the mean of its diagonal. */
export const REG = 1e-4;

/** The matrix (row-major, 4 × 4, symmetric), right-hand side and solution of one joint solve. */
export const BK = new Float64Array(16);
export const BC = new Float64Array(4);
export const BX = new Float64Array(4);
/** Scratch of solveJoint: the active points' system, eliminated in place. */
const M = new Float64Array(16);
const R = new Float64Array(4);
const act = new Int32Array(4);

/**
 * Solves (K + ε I) x = c for the points whose `use` bit is set (bit j for
 * point j of m ≤ 4; K = BK, c = BC, x = BX; the other points get 0). A
 * point whose multiplier comes out negative leaves the set and the rest is
 * solved again (at most m times), as a contact never pulls: Δλ_n ≥ 0
 * (§3.5). A system that is not positive definite (no movable body) gives 0.
 */
export function solveJoint(m: number, use: number): void {
  BX[0] = BX[1] = BX[2] = BX[3] = 0;
  for (let pass = 0; pass < m; pass++) {
    let n = 0;
    let diag = 0;
    for (let j = 0; j < m; j++) {
      if (use & (1 << j)) {
        act[n++] = j;
        diag += BK[5 * j];
      }
    }
    if (n === 0 || !(diag > 0)) return;
    const eps = (REG * diag) / n;
    for (let i = 0; i < n; i++) {
      const ai = 4 * act[i];
      R[i] = BC[act[i]];
      for (let j = 0; j < n; j++) M[4 * i + j] = BK[ai + act[j]];
      M[5 * i] += eps;
    }
    // Gaussian elimination of the symmetric positive definite K + ε I (no pivoting needed)
    for (let p = 0; p < n; p++) {
      const inv = 1 / M[5 * p];
      for (let i = p + 1; i < n; i++) {
        const f = M[4 * i + p] * inv;
        for (let j = p + 1; j < n; j++) M[4 * i + j] -= f * M[4 * p + j];
        R[i] -= f * R[p];
      }
    }
    let worst = -1;
    let low = 0;
    for (let i = n - 1; i >= 0; i--) {
      let s = R[i];
      for (let j = i + 1; j < n; j++) s -= M[4 * i + j] * R[j];
      const y = s / M[5 * i];
      R[i] = y;
      if (y < low) {
        low = y;
        worst = act[i];
      }
    }
    if (worst < 0) {
      for (let i = 0; i < n; i++) BX[act[i]] = R[i];
      return;
    }
    use &= ~(1 << worst);
  }
}
