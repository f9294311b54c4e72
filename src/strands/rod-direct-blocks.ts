/**
 * The 6 × 6 block kernels of the direct rod solver (rod-direct.ts): a
 * Cholesky factor, triangular solves and the Schur complement update, for
 * symmetric positive semi-definite blocks, written out entry by entry
 * (unrolled once by a script, kept here as source). With loops over the
 * six rows and columns instead (and LDLᵀ with one solve per column),
 * rod-1k's direct solve took 2.3 times as long per frame (docs/strands.md,
 * Speed).
 *
 * L is a packed lower triangle (21 entries, row by row) whose diagonal holds
 * 1/L_ii, so every solve multiplies instead of dividing.
 */
/**
 * Cholesky D = L Lᵀ of a symmetric positive semi-definite 6 × 6 block D
 * (row major, lower triangle read), into L (packed lower triangle at lo,
 * 21 entries, row by row, the diagonal holding 1/L_ii). A pivot that
 * vanishes against its diagonal entry (a row no unknown can move) gets
 * 1/L_ii = 0 and a zero column: its unknown drops out of the solve (0).
 */
export function chol6(D: Float64Array, L: Float64Array, lo: number): void {
  const a00 = D[0];
  const p0 = a00;
  const i0 = p0 > 1e-12 * a00 && p0 > 0 ? 1 / Math.sqrt(p0) : 0;
  L[lo + 0] = i0;
  const l10 = D[6] * i0;
  L[lo + 1] = l10;
  const l20 = D[12] * i0;
  L[lo + 3] = l20;
  const l30 = D[18] * i0;
  L[lo + 6] = l30;
  const l40 = D[24] * i0;
  L[lo + 10] = l40;
  const l50 = D[30] * i0;
  L[lo + 15] = l50;
  const a11 = D[7];
  const p1 = a11 - l10 * l10;
  const i1 = p1 > 1e-12 * a11 && p1 > 0 ? 1 / Math.sqrt(p1) : 0;
  L[lo + 2] = i1;
  const l21 = (D[13] - l20 * l10) * i1;
  L[lo + 4] = l21;
  const l31 = (D[19] - l30 * l10) * i1;
  L[lo + 7] = l31;
  const l41 = (D[25] - l40 * l10) * i1;
  L[lo + 11] = l41;
  const l51 = (D[31] - l50 * l10) * i1;
  L[lo + 16] = l51;
  const a22 = D[14];
  const p2 = a22 - l20 * l20 - l21 * l21;
  const i2 = p2 > 1e-12 * a22 && p2 > 0 ? 1 / Math.sqrt(p2) : 0;
  L[lo + 5] = i2;
  const l32 = (D[20] - l30 * l20 - l31 * l21) * i2;
  L[lo + 8] = l32;
  const l42 = (D[26] - l40 * l20 - l41 * l21) * i2;
  L[lo + 12] = l42;
  const l52 = (D[32] - l50 * l20 - l51 * l21) * i2;
  L[lo + 17] = l52;
  const a33 = D[21];
  const p3 = a33 - l30 * l30 - l31 * l31 - l32 * l32;
  const i3 = p3 > 1e-12 * a33 && p3 > 0 ? 1 / Math.sqrt(p3) : 0;
  L[lo + 9] = i3;
  const l43 = (D[27] - l40 * l30 - l41 * l31 - l42 * l32) * i3;
  L[lo + 13] = l43;
  const l53 = (D[33] - l50 * l30 - l51 * l31 - l52 * l32) * i3;
  L[lo + 18] = l53;
  const a44 = D[28];
  const p4 = a44 - l40 * l40 - l41 * l41 - l42 * l42 - l43 * l43;
  const i4 = p4 > 1e-12 * a44 && p4 > 0 ? 1 / Math.sqrt(p4) : 0;
  L[lo + 14] = i4;
  const l54 = (D[34] - l50 * l40 - l51 * l41 - l52 * l42 - l53 * l43) * i4;
  L[lo + 19] = l54;
  const a55 = D[35];
  const p5 = a55 - l50 * l50 - l51 * l51 - l52 * l52 - l53 * l53 - l54 * l54;
  const i5 = p5 > 1e-12 * a55 && p5 > 0 ? 1 / Math.sqrt(p5) : 0;
  L[lo + 20] = i5;
}

