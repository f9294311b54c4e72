import type { Int, Multiplier, Particle, PerConstraint, Uniform } from '../kernels/dsl.js';
import { move, moveBack, norm2 } from '../kernels/helpers.js';

/** The WebAssembly twin projects sets without XPBD damping (γ = 0; damping reads store.x). */
export const simd = { gamma: 0 };

/**
 * The f32 mode (World option `precision: 'f32'`): an f32x4 kernel, four
 * constraints per instruction on blocked lanes, and its JavaScript twin
 * (Math.fround after every operation), the same bits; without damping, like
 * the SIMD twin.
 */
export const f32 = true;

/**
 * One distance constraint C(p1, p2) = |p1 − p2| − d (003 §3.3, eqs. 10–11):
 * ∇_{p1} C = n, ∇_{p2} C = −n with n = (p1 − p2)/|p1 − p2|, so
 * Δp1 = w1 n Δλ, Δp2 = −w2 n Δλ with Δλ from the unified PBD/XPBD rule
 * (docs/architecture.md). `mode` 1 projects only when stretched, 2 only when
 * compressed, 0 both ways.
 */
export function projectDistance(
  a: Particle,
  b: Particle,
  rest: PerConstraint,
  lam: Multiplier,
  kp: Uniform,
  at: Uniform,
  gamma: Uniform,
  mode: Int,
): void {
  const wa = a.w,
    wb = b.w;
  const wsum = wa + wb;
  if (wsum === 0) return;
  const dx = a.x - b.x,
    dy = a.y - b.y,
    dz = a.z - b.z;
  const len = Math.sqrt(norm2(dx, dy, dz));
  if (len < 1e-12) return;
  const C = len - rest;
  // unilateral modes: a stretch-only constraint lets go when short, a compress-only one when long
  if (mode === 1) {
    if (C <= 0) return;
  } else if (mode === 2) {
    if (C >= 0) return;
  }
  const inv = 1 / len;
  const nx = dx * inv,
    ny = dy * inv,
    nz = dz * inv;
  let damp = 0;
  if (gamma !== 0) {
    damp =
      gamma *
      (nx * (a.x - a.x0 - b.x + b.x0) + ny * (a.y - a.y0 - b.y + b.y0) + nz * (a.z - a.z0 - b.z + b.z0));
  }
  const dl = (kp * (-C - at * lam - damp)) / ((1 + gamma) * wsum + at);
  lam += dl;
  move(a, nx, ny, nz, wa * dl);
  moveBack(b, nx, ny, nz, wb * dl);
}
