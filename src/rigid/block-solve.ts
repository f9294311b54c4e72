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

import { act, BC, BK, BX, CA, CB, EPS, KW, solve3, solve4, UA, UB } from './block-solve.generated.js';

// the scratch arrays and fillK4 are the generated module's (scripts/kernels/emit-block-solve.ts)
export { BC, BK, BX, CA, CB, fillK4, KW, UA, UB } from './block-solve.generated.js';

/** The regularisation of K relative to the mean of its diagonal. */
export const REG = 1e-4;

/**
 * Solves (K + ε I) x = c for the points whose `use` bit is set (bit j for
 * point j of m ≤ 4; K = BK, c = BC, x = BX; the other points get 0). A
 * point whose multiplier comes out negative leaves the set and the rest is
 * solved again (at most m times), as a contact never pulls: Δλ_n ≥ 0
 * (§3.5). A system that is not positive definite (no movable body) gives 0.
 * Each pass is a closed form for its size (solve1 … solve4): one, two,
 * three or four active points, unrolled in locals, with one division per
 * pivot and the back substitution by the pivots' reciprocals.
 */
export function solveJoint(m: number, use: number): void {
  BX[0] = BX[1] = BX[2] = BX[3] = 0;
  let pass = 0;
  if (use === 15) {
    // all four points (a resting patch's usual case, 99 of the pyramid's 100 blocks per substep): the
    // first pass without the bit tests, the same sums in the same order as the loop below
    const diag = BK[0] + BK[5] + BK[10] + BK[15];
    if (!(diag > 0)) return;
    EPS[0] = (REG * diag) / 4;
    const worst = solve4();
    if (worst < 0) return;
    use &= ~(1 << worst);
    pass = 1;
  }
  for (; pass < m; pass++) {
    let n = 0;
    let diag = 0;
    for (let j = 0; j < m; j++) {
      if (use & (1 << j)) {
        act[n++] = j;
        diag += BK[5 * j];
      }
    }
    if (n === 0 || !(diag > 0)) return;
    // ε = REG × the mean of the active diagonal, through the scratch (a call's double argument is a heap number)
    EPS[0] = (REG * diag) / n;
    const worst = n === 4 ? solve4() : n === 3 ? solve3() : n === 2 ? solve2() : solve1();
    if (worst < 0) return;
    use &= ~(1 << worst);
  }
}

/** One active point act[0]: x = c/(K_jj + ε). */
function solve1(): number {
  const j = act[0];
  const y = BC[j] / (BK[5 * j] + EPS[0]);
  if (!(y >= 0)) return j;
  BX[j] = y;
  return -1;
}

/**
 * Two active points: Cramer's rule for the symmetric 2 × 2 system
 * [a b; b d] x = c, x = [d c₀ − b c₁, a c₁ − b c₀]/(a d − b²). Writes BX and
 * returns −1 when both multipliers are ≥ 0; else the point with the more
 * negative one (the later point among equals) and writes nothing.
 */
function solve2(): number {
  const i = act[0],
    j = act[1];
  const eps = EPS[0];
  const a = BK[5 * i] + eps,
    b = BK[4 * i + j],
    d = BK[5 * j] + eps;
  const ci = BC[i],
    cj = BC[j];
  const det = a * d - b * b;
  if (!(det > 0)) return j;
  const inv = 1 / det;
  const yi = (d * ci - b * cj) * inv,
    yj = (a * cj - b * ci) * inv;
  if (yi >= 0 && yj >= 0) {
    BX[i] = yi;
    BX[j] = yj;
    return -1;
  }
  return yj <= yi ? j : i;
}

/**
 * BK of the points in `use` (bit j for point j < m) along the normal (w = KW[0] = m₁⁻¹ + m₂⁻¹):
 * K_ij = m₁⁻¹ + m₂⁻¹ + (r₁ᵢ × n)·I₁⁻¹ (r₁ⱼ × n) + (r₂ᵢ × n)·I₂⁻¹ (r₂ⱼ × n).
 */
export function fillK(m: number, use: number): void {
  const w = KW[0];
  for (let i = 0; i < m; i++) {
    if (!(use & (1 << i))) continue;
    const i3 = 3 * i;
    const ax = CA[i3],
      ay = CA[i3 + 1],
      az = CA[i3 + 2],
      bx = CB[i3],
      by = CB[i3 + 1],
      bz = CB[i3 + 2];
    for (let j = i; j < m; j++) {
      if (!(use & (1 << j))) continue;
      const j3 = 3 * j;
      const v =
        w + ax * UA[j3] + ay * UA[j3 + 1] + az * UA[j3 + 2] + bx * UB[j3] + by * UB[j3 + 1] + bz * UB[j3 + 2];
      BK[4 * i + j] = v;
      BK[4 * j + i] = v;
    }
  }
}
