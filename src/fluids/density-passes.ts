/**
 * The hot loops of position based fluids, as free functions over typed
 * arrays (each one small and monomorphic, so V8 optimises each on its own).
 * FluidDensity (density.ts) calls them; the formulas are those of Macklin &
 * Müller 2013 (PBF) and 000 §3.4.6, cited at each function. This file holds
 * the density passes (ρ_i, ∇C and λ_i, PBF eqs. 1–11); correction-passes.ts
 * the position corrections (eqs. 13–14) and velocity-passes.ts the velocity
 * post-process (eqs. 15–17). The fluid–fluid pair loops (fluidDensityPass
 * and its variant fluidDensityPassWeighted, fluidCorrectionPass,
 * xsphVorticityPass, vorticityGradientPass, listInside) and the fluid–solid
 * ones (solidDensityPass and its variant solidCorrectionPass, which solidPass
 * below runs) are defined once in pair-passes.rows.ts, from which `npm run
 * kernels` generates the JavaScript functions and their WebAssembly twins.
 *
 * Conventions: particle i lives at store index i and fluid slot i − off;
 * fluid pairs are compressed rows over `sorted` (row a is particle
 * sorted[a], partners nbr[start[a] … start[a + 1] − 1], each unordered pair
 * once) and name their partners by slot (store index − off); w̃ = invMass ·
 * m_fluid is the inverse mass relative to a fluid particle (1 for fluid
 * particles, 0 for pinned ones).
 *
 * Per-slot data live in one record of 8 doubles (64 bytes, one cache line
 * when the buffer is aligned) in the array `acc`, so that a neighbour's
 * position and the sums it receives are read and written together: during
 * the density passes acc[8s … 8s + 7] = (ρ, ∇C_x, ∇C_y, ∇C_z,
 * Σ_k w̃_k |∇_{p_k} C|², p_x, p_y, p_z); the λ pass overwrites the first five
 * with (λ, w̃, 0, 0, 0) and the correction passes accumulate Δp in
 * acc[8s + 2 … 8s + 4]. Indices are formed with shifts and ors (s << 3 | k),
 * which V8 compiles without overflow checks. The fluid–fluid loops read
 * positions from the records (copied from p by initRecords), never from the
 * store. Nothing is stored per pair in JavaScript (storing the gradient for
 * the correction pass measured slower there); the WebAssembly twins of the
 * pair loops (src/fluids/wasm.ts), which FluidDensity runs where it can, do
 * store it and give the same numbers bit for bit.
 *
 * Pairs are found once per substep, and after the first Jacobi iteration
 * about a third of them have moved apart beyond h, at random: a branch that
 * skips them is mispredicted often, and computing their kernel terms only to
 * multiply them by 0 wastes a square root and a division each. The density
 * and XSPH passes therefore walk each row twice: first a cheap, branch-free
 * pass over positions only lists the partners still closer than h (`live`,
 * which the correction passes at the same positions reuse), then the kernel
 * terms are computed for the listed partners alone. The sums are those of a
 * loop over the inside pairs in row order, bit for bit.
 */
import { solidCorrectionPass, solidDensityPass } from './pair-passes.generated.js';

/** Doubles per slot record in `acc`. */
export const RECORD = 8;

/**
 * Writes each active slot's record for the density passes: ρ = the particle's
 * own m W(0) (`self`), zero gradient sums, and its position from p. Returns
 * the inverse mass w̃ that all slots share, or NaN when they differ (a pinned
 * fluid particle), for fluidDensityPass.
 */
export function initRecords(
  n: number,
  off: number,
  p: Float64Array,
  invMass: Float64Array,
  mF: number,
  self: number,
  acc: Float64Array,
): number {
  const w0 = n > 0 ? invMass[off] * mF : 1;
  let uniform = true;
  for (let s = 0; s < n; s++) {
    const o = s << 3;
    const i3 = 3 * (off + s);
    acc[o] = self;
    acc[o | 1] = 0;
    acc[o | 2] = 0;
    acc[o | 3] = 0;
    acc[o | 4] = 0;
    acc[o | 5] = p[i3];
    acc[o | 6] = p[i3 + 1];
    acc[o | 7] = p[i3 + 2];
    if (invMass[off + s] * mF !== w0) uniform = false;
  }
  return uniform ? w0 : Number.NaN;
}

