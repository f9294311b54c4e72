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

/**
 * Per point of a block (≤ 4, contact-blocks.ts): r × d and I⁻¹ (r × d) of both sides (A: body 1,
 * B: body 2) for the direction of the last `levers` call, from which fillK builds K.
 */
export const CA = new Float64Array(12);
export const CB = new Float64Array(12);
export const UA = new Float64Array(12);
export const UB = new Float64Array(12);
/** m₁⁻¹ + m₂⁻¹ for fillK (a call's double argument, not inlined, is a heap number allocated per call). */
export const KW = new Float64Array(1);

/**
 * fillK for all four points (use = 15), unrolled: each entry the same sum in the same order, the
 * levers read once instead of once per entry.
 */
export function fillK4(): void {
  const w = KW[0];
  const a0x = CA[0],
    a0y = CA[1],
    a0z = CA[2],
    a1x = CA[3],
    a1y = CA[4],
    a1z = CA[5];
  const a2x = CA[6],
    a2y = CA[7],
    a2z = CA[8],
    a3x = CA[9],
    a3y = CA[10],
    a3z = CA[11];
  const b0x = CB[0],
    b0y = CB[1],
    b0z = CB[2],
    b1x = CB[3],
    b1y = CB[4],
    b1z = CB[5];
  const b2x = CB[6],
    b2y = CB[7],
    b2z = CB[8],
    b3x = CB[9],
    b3y = CB[10],
    b3z = CB[11];
  const u0x = UA[0],
    u0y = UA[1],
    u0z = UA[2],
    u1x = UA[3],
    u1y = UA[4],
    u1z = UA[5];
  const u2x = UA[6],
    u2y = UA[7],
    u2z = UA[8],
    u3x = UA[9],
    u3y = UA[10],
    u3z = UA[11];
  const v0x = UB[0],
    v0y = UB[1],
    v0z = UB[2],
    v1x = UB[3],
    v1y = UB[4],
    v1z = UB[5];
  const v2x = UB[6],
    v2y = UB[7],
    v2z = UB[8],
    v3x = UB[9],
    v3y = UB[10],
    v3z = UB[11];
  const K = BK;
  K[0] = w + a0x * u0x + a0y * u0y + a0z * u0z + b0x * v0x + b0y * v0y + b0z * v0z;
  K[1] = K[4] = w + a0x * u1x + a0y * u1y + a0z * u1z + b0x * v1x + b0y * v1y + b0z * v1z;
  K[2] = K[8] = w + a0x * u2x + a0y * u2y + a0z * u2z + b0x * v2x + b0y * v2y + b0z * v2z;
  K[3] = K[12] = w + a0x * u3x + a0y * u3y + a0z * u3z + b0x * v3x + b0y * v3y + b0z * v3z;
  K[5] = w + a1x * u1x + a1y * u1y + a1z * u1z + b1x * v1x + b1y * v1y + b1z * v1z;
  K[6] = K[9] = w + a1x * u2x + a1y * u2y + a1z * u2z + b1x * v2x + b1y * v2y + b1z * v2z;
  K[7] = K[13] = w + a1x * u3x + a1y * u3y + a1z * u3z + b1x * v3x + b1y * v3y + b1z * v3z;
  K[10] = w + a2x * u2x + a2y * u2y + a2z * u2z + b2x * v2x + b2y * v2y + b2z * v2z;
  K[11] = K[14] = w + a2x * u3x + a2y * u3y + a2z * u3z + b2x * v3x + b2y * v3y + b2z * v3z;
  K[15] = w + a3x * u3x + a3y * u3y + a3z * u3z + b3x * v3x + b3y * v3y + b3z * v3z;
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
