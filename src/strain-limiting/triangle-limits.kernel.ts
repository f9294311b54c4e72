import type { Multiplier, Particles, PerConstraint, Rec, Rule, Uniform } from '../kernels/dsl.js';
import { edgesFrom, inverseMasses, move, norm2 } from '../kernels/helpers.js';

/** The WebAssembly twin projects sets without XPBD damping. */
export const simd = { gamma: 0 };

/**
 * One principal-stretch limit of a triangle (000 §3.5, after Wang, O'Brien
 * and Ramamoorthi 2010). With D_m⁻¹ = B (rest edges in the triangle's plane)
 * and u = x_a − x_c, v = x_b − x_c, F = [u v] B (3 × 2); its singular values
 * σ₁ ≥ σ₂ are the principal stretches, the eigenvalues of FᵀF are σ². The
 * constraint of principal stretch k (`which` 0 or 1) is
 * C = σ_k − clamp(σ_k, s_min, s_max), with ∂σ_k/∂F = û v̂ᵀ (v̂ the unit
 * eigenvector of FᵀF, û = F v̂ / σ_k): for w = B v̂,
 * ∇_a C = w₀ û, ∇_b C = w₁ û, ∇_c C = −(w₀ + w₁) û.
 */
export function projectTriangleStrainLimit(
  [a, b, c]: Particles,
  B: Rec<4>,
  which: PerConstraint,
  lam: Multiplier,
  { kp, at, gamma }: Rule,
  smin: Uniform,
  smax: Uniform,
): void {
  const [wa, wb, wc] = inverseMasses([a, b, c]);
  if (wa + wb + wc === 0) return;
  const [b00, b01, b10, b11] = B;
  const [[ux, uy, uz], [vx, vy, vz]] = edgesFrom([c.x, c.y, c.z], [a, b]);
  // F = D_s D_m⁻¹: columns f0, f1
  const f0x = ux * b00 + vx * b10,
    f0y = uy * b00 + vy * b10,
    f0z = uz * b00 + vz * b10;
  const f1x = ux * b01 + vx * b11,
    f1y = uy * b01 + vy * b11,
    f1z = uz * b01 + vz * b11;
  // FᵀF = [[A, D], [D, E]]: its larger eigenvector from the better-conditioned row
  const A = norm2(f0x, f0y, f0z);
  const D = f0x * f1x + f0y * f1y + f0z * f1z;
  const E = norm2(f1x, f1y, f1z);
  const half = 0.5 * (A - E);
  const r = Math.sqrt(half * half + D * D);
  let e0 = half >= 0 ? half + r : D;
  let e1 = half >= 0 ? D : r - half;
  const el = Math.sqrt(e0 * e0 + e1 * e1);
  // isotropic FᵀF (r = 0): every direction is an eigenvector
  e0 = el > 1e-300 ? e0 / el : 1;
  e1 = el > 1e-300 ? e1 / el : 0;
  // the eigenvector of principal stretch `which`: the larger one, or the one perpendicular to it
  const k0 = which === 0 ? e0 : -e1;
  const k1 = which === 0 ? e1 : e0;
  // F v̂ = σ û
  const gx = f0x * k0 + f1x * k1,
    gy = f0y * k0 + f1y * k1,
    gz = f0z * k0 + f1z * k1;
  const sigma = Math.sqrt(norm2(gx, gy, gz));
  // collapsed (or degenerate at rest): no direction to stretch along
  if (!(sigma > 1e-12)) return;
  const C = sigma > smax ? sigma - smax : sigma < smin ? sigma - smin : 0;
  if (C === 0) return;
  const inv = 1 / sigma;
  const nx = gx * inv,
    ny = gy * inv,
    nz = gz * inv;
  const w0 = b00 * k0 + b01 * k1,
    w1 = b10 * k0 + b11 * k1;
  const w2 = -(w0 + w1);
  const wsum = wa * w0 * w0 + wb * w1 * w1 + wc * w2 * w2;
  let damp = 0;
  if (gamma !== 0) {
    damp =
      gamma *
      (w0 * (nx * (a.x - a.x0) + ny * (a.y - a.y0) + nz * (a.z - a.z0)) +
        w1 * (nx * (b.x - b.x0) + ny * (b.y - b.y0) + nz * (b.z - b.z0)) +
        w2 * (nx * (c.x - c.x0) + ny * (c.y - c.y0) + nz * (c.z - c.z0)));
  }
  const denom = (1 + gamma) * wsum + at;
  if (!(denom > 1e-30)) return;
  const dl = (kp * (-C - at * lam - damp)) / denom;
  lam += dl;
  move(a, nx, ny, nz, wa * w0 * dl);
  move(b, nx, ny, nz, wb * w1 * dl);
  move(c, nx, ny, nz, wc * w2 * dl);
}
