import type { Flag, JsOnly, Multiplier, Particles, PerConstraint, Rec, Uniform } from '../kernels/dsl.js';
import {
  edgesFrom,
  energyRule,
  gram,
  inverseMasses,
  matMul,
  position,
  store,
  xpbdUpdate,
} from '../kernels/helpers.js';
import { type MembraneMaterial, triangleStress } from './energy.js';

/** The WebAssembly twin projects StVK sets without XPBD damping. */
export const simd = { gamma: 0, stvk: true };

/**
 * One membrane energy constraint on a triangle (002 §3, §4.3): the 3 × 2
 * deformation gradient F = [x_a − x_c, x_b − x_c] D_m⁻¹ (D_m in the rest
 * triangle's plane), E = A Ψ(F), ∇E = A P D_m⁻ᵀ, with the PBD / XPBD
 * unification of tet-fem.kernel.ts. StVK (S = C ε in Voigt form, P = F S,
 * C = [C11, C12, C22, C33]: isotropic plane stress or the orthotropic tensor
 * of §4.3) in closed form when the smallest eigenvalue of FᵀF is at least
 * clamp² (−∞ for anisotropic materials, which have no clamp); elsewhere, and
 * for Neo-Hookean, triangleStress (energy.ts: the clamped stress of §4.2).
 */
export function projectTriangleFem(
  [a, b, c]: Particles,
  B: Rec<4>,
  area: PerConstraint,
  lam: Multiplier,
  kp: Uniform,
  at: Uniform,
  gamma: Uniform,
  m: Uniform,
  C11: Uniform,
  C12: Uniform,
  C22: Uniform,
  C33: Uniform,
  clamp2: Uniform,
  psiMin: Uniform,
  stvk: Flag,
  mat: JsOnly<MembraneMaterial>,
  fs: JsOnly<Float64Array>,
  ps: JsOnly<Float64Array>,
): void {
  const m1 = 1 - m;
  const [w0, w1, w2] = inverseMasses([a, b, c]);
  if (w0 + w1 + w2 === 0) return;
  const [px, py, pz] = position(c);
  const [[d0x, d0y, d0z], [d1x, d1y, d1z]] = edgesFrom([px, py, pz], [a, b]);
  const [B0, B1, B2, B3] = B;
  // F (3 × 2) = [x0 − x2, x1 − x2] D_m⁻¹, C = FᵀF (helpers.ts, matMul, gram)
  const Ds = [
    [d0x, d1x],
    [d0y, d1y],
    [d0z, d1z],
  ];
  const Bm = [
    [B0, B1],
    [B2, B3],
  ];
  const [[f0, f1], [f2, f3], [f4, f5]] = matMul(Ds, Bm);
  const F = [
    [f0, f1],
    [f2, f3],
    [f4, f5],
  ];
  const [[c00, c01], [, c11]] = gram(F);
  let psi: number;
  let P0: number, P1: number, P2: number, P3: number, P4: number, P5: number;
  const hd = 0.5 * (c00 - c11);
  if (stvk && 0.5 * (c00 + c11) - Math.sqrt(hd * hd + c01 * c01) >= clamp2) {
    // StVK membrane: S = C ε (Voigt), P = F S
    const e00 = 0.5 * (c00 - 1),
      e11 = 0.5 * (c11 - 1),
      e01 = 0.5 * c01;
    const s00 = C11 * e00 + C12 * e11,
      s11 = C12 * e00 + C22 * e11,
      s01 = 2 * C33 * e01;
    const S = [
      [s00, s01],
      [s01, s11],
    ];
    [[P0, P1], [P2, P3], [P4, P5]] = matMul(F, S);
    psi = 0.5 * (s00 * e00 + s11 * e11) + s01 * e01;
  } else {
    ('defer');
    store(fs, [f0, f1, f2, f3, f4, f5]);
    psi = triangleStress(mat, fs, ps);
    [P0, P1, P2, P3, P4, P5] = ps;
  }
  if (!(psi > psiMin)) return; // round-off at rest, see PSI_TOLERANCE
  const A = area;
  const E = A * psi;
  const g0x = A * (P0 * B0 + P1 * B1),
    g0y = A * (P2 * B0 + P3 * B1),
    g0z = A * (P4 * B0 + P5 * B1);
  const g1x = A * (P0 * B2 + P1 * B3),
    g1y = A * (P2 * B2 + P3 * B3),
    g1z = A * (P4 * B2 + P5 * B3);
  const g2x = -g0x - g1x,
    g2y = -g0y - g1y,
    g2z = -g0z - g1z;
  // PBD (m = 0): C = E, s = 1 without a square root on the critical path
  const [s, C] = energyRule(E, m, m1);
  const G = [
    [g0x, g0y, g0z],
    [g1x, g1y, g1z],
    [g2x, g2y, g2z],
  ];
  xpbdUpdate([a, b, c], [w0, w1, w2], G, s, C, lam, kp, at, gamma);
}
