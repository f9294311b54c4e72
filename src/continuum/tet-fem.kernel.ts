import type {
  Flag,
  Index,
  JsOnly,
  Multiplier,
  Particles,
  PerConstraint,
  Rec,
  Rule,
  Uniform,
} from '../kernels/dsl.js';
import {
  edgesFrom,
  energyRule,
  gram,
  inverseMasses,
  matMul,
  matMulT,
  position,
  store,
  stvkSecondPiola,
  xpbdUpdate,
} from '../kernels/helpers.js';
import { tetStress } from './energy.js';
import type { MaterialModel } from './material.js';

/** The WebAssembly twin projects sets without plasticity or XPBD damping. */
export const simd = { gamma: 0, plastic: null };

/**
 * One tet energy constraint (002 §3, eqs. 8–9): F = D_s D_m⁻¹ with
 * D_s = [x_a − x_d, x_b − x_d, x_c − x_d] and B = D_m⁻¹ (row-major), the
 * energy E = V Ψ(F) and ∇E = V P(F) D_m⁻ᵀ, projected as C = E (PBD, m = 0)
 * or C = √(2E) with compliance 1 (XPBD, m = 1): s = 1/√(2E·m + 1 − m),
 * C = (1 + m) E s, ∇C = s ∇E (tet-fem.ts). StVK and Neo-Hookean in closed
 * form where every singular value of F exceeds the clamp (Gershgorin bound
 * of FᵀF, det F > 0); elsewhere, and with a plastic strain, the SVD path of
 * §4.2 (tetStress in energy.ts).
 */
