/**
 * The pair loops of position based fluids, defined once in the row-kernel
 * language (src/kernels/rows.ts): `npm run kernels` generates from this file
 * the JavaScript functions (pair-passes.generated.ts, which FluidDensity
 * calls) and their WebAssembly twins (wasm/pair-passes.generated.ts, in the
 * module of wasm/fluids.ts), with the same floating-point operations in the
 * same order, so that both give the same numbers bit for bit
 * (test/fluids-wasm.test.ts). The formulas are those of Macklin & Müller
 * 2013 (PBF) and 000 §3.4.6, cited at each function; density-passes.ts
 * documents the slot records (8 doubles per slot) and the pair rows.
 *
 * Where the ports differ on purpose (`if (WASM)`): the twin keeps a pair
 * store `gBuf` (one double per listed pair, index k of the rows walked): the
 * density and XSPH passes store the spiky gradient factor g of each pair
 * there, and the correction and vorticity-gradient passes at the same
 * positions (Jacobi: nothing moves in between) read it back instead of
 * computing the square root and division again. In JavaScript, storing it
 * measured slower, so those passes recompute g.
 */
import type { I32, If, JsOnly, Unless, Vec, WasmOnly } from '../kernels/rows.js';
import { VARIANT, WASM } from '../kernels/rows.js';

/** The functions the WebAssembly module exports. */
export const wasmExports = [
  'fluidDensityPass',
  'fluidCorrectionPass',
  'xsphVorticityPass',
  'vorticityGradientPass',
] as const;

/** JavaScript functions made from another with a flag on. */
export const variants = {
  /** fluidDensityPass for fluids with pinned particles: each w̃ = invMass · m_fluid is read per pair. */
  fluidDensityPassWeighted: { of: 'fluidDensityPass', flag: 'WEIGHTED' },
  /**
   * The correction of PBF eq. 14 over the fluid–solid pairs of
   * solidDensityPass (the same rows, guard and gradient factor g_ib =
   * (Ψ_b/ρ0) ∇W_ib): Δp_i += w̃_i λ_i g_ib on the fluid particle, and
   * Δp_b = −w̃_b Σ_i λ_i g_ib on the solid one, into dps[3q …] by row.
   */
  solidCorrectionPass: { of: 'solidDensityPass', flag: 'CORRECTION' },
} as const;

/**
 * Pairs closer than MIN_DISTANCE · h are treated as that far apart along a
 * fixed axis (+x for fluid pairs, +y for fluid–solid pairs), so coincident
 * particles separate instead of having no gradient.
 */
export const MIN_DISTANCE = 1e-6;

/** h² (the pair test r² < h²) and rMin = MIN_DISTANCE · h (`const [h2, rMin] = cutoffs(h)`). */
function cutoffs(h: number): Vec {
  return [h * h, MIN_DISTANCE * h];
}

/** A vector sum's three components, starting at 0 (`let [ax, ay, az] = zeroSums()`). */
function zeroSums(): Vec {
  return [0, 0, 0];
}

/** The position (x, y, z) of the record at o: fields 5 … 7 (`const [px, py, pz] = recordPosition(acc, oi)`). */
function recordPosition(rec: Float64Array, o: I32): Vec {
  return [rec[o | 5], rec[o | 6], rec[o | 7]];
}

/** p − x_o, the pair's offset p_i − p_j from the position of record o (`let [dx, dy, dz] = offsetFrom([px, py, pz], acc, o)`). */
function offsetFrom(p: Vec, rec: Float64Array, o: I32): Vec {
  return [p[0] - rec[o | 5], p[1] - rec[o | 6], p[2] - rec[o | 7]];
}

/** The offset and its squared length r² = |p − x_o|², for a pair whose offset is not changed afterwards. */
function pairOffset(p: Vec, rec: Float64Array, o: I32): Vec {
  const dx = p[0] - rec[o | 5],
    dy = p[1] - rec[o | 6],
    dz = p[2] - rec[o | 7];
  const r2 = dx * dx + dy * dy + dz * dz;
  return [dx, dy, dz, r2];
}

/**
 * A pair closer than rMin = MIN_DISTANCE · h is taken as that far apart
 * along a fixed axis (see MIN_DISTANCE):
 * `if (r < rMin) { [dx, dy, dz, r, r2] = separated(rMin, [rMin, 0, 0]); }`
 * assigns d = axis, r = rMin, r² = rMin².
 */
function separated(rMin: number, axis: Vec): Vec {
  return [axis[0], axis[1], axis[2], rMin, rMin * rMin];
}