/** W = L⁻¹ U for a 6 × 6 block U (row major) into W at wo (row major); L packed as chol6 leaves it. */
export function lowerSolve6(L: Float64Array, lo: number, U: Float64Array, W: Float64Array, wo: number): void {
  const i0 = L[lo + 0];
  const l10 = L[lo + 1];
  const i1 = L[lo + 2];
  const l20 = L[lo + 3];
  const l21 = L[lo + 4];
  const i2 = L[lo + 5];
  const l30 = L[lo + 6];
  const l31 = L[lo + 7];
  const l32 = L[lo + 8];
  const i3 = L[lo + 9];
  const l40 = L[lo + 10];
  const l41 = L[lo + 11];
  const l42 = L[lo + 12];
  const l43 = L[lo + 13];
  const i4 = L[lo + 14];
  const l50 = L[lo + 15];
  const l51 = L[lo + 16];
  const l52 = L[lo + 17];
  const l53 = L[lo + 18];
  const l54 = L[lo + 19];
  const i5 = L[lo + 20];
  const w00 = U[0] * i0;
  W[wo + 0] = w00;
  const w10 = (U[6] - l10 * w00) * i1;
  W[wo + 6] = w10;
  const w20 = (U[12] - l20 * w00 - l21 * w10) * i2;
  W[wo + 12] = w20;
  const w30 = (U[18] - l30 * w00 - l31 * w10 - l32 * w20) * i3;
  W[wo + 18] = w30;
  const w40 = (U[24] - l40 * w00 - l41 * w10 - l42 * w20 - l43 * w30) * i4;
  W[wo + 24] = w40;
  const w50 = (U[30] - l50 * w00 - l51 * w10 - l52 * w20 - l53 * w30 - l54 * w40) * i5;
  W[wo + 30] = w50;
  const w01 = U[1] * i0;
  W[wo + 1] = w01;
  const w11 = (U[7] - l10 * w01) * i1;
  W[wo + 7] = w11;
  const w21 = (U[13] - l20 * w01 - l21 * w11) * i2;
  W[wo + 13] = w21;
  const w31 = (U[19] - l30 * w01 - l31 * w11 - l32 * w21) * i3;
  W[wo + 19] = w31;
  const w41 = (U[25] - l40 * w01 - l41 * w11 - l42 * w21 - l43 * w31) * i4;
  W[wo + 25] = w41;
  const w51 = (U[31] - l50 * w01 - l51 * w11 - l52 * w21 - l53 * w31 - l54 * w41) * i5;
  W[wo + 31] = w51;
  const w02 = U[2] * i0;
  W[wo + 2] = w02;
  const w12 = (U[8] - l10 * w02) * i1;
  W[wo + 8] = w12;
  const w22 = (U[14] - l20 * w02 - l21 * w12) * i2;
  W[wo + 14] = w22;
  const w32 = (U[20] - l30 * w02 - l31 * w12 - l32 * w22) * i3;
  W[wo + 20] = w32;
  const w42 = (U[26] - l40 * w02 - l41 * w12 - l42 * w22 - l43 * w32) * i4;
  W[wo + 26] = w42;
  const w52 = (U[32] - l50 * w02 - l51 * w12 - l52 * w22 - l53 * w32 - l54 * w42) * i5;
  W[wo + 32] = w52;
  const w03 = U[3] * i0;
  W[wo + 3] = w03;
  const w13 = (U[9] - l10 * w03) * i1;
  W[wo + 9] = w13;
  const w23 = (U[15] - l20 * w03 - l21 * w13) * i2;
  W[wo + 15] = w23;
  const w33 = (U[21] - l30 * w03 - l31 * w13 - l32 * w23) * i3;
  W[wo + 21] = w33;
  const w43 = (U[27] - l40 * w03 - l41 * w13 - l42 * w23 - l43 * w33) * i4;
  W[wo + 27] = w43;
  const w53 = (U[33] - l50 * w03 - l51 * w13 - l52 * w23 - l53 * w33 - l54 * w43) * i5;
  W[wo + 33] = w53;
  const w04 = U[4] * i0;
  W[wo + 4] = w04;
  const w14 = (U[10] - l10 * w04) * i1;
  W[wo + 10] = w14;
  const w24 = (U[16] - l20 * w04 - l21 * w14) * i2;
  W[wo + 16] = w24;
  const w34 = (U[22] - l30 * w04 - l31 * w14 - l32 * w24) * i3;
  W[wo + 22] = w34;
  const w44 = (U[28] - l40 * w04 - l41 * w14 - l42 * w24 - l43 * w34) * i4;
  W[wo + 28] = w44;
  const w54 = (U[34] - l50 * w04 - l51 * w14 - l52 * w24 - l53 * w34 - l54 * w44) * i5;
  W[wo + 34] = w54;
  const w05 = U[5] * i0;
  W[wo + 5] = w05;
  const w15 = (U[11] - l10 * w05) * i1;
  W[wo + 11] = w15;
  const w25 = (U[17] - l20 * w05 - l21 * w15) * i2;
  W[wo + 17] = w25;
  const w35 = (U[23] - l30 * w05 - l31 * w15 - l32 * w25) * i3;
  W[wo + 23] = w35;
  const w45 = (U[29] - l40 * w05 - l41 * w15 - l42 * w25 - l43 * w35) * i4;
  W[wo + 29] = w45;
  const w55 = (U[35] - l50 * w05 - l51 * w15 - l52 * w25 - l53 * w35 - l54 * w45) * i5;
  W[wo + 35] = w55;
}

