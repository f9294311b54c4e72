import type { Multiplier, Particles, PerConstraint, Rule } from '../kernels/dsl.js';
import { edgesFrom, inverseMasses, moves, position, xpbdDenominator } from '../kernels/helpers.js';

/** The WebAssembly twin projects sets without XPBD damping. */
export const simd = { gamma: 0 };

/**
 * One tetrahedron volume constraint (000 §3.4.4):
 *   C(p1, p2, p3, p4) = (1/6) (p2,1 × p3,1) · p4,1 − V0,
 * ∇p2 C = (1/6) p3,1 × p4,1, ∇p3 C = (1/6) p4,1 × p2,1, ∇p4 C = (1/6) p2,1 × p3,1,
 * ∇p1 C = −(∇p2 C + ∇p3 C + ∇p4 C); the gradients below are 6 ∇C.
 *
 * Inversion handling: edges and a compliant volume alone have no barrier at
 * V = 0 (a mirrored tet keeps every edge length, 000 §2), and a tet squeezed
 * below V_c = σ_c³ V0 is projected back onto V_c, hard and without touching λ:
 * the unilateral limit of strain limiting (000 §3.5: an element past its
 * limit is projected onto it) at the volume of 002 §4.2's clamp, σ_c = 1/√3 in
 * every direction (StVK's restoring force peaks there; the FEM models' default).
 */
export function projectTetVolume(
  [a, b, c, d]: Particles,
  rest: PerConstraint,
  lam: Multiplier,
  { kp, at, gamma }: Rule,
): void {
  const sixth = 1 / 6;
  const [w1, w2, w3, w4] = inverseMasses([a, b, c, d]);
  if (w1 + w2 + w3 + w4 === 0) return;
  const [ox, oy, oz] = position(a);
  const [[ux, uy, uz], [vx, vy, vz], [tx, ty, tz]] = edgesFrom([ox, oy, oz], [b, c, d]);
  // gradients (× 6)
  const g2x = vy * tz - vz * ty,
    g2y = vz * tx - vx * tz,
    g2z = vx * ty - vy * tx;
  const g3x = ty * uz - tz * uy,
    g3y = tz * ux - tx * uz,
    g3z = tx * uy - ty * ux;
  const g4x = uy * vz - uz * vy,
    g4y = uz * vx - ux * vz,
    g4z = ux * vy - uy * vx;
  const g1x = -g2x - g3x - g4x,
    g1y = -g2y - g3y - g4y,
    g1z = -g2z - g3z - g4z;
  const V = sixth * (g4x * tx + g4y * ty + g4z * tz);
  const C = V - rest;
  // how far V is below the floor V_c = σ_c³ V0 = 3^(−3/2) V0
  const under = 0.19245008972987526 * rest - V;
  const P = [a, b, c, d];
  const W = [w1, w2, w3, w4];
  const G = [
    [g1x, g1y, g1z],
    [g2x, g2y, g2z],
    [g3x, g3y, g3z],
    [g4x, g4y, g4z],
  ];
  const [wG, damp, denom] = xpbdDenominator(P, W, G, sixth, gamma, at);
  if (!(denom > 1e-300)) return;
  // below the floor: C_c = V − V_c ≥ 0, projected in full (Δλ = −C_c / Σ w |∇C|²)
  const hard = under > 0 && wG > 1e-300;
  const dl = hard ? under / wG : (kp * (-C - at * lam - damp)) / denom;
  lam += hard ? 0 : dl;
  const s = sixth * dl;
  moves(P, G, W, s);
}
