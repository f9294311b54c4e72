/** A rod's particles set spinning, and its momenta, for the rod conservation tests. */
import type { World } from '../../src/index.js';
import { addMomentum, rng } from '../helpers.js';

/** Random velocities (±0.5 m/s) and spins (±10 rad/s) for particles offset … offset + count − 1, from a seed. */
export function spinParticles(world: World, offset: number, count: number, seed: number): void {
  const s = world.store;
  const r = rng(seed);
  for (let j = 0; j < count; j++) {
    const i = offset + j;
    for (let k = 0; k < 3; k++) {
      s.v[3 * i + k] = r() - 0.5;
      s.omega[3 * i + k] = 20 * (r() - 0.5);
    }
  }
}

/**
 * Linear momentum P = Σ m v and angular momentum about the origin
 * L = Σ m x × v + I ω (the particles' own spin, where their inertia is finite)
 * of particles offset … offset + count − 1.
 */
export function rodMomenta(world: World, offset: number, count: number): { P: number[]; L: number[] } {
  const s = world.store;
  const P = [0, 0, 0],
    L = [0, 0, 0];
  for (let j = 0; j < count; j++) {
    const i = offset + j;
    const m = s.mass[i];
    const [x, y, z] = [s.x[3 * i], s.x[3 * i + 1], s.x[3 * i + 2]];
    const [vx, vy, vz] = [s.v[3 * i], s.v[3 * i + 1], s.v[3 * i + 2]];
    addMomentum(P, L, m, x, y, z, vx, vy, vz);
    const I = s.inertia[3 * i];
    if (Number.isFinite(I)) for (let k = 0; k < 3; k++) L[k] += I * s.omega[3 * i + k];
  }
  return { P, L };
}

/**
 * Free oriented particles in the world's store, one per mass, each with the
 * isotropic rotational inertia given (Infinity: it does not turn); returns the first index.
 */
export function orientedParticles(world: World, masses: number[], inertias: number[]): number {
  const s = world.store;
  const off = s.allocate(masses.length, -1);
  for (let k = 0; k < masses.length; k++) s.setMass(off + k, masses[k]);
  s.addOrientations(off, masses.length, { inertia: true });
  for (let k = 0; k < inertias.length; k++) s.setInertia(off + k, inertias[k], inertias[k], inertias[k]);
  return off;
}
