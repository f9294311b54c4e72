/**
 * Jacobi with averaging (WorldOptions.solve = 'jacobi', docs/solver.md):
 * every constraint of a set projected from the same positions, each particle
 * moved by ω times the mean of its corrections. On a static problem it
 * reaches Gauss–Seidel's answer (the analytic stretch of a hanging XPBD
 * chain), more slowly; its passes are the same whatever the thread count.
 */
import { describe, expect, it } from 'vitest';
import { hangChain } from '../experiments/xpbd-chain.js';
import { PbdError } from '../src/core/errors.js';
import { World } from '../src/core/world.js';
import { hangingCloth } from './helpers/cloth.js';

const N = 10,
  m = 0.1,
  alpha = 0.01,
  g = 9.81,
  L = 0.1;
const analytic = (alpha * m * g * N * (N - 1)) / 2;

/** Relative error of a hanging chain's stretch against α m g N(N − 1)/2 after 1,500 steps. */
function chainError(solve: 'gauss-seidel' | 'jacobi', iterations: number, relaxation = 1): number {
  const world = new World({ substeps: 4, iterations, damping: 2, gravity: [0, -g, 0], solve, relaxation });
  const start = hangChain(world, N, m, L, alpha);
  world.attachments.attach(start);
  for (let k = 0; k < 1500; k++) world.step();
  const stretch = -world.store.x[3 * (start + N - 1) + 1] - (N - 1) * L;
  return (stretch - analytic) / analytic;
}

describe('Jacobi with averaging', () => {
  it("reaches Gauss–Seidel's answer on a static problem: a hanging XPBD chain's analytic stretch", () => {
    const gs = chainError('gauss-seidel', 20);
    const jacobi = chainError('jacobi', 20);
    expect(Math.abs(gs)).toBeLessThan(0.02);
    expect(Math.abs(jacobi)).toBeLessThan(0.02);
  });

  it('converges more slowly than Gauss–Seidel at one iteration per substep, faster with over-relaxation', () => {
    const gs = Math.abs(chainError('gauss-seidel', 1));
    const jacobi = Math.abs(chainError('jacobi', 1));
    const over = Math.abs(chainError('jacobi', 1, 1.5));
    expect(jacobi).toBeGreaterThan(gs);
    expect(over).toBeLessThan(jacobi);
  });

  it('a cloth under Jacobi stays finite and keeps its edges near their rest lengths', () => {
    const world = new World({ substeps: 10, iterations: 4, solve: 'jacobi', relaxation: 1.2 });
    const cloth = hangingCloth(world, 20, { size: 1, density: 0.1, bend: 0.1 });
    for (let k = 0; k < 120; k++) world.step();
    expect(world.stats.recoveries).toBe(0);
    expect(world.stats.speedClamps).toBe(0);
    expect(world.store.x.subarray(0, 3 * world.store.count).every(Number.isFinite)).toBe(true);
    expect(cloth.stretch.maxViolation!(world.store)).toBeLessThan(0.01);
  });

  it('rejects an unknown mode and a relaxation outside (0, 2)', () => {
    expect(() => new World({ solve: 'sor' as 'jacobi' })).toThrow(/world\.solve/);
    expect(() => new World({ relaxation: 2 })).toThrow(PbdError);
    expect(() => new World({ relaxation: 0 })).toThrow(/world\.relaxation/);
  });
});