/**
 * True when p of slots [s0, s1) (store index off + s) equals q[3s …], the
 * positions of the neighbour search: nothing moved since the search, so every
 * listed pair is still within h (ALL_INSIDE). q must hold 3 s1 numbers.
 */
export function samePositions(
  s0: number,
  s1: number,
  off: number,
  p: Float64Array,
  q: Float64Array,
): boolean {
  const o3 = 3 * off;
  for (let k = 3 * s0; k < 3 * s1; k++) if (p[o3 + k] !== q[k]) return false;
  return true;
}

/**
 * The solid particles coupled to a fluid this substep (solids.ts
 * CoupledSolids): their count, store indices and boundary masses Ψ, and the
 * fluid particles near each (rows over the solids).
 */
export interface SolidRows {
  count: number;
  solids: Int32Array;
  psi: Float64Array;
  pairs: { start: Int32Array; nbr: Int32Array };
}

/**
 * The fluid–solid pairs of the coupled solids S in the density pass (`dps`
 * null: pair-passes.rows.ts solidDensityPass) or the correction pass (`dps`
 * given: its variant solidCorrectionPass, Δp_b of each solid into dps by
 * row): one definition of the walk, generated as the two loops.
 */
export function solidPass(
  S: SolidRows,
  off: number,
  p: Float64Array,
  invMass: Float64Array,
  mF: number,
  h: number,
  wSpiky: number,
  spikyOverRho0: number,
  acc: Float64Array,
  dps: Float64Array | null,
): void {
  const { count: ns, solids, psi } = S,
    { start, nbr } = S.pairs;
  const k = spikyOverRho0;
  if (dps === null) solidDensityPass(ns, solids, psi, start, nbr, off, p, invMass, mF, h, wSpiky, k, acc);
  else solidCorrectionPass(ns, solids, psi, start, nbr, off, p, invMass, mF, h, k, acc, dps);
}

/**
 * Wall part of the density: each collider seen as planes of rest-lattice
 * particles behind its surface (see wallLayers in kernels.ts), at the
 * tangent plane s(p) = n·p − c recorded for each (particle, collider). A
 * wall alone fills the fraction V_k of the particle's kernel, and its
 * spiky-gradient term has magnitude G_k (pointing into the wall).
 *
 * Where walls meet (a floor and a wall, a corner), the matter behind them
 * overlaps; counting each wall in full counts the overlap twice and
 * overcompresses the fluid in edges and corners. The walls are combined as
 * a union instead, V = 1 − Π_k (1 − V_k) (exact for perpendicular walls
 * and a kernel that factorises along the axes, as a Gaussian does), with
 * gradient Σ_k G_k Π_{l≠k} (1 − V_l); `wallP` (per slot) and `wallV` (per
 * record) are scratch. Stores the effective G per record for the correction.
 * Walks records [r0, r1) (all of a slot's records, or none).
 */