/** D −= Wᵀ W (the lower triangle; the upper is not read). */
export function subtractGram6(D: Float64Array, W: Float64Array, wo: number): void {
  D[0] -=
    W[wo + 0] * W[wo + 0] +
    W[wo + 6] * W[wo + 6] +
    W[wo + 12] * W[wo + 12] +
    W[wo + 18] * W[wo + 18] +
    W[wo + 24] * W[wo + 24] +
    W[wo + 30] * W[wo + 30];
  D[6] -=
    W[wo + 1] * W[wo + 0] +
    W[wo + 7] * W[wo + 6] +
    W[wo + 13] * W[wo + 12] +
    W[wo + 19] * W[wo + 18] +
    W[wo + 25] * W[wo + 24] +
    W[wo + 31] * W[wo + 30];
  D[7] -=
    W[wo + 1] * W[wo + 1] +
    W[wo + 7] * W[wo + 7] +
    W[wo + 13] * W[wo + 13] +
    W[wo + 19] * W[wo + 19] +
    W[wo + 25] * W[wo + 25] +
    W[wo + 31] * W[wo + 31];
  D[12] -=
    W[wo + 2] * W[wo + 0] +
    W[wo + 8] * W[wo + 6] +
    W[wo + 14] * W[wo + 12] +
    W[wo + 20] * W[wo + 18] +
    W[wo + 26] * W[wo + 24] +
    W[wo + 32] * W[wo + 30];
  D[13] -=
    W[wo + 2] * W[wo + 1] +
    W[wo + 8] * W[wo + 7] +
    W[wo + 14] * W[wo + 13] +
    W[wo + 20] * W[wo + 19] +
    W[wo + 26] * W[wo + 25] +
    W[wo + 32] * W[wo + 31];
  D[14] -=
    W[wo + 2] * W[wo + 2] +
    W[wo + 8] * W[wo + 8] +
    W[wo + 14] * W[wo + 14] +
    W[wo + 20] * W[wo + 20] +
    W[wo + 26] * W[wo + 26] +
    W[wo + 32] * W[wo + 32];
  D[18] -=
    W[wo + 3] * W[wo + 0] +
    W[wo + 9] * W[wo + 6] +
    W[wo + 15] * W[wo + 12] +
    W[wo + 21] * W[wo + 18] +
    W[wo + 27] * W[wo + 24] +
    W[wo + 33] * W[wo + 30];
  D[19] -=
    W[wo + 3] * W[wo + 1] +
    W[wo + 9] * W[wo + 7] +
    W[wo + 15] * W[wo + 13] +
    W[wo + 21] * W[wo + 19] +
    W[wo + 27] * W[wo + 25] +
    W[wo + 33] * W[wo + 31];
  D[20] -=
    W[wo + 3] * W[wo + 2] +
    W[wo + 9] * W[wo + 8] +
    W[wo + 15] * W[wo + 14] +
    W[wo + 21] * W[wo + 20] +
    W[wo + 27] * W[wo + 26] +
    W[wo + 33] * W[wo + 32];
  D[21] -=
    W[wo + 3] * W[wo + 3] +
    W[wo + 9] * W[wo + 9] +
    W[wo + 15] * W[wo + 15] +
    W[wo + 21] * W[wo + 21] +
    W[wo + 27] * W[wo + 27] +
    W[wo + 33] * W[wo + 33];
  D[24] -=
    W[wo + 4] * W[wo + 0] +
    W[wo + 10] * W[wo + 6] +
    W[wo + 16] * W[wo + 12] +
    W[wo + 22] * W[wo + 18] +
    W[wo + 28] * W[wo + 24] +
    W[wo + 34] * W[wo + 30];
  D[25] -=
    W[wo + 4] * W[wo + 1] +
    W[wo + 10] * W[wo + 7] +
    W[wo + 16] * W[wo + 13] +
    W[wo + 22] * W[wo + 19] +
    W[wo + 28] * W[wo + 25] +
    W[wo + 34] * W[wo + 31];
  D[26] -=
    W[wo + 4] * W[wo + 2] +
    W[wo + 10] * W[wo + 8] +
    W[wo + 16] * W[wo + 14] +
    W[wo + 22] * W[wo + 20] +
    W[wo + 28] * W[wo + 26] +
    W[wo + 34] * W[wo + 32];
  D[27] -=
    W[wo + 4] * W[wo + 3] +
    W[wo + 10] * W[wo + 9] +
    W[wo + 16] * W[wo + 15] +
    W[wo + 22] * W[wo + 21] +
    W[wo + 28] * W[wo + 27] +
    W[wo + 34] * W[wo + 33];
  D[28] -=
    W[wo + 4] * W[wo + 4] +
    W[wo + 10] * W[wo + 10] +
    W[wo + 16] * W[wo + 16] +
    W[wo + 22] * W[wo + 22] +
    W[wo + 28] * W[wo + 28] +
    W[wo + 34] * W[wo + 34];
  D[30] -=
    W[wo + 5] * W[wo + 0] +
    W[wo + 11] * W[wo + 6] +
    W[wo + 17] * W[wo + 12] +
    W[wo + 23] * W[wo + 18] +
    W[wo + 29] * W[wo + 24] +
    W[wo + 35] * W[wo + 30];
  D[31] -=
    W[wo + 5] * W[wo + 1] +
    W[wo + 11] * W[wo + 7] +
    W[wo + 17] * W[wo + 13] +
    W[wo + 23] * W[wo + 19] +
    W[wo + 29] * W[wo + 25] +
    W[wo + 35] * W[wo + 31];
  D[32] -=
    W[wo + 5] * W[wo + 2] +
    W[wo + 11] * W[wo + 8] +
    W[wo + 17] * W[wo + 14] +
    W[wo + 23] * W[wo + 20] +
    W[wo + 29] * W[wo + 26] +
    W[wo + 35] * W[wo + 32];
  D[33] -=
    W[wo + 5] * W[wo + 3] +
    W[wo + 11] * W[wo + 9] +
    W[wo + 17] * W[wo + 15] +
    W[wo + 23] * W[wo + 21] +
    W[wo + 29] * W[wo + 27] +
    W[wo + 35] * W[wo + 33];
  D[34] -=
    W[wo + 5] * W[wo + 4] +
    W[wo + 11] * W[wo + 10] +
    W[wo + 17] * W[wo + 16] +
    W[wo + 23] * W[wo + 22] +
    W[wo + 29] * W[wo + 28] +
    W[wo + 35] * W[wo + 34];
  D[35] -=
    W[wo + 5] * W[wo + 5] +
    W[wo + 11] * W[wo + 11] +
    W[wo + 17] * W[wo + 17] +
    W[wo + 23] * W[wo + 23] +
    W[wo + 29] * W[wo + 29] +
    W[wo + 35] * W[wo + 35];
}

