/**
 * The tank in which test/fluids.test.ts floats a cloth balloon and test/rigid-coupling.test.ts a
 * rigid box, each of half the density of water, to compare the depth it floats at with
 * Archimedes: one set-up, written once.
 */
import { addOpenTank } from '../../src/collision/open-tank.js';
import { World } from '../../src/core/world.js';
import { Fluid } from '../../src/fluids/fluid.js';
import { NEAR_WALLS, waterLevel } from '../helpers.js';

export interface FloatingTank {
  world: World;
  /** Particle spacing d of the water (m). */
  d: number;
  /** Side of the square tank (m): NEAR_WALLS's 0.5 m. */
  W: number;
  /** Height of the water block before the body goes in (m). */
  depth: number;
  /** The water: a block filling the tank to `depth`, made after the floating body (the caller adds it first). */
  fill(): Fluid;
  /**
   * Steps 8 × 15 steps and returns the mean of `f` at the water level after each 15: the level near
   * the walls (waterLevel at NEAR_WALLS), away from the body floating in the middle.
   */
  meanAtLevel(fluid: Fluid, f: (level: number) => number): number;
}

/**
 * A world at 1/60 s with 3 substeps and 4 iterations, and an open tank 0.5 m × 0.5 m (no friction,
 * no margin) for water 0.25 m deep at 2.5 cm spacing.
 */
export function floatingTank(): FloatingTank {
  const d = 0.025;
  const world = new World({ dt: 1 / 60, substeps: 3, iterations: 4 });
  const W = 0.5,
    depth = 0.25;
  addOpenTank(world, W, W, { friction: 0, margin: 0 });
  return {
    world,
    d,
    W,
    depth,
    fill: () => new Fluid(world, { spacing: d, blocks: [{ min: [0, 0, 0], max: [W, depth, W] }] }),
    meanAtLevel(fluid, f) {
      let mean = 0;
      const samples = 8;
      for (let k = 0; k < samples; k++) {
        for (let s = 0; s < 15; s++) world.step();
        mean += f(waterLevel(fluid, NEAR_WALLS, depth - 0.1, depth + 0.1)) / samples;
      }
      return mean;
    },
  };
}
