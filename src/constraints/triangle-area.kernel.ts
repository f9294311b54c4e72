import type { Multiplier, Particles, PerConstraint, Rule } from '../kernels/dsl.js';
import { dampingSum, edgesFrom, inverseMasses, moves, weightedNorm2 } from '../kernels/helpers.js';

/** The WebAssembly twin projects sets without XPBD damping. */
export const simd = { gamma: 0 };

/**
 * One triangle area constraint (000 §3.4.4): C(p1, p2, p3) = ½ |p2,1 × p3,1| − A0,
 * with ∇p2 C = ½ (p3,1 × n̂), ∇p3 C = ½ (n̂ × p2,1), n̂ the unit normal, and
 * ∇p1 C = −(∇p2 C + ∇p3 C).
 */
export function projectTriangleArea(
  [a, b, c]: Particles,
  rest: PerConstraint,
  lam: Multiplier,
  { kp, at, gamma }: Rule,
): void {
  const [w1, w2, w3] = inverseMasses([a, b, c]);
  if (w1 + w2 + w3 === 0) return;
  const [[ux, uy, uz], [vx, vy, vz]] = edgesFrom([a.x, a.y, a.z], [b, c]);
  let nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(len > 1e-300)) return;
  nx /= len;
  ny /= len;
  nz /= len;
  const C = 0.5 * len - rest;
  const g2x = 0.5 * (vy * nz - vz * ny),
    g2y = 0.5 * (vz * nx - vx * nz),
    g2z = 0.5 * (vx * ny - vy * nx);
  const g3x = 0.5 * (ny * uz - nz * uy),
    g3y = 0.5 * (nz * ux - nx * uz),
    g3z = 0.5 * (nx * uy - ny * ux);
  const g1x = -g2x - g3x,
    g1y = -g2y - g3y,
    g1z = -g2z - g3z;
  const P = [a, b, c];
  const W = [w1, w2, w3];
  const G = [
    [g1x, g1y, g1z],
    [g2x, g2y, g2z],
    [g3x, g3y, g3z],
  ];
  const wG = weightedNorm2(W, G);
  let damp = 0;
  if (gamma !== 0) {
    damp = gamma * dampingSum(P, G);
  }
  const denom = (1 + gamma) * wG + at;
  if (!(denom > 1e-300)) return;
  const dl = (kp * (-C - at * lam - damp)) / denom;
  lam += dl;
  moves(P, G, W, dl);
}