/** y = L⁻¹ y in place (6 entries at yo). */
export function lowerSolveVec6(L: Float64Array, lo: number, y: Float64Array, yo: number): void {
  const y0 = y[yo + 0] * L[lo + 0];
  y[yo + 0] = y0;
  const y1 = (y[yo + 1] - L[lo + 1] * y0) * L[lo + 2];
  y[yo + 1] = y1;
  const y2 = (y[yo + 2] - L[lo + 3] * y0 - L[lo + 4] * y1) * L[lo + 5];
  y[yo + 2] = y2;
  const y3 = (y[yo + 3] - L[lo + 6] * y0 - L[lo + 7] * y1 - L[lo + 8] * y2) * L[lo + 9];
  y[yo + 3] = y3;
  const y4 = (y[yo + 4] - L[lo + 10] * y0 - L[lo + 11] * y1 - L[lo + 12] * y2 - L[lo + 13] * y3) * L[lo + 14];
  y[yo + 4] = y4;
  const y5 =
    (y[yo + 5] - L[lo + 15] * y0 - L[lo + 16] * y1 - L[lo + 17] * y2 - L[lo + 18] * y3 - L[lo + 19] * y4) *
    L[lo + 20];
  y[yo + 5] = y5;
}

/** x = L⁻ᵀ x in place (6 entries at xo). */
export function upperSolveVec6(L: Float64Array, lo: number, x: Float64Array, xo: number): void {
  const x5 = x[xo + 5] * L[lo + 20];
  x[xo + 5] = x5;
  const x4 = (x[xo + 4] - L[lo + 19] * x5) * L[lo + 14];
  x[xo + 4] = x4;
  const x3 = (x[xo + 3] - L[lo + 13] * x4 - L[lo + 18] * x5) * L[lo + 9];
  x[xo + 3] = x3;
  const x2 = (x[xo + 2] - L[lo + 8] * x3 - L[lo + 12] * x4 - L[lo + 17] * x5) * L[lo + 5];
  x[xo + 2] = x2;
  const x1 = (x[xo + 1] - L[lo + 4] * x2 - L[lo + 7] * x3 - L[lo + 11] * x4 - L[lo + 16] * x5) * L[lo + 2];
  x[xo + 1] = x1;
  const x0 =
    (x[xo + 0] - L[lo + 1] * x1 - L[lo + 3] * x2 - L[lo + 6] * x3 - L[lo + 10] * x4 - L[lo + 15] * x5) *
    L[lo + 0];
  x[xo + 0] = x0;
}

