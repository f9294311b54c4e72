import { type HangingSolver, hangingCloth } from '../../experiments/hpbd.js';
import type { BenchCase } from '../harness.js';

/**
 * The hierarchical solver's gain (issue 20; Müller 2008, HPBD): the 201 × 201
 * cloth of `pbdkit experiment hpbd` — hung from its top edge, inextensible,
 * started at 110 % of its length — brought back in one step of 1/60 s with 16
 * iterations. Every timed step starts again from the stretched state, so each
 * times the same solve; `info` says how far it got (mean edge stretch). The
 * experiment gives the iterations and ms each solver needs to reach 1 %.
 */
function hanging(solver: HangingSolver, iterations: number) {
  return () => {
    const c = hangingCloth(201, solver);
    c.world.configure({ iterations });
    c.reset();
    c.world.step();
    const info = `${c.world.store.count} vertices, ${iterations} iterations, one substep: mean edge stretch ${(100 * c.stretch()).toFixed(2)} % after the step (from 5.3 %)${c.cloth.hierarchy ? `; levels ${c.cloth.hierarchy.levelSizes.join(' / ')}` : ''}`;
    return {
      step: () => {
        c.reset();
        c.world.step();
      },
      info,
      world: c.world,
    };
  };
}

export const cases: BenchCase[] = [
  {
    name: 'hpbd-201',
    description:
      'hierarchical solver: the 201×201 hanging cloth started at 110 % length, one step of 16 iterations (each a V-cycle + symmetric sweep)',
    setup: hanging('hierarchical', 16),
    steps: 20,
    warmup: 3,
  },
  {
    name: 'hpbd-201-gs',
    description: 'the same step with Gauss–Seidel alone: 16 iterations of the symmetric sweep',
    setup: hanging('gauss-seidel', 16),
    steps: 20,
    warmup: 3,
  },
];