/**
 * The first walk over a row (see density-passes.ts): appends to `live`,
 * from index kl on, the partners nbr[k0 … k1 − 1] (slots) whose records in
 * `rec` (position at 8s + 5 … 8s + 7) lie closer than √h2 to (px, py, pz).
 * Branch-free: every partner is written, and kept when inside. Returns the
 * new end of `live`.
 */
export function listInside(
  px: number,
  py: number,
  pz: number,
  h2: number,
  k0: I32,
  k1: I32,
  nbr: Int32Array,
  rec: Float64Array,
  live: Int32Array,
  kl: I32,
): I32 {
  for (let k = k0; k < k1; k++) {
    const sj = nbr[k];
    const o = sj << 3;
    const [dx, dy, dz] = offsetFrom([px, py, pz], rec, o);
    live[kl] = sj;
    kl += +(dx * dx + dy * dy + dz * dz < h2);
  }
  return kl;
}

/**
 * Fluid–fluid part of the density and its gradients (000 §3.4.6 eq. 4 and the
 * gradient after it; PBF eqs. 2, 8): for every pair, W_spiky adds m W to ρ_i
 * and ρ_j; its gradient (m/ρ0) ∇W(p_i − p_j) = g (p_i − p_j) adds to
 * ∇_{p_i} C_i and subtracts from ∇_{p_j} C_j, and w̃ |g (p_i − p_j)|² adds to
 * the other particle's Σ_k w̃_k |∇_{p_k} C|². This version is for fluids whose
 * particles share one inverse mass `wU` (initRecords; none pinned), which
 * spares a load per pair; its variant fluidDensityPassWeighted (JavaScript
 * only) reads each w̃ = invMass · m_fluid from `invMass`.
 * The JavaScript function stores nothing per pair (the correction pass
 * recomputes g); the twin stores g of pair k at gBuf[k].
 *
 * The partners still closer than h are listed in `live` (rows liveStart) for
 * the correction pass, except with `allInside`: at the positions of the
 * neighbour search (the first Jacobi iteration) every listed pair is closer
 * than h by construction (same positions, same test), so the rows are
 * walked as they are, and the correction pass walks them too.
 */
export function fluidDensityPass(
  n: I32,
  off: I32,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  wU: Unless<'WEIGHTED', number>,
  invMass: If<'WEIGHTED', Float64Array>,
  mF: If<'WEIGHTED', number>,
  h: number,
  wCoef: number,
  gCoef: number,
  acc: Float64Array,
  live: Int32Array,
  liveStart: Int32Array,
  allInside: boolean,
  gBuf: WasmOnly<Float64Array>,
): void {
  const [h2, rMin] = cutoffs(h);
  let kl: I32 = 0;
  liveStart[0] = 0;
  for (let a = 0; a < n; a++) {
    const si = sorted[a] - off;
    const oi = si << 3;
    const [px, py, pz] = recordPosition(acc, oi);
    const wi = VARIANT.WEIGHTED ? invMass[off + si] * mF : wU;
    // the partners inside h: all of the row at the positions of the search, else listed first
    let idx = nbr,
      k0 = start[a],
      k1 = start[a + 1];
    if (!allInside) {
      idx = live;
      k0 = kl;
      k1 = kl = listInside(px, py, pz, h2, start[a], start[a + 1], nbr, acc, live, kl);
    }
    let rhoI = 0,
      gxi = 0,
      gyi = 0,
      gzi = 0,
      ssI = 0;
    for (let k = k0; k < k1; k++) {
      const sj = idx[k];
      const o = sj << 3;
      let [dx, dy, dz] = offsetFrom([px, py, pz], acc, o);
      let r2 = dx * dx + dy * dy + dz * dz;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        [dx, dy, dz, r, r2] = separated(rMin, [rMin, 0, 0]);
      }
      const t = h - r;
      const w = wCoef * t * t * t;
      const g = (-gCoef * t * t) / r;
      if (WASM) {
        gBuf[k] = g;
      }
      const ax = g * dx,
        ay = g * dy,
        az = g * dz;
      const gg = VARIANT.WEIGHTED ? g * g * r2 : wU * (g * g * r2);
      rhoI += w;
      gxi += ax;
      gyi += ay;
      gzi += az;
      ssI += VARIANT.WEIGHTED ? invMass[off + sj] * mF * gg : gg;
      acc[o] += w;
      acc[o | 1] -= ax;
      acc[o | 2] -= ay;
      acc[o | 3] -= az;
      acc[o | 4] += VARIANT.WEIGHTED ? wi * gg : gg;
    }
    acc[oi] += rhoI;
    acc[oi | 1] += gxi;
    acc[oi | 2] += gyi;
    acc[oi | 3] += gzi;
    acc[oi | 4] += ssI;
    if (!allInside) liveStart[a + 1] = kl;
  }
}