/** g −= Wᵀ y (6 entries each, g at go, y at yo). */
export function subtractTransposedProduct6(
  g: Float64Array,
  go: number,
  W: Float64Array,
  wo: number,
  y: Float64Array,
  yo: number,
): void {
  const y0 = y[yo + 0];
  const y1 = y[yo + 1];
  const y2 = y[yo + 2];
  const y3 = y[yo + 3];
  const y4 = y[yo + 4];
  const y5 = y[yo + 5];
  g[go + 0] -=
    W[wo + 0] * y0 + W[wo + 6] * y1 + W[wo + 12] * y2 + W[wo + 18] * y3 + W[wo + 24] * y4 + W[wo + 30] * y5;
  g[go + 1] -=
    W[wo + 1] * y0 + W[wo + 7] * y1 + W[wo + 13] * y2 + W[wo + 19] * y3 + W[wo + 25] * y4 + W[wo + 31] * y5;
  g[go + 2] -=
    W[wo + 2] * y0 + W[wo + 8] * y1 + W[wo + 14] * y2 + W[wo + 20] * y3 + W[wo + 26] * y4 + W[wo + 32] * y5;
  g[go + 3] -=
    W[wo + 3] * y0 + W[wo + 9] * y1 + W[wo + 15] * y2 + W[wo + 21] * y3 + W[wo + 27] * y4 + W[wo + 33] * y5;
  g[go + 4] -=
    W[wo + 4] * y0 + W[wo + 10] * y1 + W[wo + 16] * y2 + W[wo + 22] * y3 + W[wo + 28] * y4 + W[wo + 34] * y5;
  g[go + 5] -=
    W[wo + 5] * y0 + W[wo + 11] * y1 + W[wo + 17] * y2 + W[wo + 23] * y3 + W[wo + 29] * y4 + W[wo + 35] * y5;
}

/** y_k −= W x (6 entries each, y at yo, x at xo of the same array). */
export function subtractProduct6(y: Float64Array, yo: number, W: Float64Array, wo: number, xo: number): void {
  const x0 = y[xo + 0];
  const x1 = y[xo + 1];
  const x2 = y[xo + 2];
  const x3 = y[xo + 3];
  const x4 = y[xo + 4];
  const x5 = y[xo + 5];
  y[yo + 0] -=
    W[wo + 0] * x0 + W[wo + 1] * x1 + W[wo + 2] * x2 + W[wo + 3] * x3 + W[wo + 4] * x4 + W[wo + 5] * x5;
  y[yo + 1] -=
    W[wo + 6] * x0 + W[wo + 7] * x1 + W[wo + 8] * x2 + W[wo + 9] * x3 + W[wo + 10] * x4 + W[wo + 11] * x5;
  y[yo + 2] -=
    W[wo + 12] * x0 + W[wo + 13] * x1 + W[wo + 14] * x2 + W[wo + 15] * x3 + W[wo + 16] * x4 + W[wo + 17] * x5;
  y[yo + 3] -=
    W[wo + 18] * x0 + W[wo + 19] * x1 + W[wo + 20] * x2 + W[wo + 21] * x3 + W[wo + 22] * x4 + W[wo + 23] * x5;
  y[yo + 4] -=
    W[wo + 24] * x0 + W[wo + 25] * x1 + W[wo + 26] * x2 + W[wo + 27] * x3 + W[wo + 28] * x4 + W[wo + 29] * x5;
  y[yo + 5] -=
    W[wo + 30] * x0 + W[wo + 31] * x1 + W[wo + 32] * x2 + W[wo + 33] * x3 + W[wo + 34] * x4 + W[wo + 35] * x5;
}