export function projectTetFem(
  [a, b, c, d]: Particles,
  B: Rec<9>,
  vol: PerConstraint,
  lam: Multiplier,
  { kp, at, gamma }: Rule,
  m: Uniform,
  mu: Uniform,
  lambda: Uniform,
  clamp2: Uniform,
  psiMin: Uniform,
  stvk: Flag,
  t: Index,
  model: JsOnly<MaterialModel>,
  clamp: JsOnly<number>,
  plastic: JsOnly<Float64Array | null>,
  fs: JsOnly<Float64Array>,
  ps: JsOnly<Float64Array>,
): void {
  const m1 = 1 - m;
  const [w0, w1, w2, w3] = inverseMasses([a, b, c, d]);
  if (w0 + w1 + w2 + w3 === 0) return;
  const [px, py, pz] = position(d);
  const [[d0x, d0y, d0z], [d1x, d1y, d1z], [d2x, d2y, d2z]] = edgesFrom([px, py, pz], [a, b, c]);
  const [B0, B1, B2, B3, B4, B5, B6, B7, B8] = B;
  // F = D_s D_m⁻¹ (eq. 9), D_s with the edge vectors as columns; C = FᵀF (helpers.ts, matMul, gram)
  const Ds = [
    [d0x, d1x, d2x],
    [d0y, d1y, d2y],
    [d0z, d1z, d2z],
  ];
  const Bm = [
    [B0, B1, B2],
    [B3, B4, B5],
    [B6, B7, B8],
  ];
  const [[f0, f1, f2], [f3, f4, f5], [f6, f7, f8]] = matMul(Ds, Bm);
  const F = [
    [f0, f1, f2],
    [f3, f4, f5],
    [f6, f7, f8],
  ];
  const [[c00, c01, c02], [, c11, c12], [, , c22]] = gram(F);
  const cof0 = f4 * f8 - f5 * f7,
    cof1 = f5 * f6 - f3 * f8,
    cof2 = f3 * f7 - f4 * f6;
  const det = f0 * cof0 + f1 * cof1 + f2 * cof2;
  let psi: number;
  let P0: number,
    P1: number,
    P2: number,
    P3: number,
    P4: number,
    P5: number,
    P6: number,
    P7: number,
    P8: number;
  // Gershgorin bound of the smallest eigenvalue of FᵀF (see gershgorinLowerBound)
  const a01 = Math.abs(c01),
    a02 = Math.abs(c02),
    a12 = Math.abs(c12);
  if (
    plastic === null &&
    det > 0 &&
    c00 - a01 - a02 >= clamp2 &&
    c11 - a01 - a12 >= clamp2 &&
    c22 - a02 - a12 >= clamp2
  ) {
    if (stvk) {
      // StVK: P = F (2μ ε + λ tr(ε) I), Ψ = μ ε:ε + λ/2 tr(ε)² = ½ S:ε
      const e00 = 0.5 * (c00 - 1),
        e11 = 0.5 * (c11 - 1),
        e22 = 0.5 * (c22 - 1),
        e01 = 0.5 * c01,
        e02 = 0.5 * c02,
        e12 = 0.5 * c12;
      const [s00, s11, s22, s01, s02, s12] = stvkSecondPiola(e00, e11, e22, e01, e02, e12, mu, lambda);
      const S = [
        [s00, s01, s02],
        [s01, s11, s12],
        [s02, s12, s22],
      ];
      [[P0, P1, P2], [P3, P4, P5], [P6, P7, P8]] = matMul(F, S);
      psi = 0.5 * (s00 * e00 + s11 * e11 + s22 * e22) + s01 * e01 + s02 * e02 + s12 * e12;
    } else {
      // Neo-Hookean (eq. 8): P = μF + (λ log J − μ) F⁻ᵀ
      const logJ = Math.log(det);
      const kq = (lambda * logJ - mu) / det;
      P0 = mu * f0 + kq * cof0;
      P1 = mu * f1 + kq * cof1;
      P2 = mu * f2 + kq * cof2;
      P3 = mu * f3 + kq * (f2 * f7 - f1 * f8);
      P4 = mu * f4 + kq * (f0 * f8 - f2 * f6);
      P5 = mu * f5 + kq * (f1 * f6 - f0 * f7);
      P6 = mu * f6 + kq * (f1 * f5 - f2 * f4);
      P7 = mu * f7 + kq * (f2 * f3 - f0 * f5);
      P8 = mu * f8 + kq * (f0 * f4 - f1 * f3);
      psi = 0.5 * mu * (c00 + c11 + c22 - 3) - mu * logJ + 0.5 * lambda * logJ * logJ;
    }
  } else {
    ('defer');
    // inversion handling (SVD, clamped stress) or plastic strain: the reference kernel
    store(fs, [f0, f1, f2, f3, f4, f5, f6, f7, f8]);
    psi = tetStress(model, mu, lambda, clamp, fs, ps, plastic, 6 * t);
    [P0, P1, P2, P3, P4, P5, P6, P7, P8] = ps;
  }
  // below ~1e-7 strain the energy is round-off (Neo-Hookean's logarithms): nothing to project
  if (!(psi > psiMin)) return;
  const V = vol;
  const E = V * psi;
  // ∇E = V P D_m⁻ᵀ: g_k = V (P row · B row k), column k of P Bᵀ; V is folded into the scalar factor below
  const P = [
    [P0, P1, P2],
    [P3, P4, P5],
    [P6, P7, P8],
  ];
  const [[g0x, g1x, g2x], [g0y, g1y, g2y], [g0z, g1z, g2z]] = matMulT(P, Bm);
  const g3x = -g0x - g1x - g2x,
    g3y = -g0y - g1y - g2y,
    g3z = -g0z - g1z - g2z;
  // C = E (PBD) or √(2E) (XPBD), ∇C = s ∇E = (s V) g; PBD (m = 0) has s = 1 with no
  // square root on the critical path
  const [s0, C] = energyRule(E, m, m1);
  const s = s0 * V;
  const G = [
    [g0x, g0y, g0z],
    [g1x, g1y, g1z],
    [g2x, g2y, g2z],
    [g3x, g3y, g3z],
  ];
  xpbdUpdate([a, b, c, d], [w0, w1, w2, w3], G, s, C, lam, kp, at, gamma);
}