export function wallDensityPass(
  r0: number,
  r1: number,
  slot: Int32Array,
  wn: Float64Array,
  wc: Float64Array,
  wg: Float64Array,
  wallV: Float64Array,
  wallP: Float64Array,
  off: number,
  p: Float64Array,
  d: number,
  h: number,
  wRho: number,
  wGrad: number,
  rho0: number,
  acc: Float64Array,
): void {
  const halfD = 0.5 * d;
  const inv0 = 1 / rho0;
  // One walk (session 25, wv33): a slot's records are contiguous (walls.ts: slot order), so each slot's
  // P = Π (1 − V_k) is complete at its last record, and its records are finished there while they are
  // in cache. Per slot the same operations in the same order as the three walks before (P from 1; the
  // first record's G with P, the later ones' with −1 − (−1 − P), as read back from the mark); acc's
  // elements and wallP's mark as before.
  let g0 = r0,
    P = 1;
  for (let r = r0; r < r1; r++) {
    const s = slot[r];
    const i3 = 3 * (off + s);
    const sd = wn[3 * r] * p[i3] + wn[3 * r + 1] * p[i3 + 1] + wn[3 * r + 2] * p[i3 + 2] - wc[r];
    let dens = 0,
      grad = 0;
    for (let z = sd + halfD; z < h; z += d) {
      if (z <= -h) continue;
      const t = h - (z < 0 ? -z : z);
      const t3 = t * t * t;
      dens += t3 * t * (0.25 * h - 0.2 * t);
      grad += z * t3;
    }
    let v = wRho * dens * inv0;
    if (v > 0.999999) v = 0.999999;
    wallV[r] = v;
    wg[r] = wGrad * grad;
    P *= 1 - v;
    if (r + 1 < r1 && slot[r + 1] === s) continue;
    // the slot's records [g0, r]: the union's gradient and density (docs above)
    const o = s << 3;
    const mark = -1 - P;
    for (let q = g0; q <= r; q++) {
      const G = (wg[q] * (q === g0 ? P : -1 - mark)) / (1 - wallV[q]);
      wg[q] = G;
      acc[o | 1] -= G * wn[3 * q];
      acc[o | 2] -= G * wn[3 * q + 1];
      acc[o | 3] -= G * wn[3 * q + 2];
    }
    acc[o] += rho0 * (1 - P);
    wallP[s] = mark;
    g0 = r + 1;
    P = 1;
  }
}

/**
 * λ_i = −C_i / (Σ_k w̃_k |∇_{p_k} C_i|² + ε) (PBF eq. 11), with
 * C_i = ρ_i/ρ0 − 1 (eq. 1), clamped at 0 when unilateral, and also, under the
 * equality constraint, for particles at a free surface: those with fewer
 * neighbours (`counts`, at the search) than `full`, a particle inside a rest
 * lattice. Such a particle is short of ρ0 for want of neighbours, not because
 * it is stretched; pulling it in is what made a resting free blob contract
 * and fly apart (docs/fluids.md). Copies ρ_i to `rho` with `keep` (the
 * substep's last iteration: an earlier one's are overwritten unread, and the
 * copy is a stream of its own, session 24) and leaves (λ_i, w̃_i, 0, 0, 0) in
 * acc for the correction passes. `wU`: the shared w̃ that the records' set-up
 * found (initRecords: invMass[off + s] · mF equal to it for every slot), or
 * NaN: with it, the pass reads no inverse mass (a 1 MB stream at 128k, session 25).
 */
export function lambdaPass(
  n: number,
  off: number,
  invMass: Float64Array,
  mF: number,
  invRho0: number,
  unilateral: boolean,
  eps: number,
  acc: Float64Array,
  rho: Float64Array,
  counts: Int32Array | null = null,
  full = 0,
  keep = true,
  wU = Number.NaN,
): void {
  const shared = !Number.isNaN(wU);
  for (let s = 0; s < n; s++) {
    const o = s << 3;
    const r = acc[o];
    if (keep) rho[s] = r;
    let C = r * invRho0 - 1;
    if (unilateral && C < 0) C = 0;
    else if (counts !== null && C < 0 && counts[s] < full) C = 0;
    const wi = shared ? wU : invMass[off + s] * mF;
    const gx = acc[o | 1],
      gy = acc[o | 2],
      gz = acc[o | 3];
    const denom = wi * (gx * gx + gy * gy + gz * gz) + acc[o | 4] + eps;
    acc[o] = denom > 0 ? -C / denom : 0;
    acc[o | 1] = wi;
    acc[o | 2] = 0;
    acc[o | 3] = 0;
    acc[o | 4] = 0;
  }
}
