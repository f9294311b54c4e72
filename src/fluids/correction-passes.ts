/**
 * The position corrections of position based fluids (PBF eqs. 13–14) over
 * the records the density passes leave (density-passes.ts documents the
 * record layout and the pair rows): Δp accumulates in acc[8s + 2 … 8s + 4]
 * and applyDeltas adds it to p (Jacobi).
 */

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
 * keeping λ_s in `lambda` with `keep` (the substep's last iteration, as lambdaPass's ρ).
 */
export function applyDeltas(
  n: number,
  off: number,
  p: Float64Array,
  acc: Float64Array,
  lambda: Float64Array,
  keep = true,
): void {
  for (let s = 0; s < n; s++) {
    const o = s << 3;
    if (keep) lambda[s] = acc[o];
    const i3 = 3 * (off + s);
    p[i3] += acc[o | 2];
    p[i3 + 1] += acc[o | 3];
    p[i3 + 2] += acc[o | 4];
  }
}
