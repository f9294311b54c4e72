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
/** The active points of the pass being solved. */
const act = new Int32Array(4);

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
    // ε = REG × the mean of the active diagonal, through the scratch (a call's double argument is a heap number)
    EPS[0] = (REG * diag) / n;
    const worst = n === 4 ? solve4() : n === 3 ? solve3() : n === 2 ? solve2() : solve1();
    if (worst < 0) return;
    use &= ~(1 << worst);
  }
}

/** ε of the pass being solved. */
const EPS = new Float64Array(1);

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
 * Three active points: the elimination of the symmetric positive definite
 * 3 × 3 system (LDLᵀ, the multipliers from the upper triangle), unrolled;
 * returns as solve2 does.
 */
function solve3(): number {
  const i = act[0],
    j = act[1],
    k = act[2];
  const eps = EPS[0];
  const a00 = BK[5 * i] + eps,
    a01 = BK[4 * i + j],
    a02 = BK[4 * i + k];
  let a11 = BK[5 * j] + eps,
    a12 = BK[4 * j + k],
    a22 = BK[5 * k] + eps;
  const r0 = BC[i];
  let r1 = BC[j],
    r2 = BC[k];
  const i0 = 1 / a00;
  let f = a01 * i0;
  a11 -= f * a01;
  a12 -= f * a02;
  r1 -= f * r0;
  f = a02 * i0;
  a22 -= f * a02;
  r2 -= f * r0;
  const i1 = 1 / a11;
  f = a12 * i1;
  a22 -= f * a12;
  r2 -= f * r1;
  const y2 = r2 / a22;
  const y1 = (r1 - a12 * y2) * i1;
  const y0 = (r0 - a01 * y1 - a02 * y2) * i0;
  if (y0 >= 0 && y1 >= 0 && y2 >= 0) {
    BX[i] = y0;
    BX[j] = y1;
    BX[k] = y2;
    return -1;
  }
  if (y2 <= y1 && y2 <= y0) return k;
  return y1 <= y0 ? j : i;
}

/**
 * All four points (act = 0, 1, 2, 3): the elimination of K + ε I (LDLᵀ,
 * the multipliers from the upper triangle: K is symmetric) and the back
 * substitution, unrolled in locals, by the pivots' reciprocals; returns as
 * solve2 does.
 */
function solve4(): number {
  const K = BK;
  const eps = EPS[0];
  const m00 = K[0] + eps,
    m01 = K[1],
    m02 = K[2],
    m03 = K[3];
  let m11 = K[5] + eps,
    m12 = K[6],
    m13 = K[7];
  let m22 = K[10] + eps,
    m23 = K[11];
  let m33 = K[15] + eps;
  const r0 = BC[0];
  let r1 = BC[1],
    r2 = BC[2],
    r3 = BC[3];
  // p = 0
  const i0 = 1 / m00;
  let f = m01 * i0;
  m11 -= f * m01;
  m12 -= f * m02;
  m13 -= f * m03;
  r1 -= f * r0;
  f = m02 * i0;
  m22 -= f * m02;
  m23 -= f * m03;
  r2 -= f * r0;
  f = m03 * i0;
  m33 -= f * m03;
  r3 -= f * r0;
  // p = 1
  const i1 = 1 / m11;
  f = m12 * i1;
  m22 -= f * m12;
  m23 -= f * m13;
  r2 -= f * r1;
  f = m13 * i1;
  m33 -= f * m13;
  r3 -= f * r1;
  // p = 2
  const i2 = 1 / m22;
  f = m23 * i2;
  m33 -= f * m23;
  r3 -= f * r2;
  // back substitution
  const y3 = r3 / m33;
  const y2 = (r2 - m23 * y3) * i2;
  const y1 = (r1 - m12 * y2 - m13 * y3) * i1;
  const y0 = (r0 - m01 * y1 - m02 * y2 - m03 * y3) * i0;
  if (y0 >= 0 && y1 >= 0 && y2 >= 0 && y3 >= 0) {
    BX[0] = y0;
    BX[1] = y1;
    BX[2] = y2;
    BX[3] = y3;
    return -1;
  }
  // the most negative multiplier (the later point among equals)
  let worst = 3;
  let low = y3;
  if (y2 < low) {
    low = y2;
    worst = 2;
  }
  if (y1 < low) {
    low = y1;
    worst = 1;
  }
  if (y0 < low) worst = 0;
  return worst;
}
