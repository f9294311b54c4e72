/** Worlds of loose particles, for tests that project one constraint by hand. */
import { Granular, World } from '../../src/index.js';

/**
 * A world holding free particles at the given points (x = p) with the given
 * masses, no gravity, one substep of one iteration; a mass of Infinity
 * makes a particle immovable (inverse mass 0).
 */
export function freeParticles(points: number[][], masses: number[]): World {
  const world = new World({ gravity: [0, 0, 0], substeps: 1, iterations: 1 });
  const start = world.store.allocate(points.length, 0);
  points.forEach((q, k) => {
    world.store.x.set(q, 3 * (start + k));
    world.store.p.set(q, 3 * (start + k));
    world.store.setMass(start + k, masses[k]);
  });
  return world;
}

/** A weightless world holding a granular cube [0, size]³ of jittered grains (Granular's spacing, radius, jitter). */
export function grainCube(
  size: number,
  spacing: number,
  radius: number,
  jitter: number,
): { world: World; g: Granular } {
  const world = new World({ gravity: [0, 0, 0] });
  const g = new Granular(world, {
    box: { min: [0, 0, 0], max: [size, size, size] },
    spacing,
    radius,
    jitter,
  });
  return { world, g };
}