/** x^n for an integer n ≥ 0 by repeated squaring. */
export function powInt(x: number, n: I32): number {
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
 * The symmetric correction of PBF eq. 14 for the fluid pairs:
 * Δp_i += w̃_i (λ_i + λ_j + s_corr) (m/ρ0) ∇W(p_i − p_j), Δp_j −= w̃_j (…) (…),
 * accumulated in acc[8s + 2 … 8s + 4], with the artificial pressure of PBF
 * eq. 13 measured from the rest spacing d:
 *   s_corr = corrScale · ((W(p_i − p_j) − W(d)) / (W(Δq) − W(d)))ⁿ  for |p_i − p_j| < d, else 0
 * (W = poly6; qRest3 = (h² − d²)³, invQd3 = 1/((h² − |Δq|²)³ − qRest3)). The
 * paper's s_corr = corrScale (W/W(Δq))ⁿ pushes every pair inside h apart,
 * also at the rest spacing, and a free surface — where nothing pushes back —
 * flew apart with it (a resting blob 13× its size after 2 s, docs/fluids.md);
 * measured from d, it is zero on the rest lattice and still pushes apart
 * pairs pressed closer than d, which is its purpose (against clumping).
 * Positions are those of the density pass (Jacobi), so the same pairs and
 * gradients result; the twin reads g from gBuf and takes the square root of
 * r² only where r² < 4 r_min², the only place where r < r_min can hold.
 */
export function fluidCorrectionPass(
  n: I32,
  off: I32,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  h: number,
  gCoef: JsOnly<number>,
  nCorr: I32,
  qRest3: number,
  invQd3: number,
  corrScale: number,
  acc: Float64Array,
  gBuf: WasmOnly<Float64Array>,
): void {
  const [h2, rMin] = cutoffs(h);
  const near = 4 * rMin * rMin;
  const corr = corrScale !== 0;
  for (let a = 0; a < n; a++) {
    const oi = (sorted[a] - off) << 3;
    const [px, py, pz] = recordPosition(acc, oi);
    const li = acc[oi];
    let [ax, ay, az] = zeroSums();
    const e = start[a + 1];
    for (let k = start[a]; k < e; k++) {
      const o = nbr[k] << 3;
      let [dx, dy, dz] = offsetFrom([px, py, pz], acc, o);
      let r2 = dx * dx + dy * dy + dz * dz;
      let g: number;
      if (WASM) {
        if (r2 < near && Math.sqrt(r2) < rMin) {
          dx = rMin;
          dy = 0;
          dz = 0;
          r2 = rMin * rMin;
        }
        g = gBuf[k];
      } else {
        let r = Math.sqrt(r2);
        if (r < rMin) {
          [dx, dy, dz, r, r2] = separated(rMin, [rMin, 0, 0]);
        }
        const t = h - r;
        g = (-gCoef * t * t) / r;
      }
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

/**
 * XSPH viscosity (PBF eq. 17) and the vorticity estimate (eq. 15) from the
 * same velocities, for the fluid pairs at the positions of R:
 *   Δv_i += c Σ_j (m/ρ0) v_ij W_ij (and −… on j), v_ij = v_j − v_i;
 *   ω_i = Σ_j (m/ρ0) v_ij × ∇_{p_j} W_ij, the same term adding to ω_j,
 * into Q (Δv, ω). `cW` = c (m/ρ0) K_poly6 and `gCoef` = (m/ρ0) · 45/(π h⁶);
 * vorticity is skipped when `vort` is false. Lists the pairs inside h in
 * `live` (first walk over each row, listInside), which the kernel terms and
 * then vorticityGradientPass walk; the twin stores the vorticity g of live
 * pair k at gBuf[k] (read only where vorticity is on and r² > 0).
 */
export function xsphVorticityPass(
  n: I32,
  off: I32,
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
  gBuf: WasmOnly<Float64Array>,
): void {
  const h2 = h * h;
  let kl: I32 = 0;
  liveStart[0] = 0;
  for (let a = 0; a < n; a++) {
    const oi = (sorted[a] - off) << 3;
    const [px, py, pz] = recordPosition(R, oi);
    const vx = R[oi],
      vy = R[oi | 1],
      vz = R[oi | 2];
    const k1 = (kl = listInside(px, py, pz, h2, start[a], start[a + 1], nbr, R, live, kl));
    let [ax, ay, az] = zeroSums();
    let [ox, oy, oz] = zeroSums();
    for (let k = liveStart[a]; k < k1; k++) {
      const o = live[k] << 3;
      const [dx, dy, dz, r2] = pairOffset([px, py, pz], R, o);
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
        if (WASM) {
          gBuf[k] = g;
        }
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

/**
 * η_i = ∇|ω|_i (PBF eq. 16) as the SPH gradient of differences,
 * Σ_j (m/ρ0)(|ω_j| − |ω_i|) ∇W(p_i − p_j); the same term adds to η_j. Reads
 * positions and |ω| from R and sums η into R[8s … 8s + 2]; walks the
 * pairs inside h that xsphVorticityPass listed (the twin reads their g from gBuf).
 */
export function vorticityGradientPass(
  n: I32,
  off: I32,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  R: Float64Array,
  h: JsOnly<number>,
  gCoef: JsOnly<number>,
  gBuf: WasmOnly<Float64Array>,
): void {
  for (let a = 0; a < n; a++) {
    const oi = (sorted[a] - off) << 3;
    const [px, py, pz] = recordPosition(R, oi);
    const mi = R[oi | 3];
    let [ex, ey, ez] = zeroSums();
    const e = start[a + 1];
    for (let k = start[a]; k < e; k++) {
      const o = nbr[k] << 3;
      const [dx, dy, dz, r2] = pairOffset([px, py, pz], R, o);
      if (r2 === 0) continue;
      // the factor g of ∇_{p_j} W_ij that xsphVorticityPass computed
      let g: number;
      if (WASM) {
        g = gBuf[k];
      } else {
        const r = Math.sqrt(r2);
        const t = h - r;
        g = (gCoef * t * t) / r;
      }
      // (|ω_i| − |ω_j|) g
      const f = (mi - R[o | 3]) * g;
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
 * Fluid–solid part of the density (Akinci et al. 2012 boundary particles in
 * PBF's constraint): solid b adds Ψ_b W_ib to ρ_i, (Ψ_b/ρ0) ∇W_ib to
 * ∇_{p_i} C_i, and w̃_b |(Ψ_b/ρ0) ∇W_ib|² to the denominator of λ_i. Rows
 * are over the solid particles q < ns (store index solids[q], Ψ = psi[q]),
 * whose fluid partners nbr[start[q] … start[q + 1] − 1] are store indices
 * (solids.ts CoupledSolids). Its variant solidCorrectionPass walks the same
 * pairs for the correction; both run in JavaScript (the twin is not
 * exported).
 */
export function solidDensityPass(
  ns: I32,
  solids: Int32Array,
  psi: Float64Array,
  start: Int32Array,
  nbr: Int32Array,
  off: I32,
  p: Float64Array,
  invMass: Float64Array,
  mF: number,
  h: number,
  wSpiky: Unless<'CORRECTION', number>,
  spikyOverRho0: number,
  acc: Float64Array,
  dps: If<'CORRECTION', Float64Array>,
): void {
  const [h2, rMin] = cutoffs(h);
  for (let q = 0; q < ns; q++) {
    const b = solids[q];
    const b3 = 3 * b;
    const bx = p[b3],
      by = p[b3 + 1],
      bz = p[b3 + 2];
    const psiB = psi[q];
    const wb = invMass[b] * mF;
    let [sx, sy, sz] = zeroSums();
    const e = start[q + 1];
    for (let k = start[q]; k < e; k++) {
      const i = nbr[k];
      const i3 = 3 * i;
      let dx = p[i3] - bx,
        dy = p[i3 + 1] - by,
        dz = p[i3 + 2] - bz;
      let r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2) continue;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        [dx, dy, dz, r, r2] = separated(rMin, [0, rMin, 0]);
      }
      const o = (i - off) << 3;
      const t = h - r;
      const g = (-psiB * spikyOverRho0 * t * t) / r;
      if (VARIANT.CORRECTION) {
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
      } else {
        acc[o] += psiB * wSpiky * t * t * t;
        acc[o | 1] += g * dx;
        acc[o | 2] += g * dy;
        acc[o | 3] += g * dz;
        acc[o | 4] += wb * g * g * r2;
      }
    }
    if (VARIANT.CORRECTION) {
      dps[3 * q] = -wb * sx;
      dps[3 * q + 1] = -wb * sy;
      dps[3 * q + 2] = -wb * sz;
    }
  }
}
