import type { Multiplier, Particles, PerConstraint, Rec, Rule, Uniform } from '../kernels/dsl.js';
import { inverseMasses, move, norm2 } from '../kernels/helpers.js';

/** The WebAssembly twin projects sets without XPBD damping. */
export const simd = { gamma: 0 };

/** The f32 mode (World option `precision: 'f32'`): an f32x4 kernel on blocked lanes and its JavaScript twin, the same bits; without damping. */
export const f32 = true;

/**
 * The fused f32x4 loop projects two groups of four per iteration, their
 * statements interleaved (scripts/kernels/interleave.ts): the same bits
 * (docs/performance.md, session 13: 0.88-0.90 of the isometric f32 step).
 */
export const interleave = 2;

/**
 * One isometric bending constraint (002 §4.3, after Bergou et al. 2006) on
 * the stencil of an interior edge a–b with the opposite vertices c, d: the
 * rank-one Q = q KᵀK, v = Σ K_i x_i, E_b = ½ q |v|², ∇_i E_b = q K_i v,
 * projected as C = E_b (PBD, m = 0) or C = √(2 E_b) (XPBD, m = 1), so that
 * ∇_i C = s K_i v with s = q (PBD) or q/√(2E_b) (XPBD).
 */
export function projectIsometricBending(
  [a, b, c, d]: Particles,
  K: Rec<4>,
  q: PerConstraint,
  lam: Multiplier,
  { kp, at, gamma }: Rule,
  m: Uniform,
): void {
  const m1 = 1 - m;
  const [w0, w1, w2, w3] = inverseMasses([a, b, c, d]);
  if (w0 + w1 + w2 + w3 === 0) return;
  const [k0, k1, k2, k3] = K;
  // v = Σ K_i x_i; E_b = ½ q |v|²; ∇_i E_b = q K_i v
  const vx = k0 * a.x + k1 * b.x + k2 * c.x + k3 * d.x;
  const vy = k0 * a.y + k1 * b.y + k2 * c.y + k3 * d.y;
  const vz = k0 * a.z + k1 * b.z + k2 * c.z + k3 * d.z;
  const v2 = norm2(vx, vy, vz);
  const E = 0.5 * q * v2;
  if (!(E > 1e-300)) return;
  const s = m === 0 ? q : q / Math.sqrt(2 * E * m + m1); // ∇C_i = s K_i v
  const C = (1 + m) * E * (s / q);
  const wK = w0 * k0 * k0 + w1 * k1 * k1 + w2 * k2 * k2 + w3 * k3 * k3;
  const wG = s * s * v2 * wK;
  let damp = 0;
  if (gamma !== 0) {
    const ux = k0 * (a.x - a.x0) + k1 * (b.x - b.x0) + k2 * (c.x - c.x0) + k3 * (d.x - d.x0);
    const uy = k0 * (a.y - a.y0) + k1 * (b.y - b.y0) + k2 * (c.y - c.y0) + k3 * (d.y - d.y0);
    const uz = k0 * (a.z - a.z0) + k1 * (b.z - b.z0) + k2 * (c.z - c.z0) + k3 * (d.z - d.z0);
    damp = gamma * s * (vx * ux + vy * uy + vz * uz);
  }
  const denom = (1 + gamma) * wG + at;
  if (!(denom > 1e-300)) return;
  const dl = (kp * (-C - at * lam - damp)) / denom;
  lam += dl;
  const sd = s * dl;
  move(a, vx, vy, vz, w0 * k0 * sd);
  move(b, vx, vy, vz, w1 * k1 * sd);
  move(c, vx, vy, vz, w2 * k2 * sd);
  move(d, vx, vy, vz, w3 * k3 * sd);
}
