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
  let worst = -1;
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
    if (n === 4) {
      // all four points (act = 0, 1, 2, 3): the loops below, unrolled, operation for operation
      worst = solve4();
      if (worst < 0) return;
      use &= ~(1 << worst);
      continue;
    }
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
    worst = -1;
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

/**
 * solveJoint's pass for all four points, unrolled: the same Gaussian
 * elimination of K + ε I (every entry it updates, the lower triangle too,
 * in the same order, so the same bits) and back substitution, in locals.
 * Writes BX when no multiplier is negative and returns −1; else returns the
 * point with the most negative one (the loop's choice: the last in its
 * descending sweep among equals) and writes nothing.
 */
function solve4(): number {
  const K = BK;
  // ε as solveJoint takes it (the diagonal summed in the same order); not an argument, which would be
  // a heap number per call (solve4 is not inlined)
  let diag = 0;
  for (let j = 0; j < 4; j++) diag += K[5 * j];
  const eps = (REG * diag) / 4;
  const m00 = K[0] + eps,
    m01 = K[1],
    m02 = K[2],
    m03 = K[3],
    m10 = K[4],
    m20 = K[8],
    m30 = K[12];
  let m11 = K[5] + eps,
    m12 = K[6],
    m13 = K[7];
  let m21 = K[9],
    m22 = K[10] + eps,
    m23 = K[11];
  let m31 = K[13],
    m32 = K[14],
    m33 = K[15] + eps;
  const r0 = BC[0];
  let r1 = BC[1],
    r2 = BC[2],
    r3 = BC[3];
  // p = 0
  let inv = 1 / m00;
  let f = m10 * inv;
  m11 -= f * m01;
  m12 -= f * m02;
  m13 -= f * m03;
  r1 -= f * r0;
  f = m20 * inv;
  m21 -= f * m01;
  m22 -= f * m02;
  m23 -= f * m03;
  r2 -= f * r0;
  f = m30 * inv;
  m31 -= f * m01;
  m32 -= f * m02;
  m33 -= f * m03;
  r3 -= f * r0;
  // p = 1
  inv = 1 / m11;
  f = m21 * inv;
  m22 -= f * m12;
  m23 -= f * m13;
  r2 -= f * r1;
  f = m31 * inv;
  m32 -= f * m12;
  m33 -= f * m13;
  r3 -= f * r1;
  // p = 2
  inv = 1 / m22;
  f = m32 * inv;
  m33 -= f * m23;
  r3 -= f * r2;
  // back substitution, the most negative multiplier from the last point down
  const y3 = r3 / m33;
  const y2 = (r2 - m23 * y3) / m22;
  const y1 = (r1 - m12 * y2 - m13 * y3) / m11;
  const y0 = (r0 - m01 * y1 - m02 * y2 - m03 * y3) / m00;
  let worst = -1;
  let low = 0;
  if (y3 < low) {
    low = y3;
    worst = 3;
  }
  if (y2 < low) {
    low = y2;
    worst = 2;
  }
  if (y1 < low) {
    low = y1;
    worst = 1;
  }
  if (y0 < low) worst = 0;
  if (worst < 0) {
    BX[0] = y0;
    BX[1] = y1;
    BX[2] = y2;
    BX[3] = y3;
  }
  return worst;
}
