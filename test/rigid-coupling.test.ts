/**
 * Two-way coupling of rigid bodies and particles (src/rigid/coupling.ts,
 * src/collision/rigid-coupling.ts; 003 §4.2 with the generalized inverse
 * masses of Müller et al. 2020): momentum exchanged through contacts.
 */
import { describe, expect, it } from 'vitest';
import { Cloth } from '../src/cloth/cloth.js';
import { World } from '../src/core/world.js';
import { gridMesh } from '../src/mesh/generators.js';
import { coupleRigidBody } from '../src/rigid/coupling.js';
import { RigidBody } from '../src/rigid/rigid-body.js';

/** Total linear momentum of the particles and the rigid bodies. */
function momentum(world: World): number[] {
  const s = world.store,
    r = world.rigids;
  const P = [0, 0, 0];
  for (let i = 0; i < s.count; i++) for (let d = 0; d < 3; d++) P[d] += s.mass[i] * s.v[3 * i + d];
  for (let b = 0; b < r.count; b++) {
    if (r.invMass[b] === 0) continue;
    for (let d = 0; d < 3; d++) P[d] += r.mass[b] * r.v[3 * b + d];
  }
  return P;
}

describe('rigid bodies coupled with particles through contacts', () => {
  it('conserve the total momentum of a box hitting a free cloth to 1e-9 (relative)', () => {
    const world = new World({ gravity: [0, 0, 0], substeps: 10, iterations: 1, solver: 'xpbd' });
    const cloth = new Cloth(world, {
      mesh: gridMesh({ width: 1, height: 1, cols: 15, rows: 15 }),
      density: 0.4,
      stretch: { compliance: 1e-6 },
      bend: { compliance: 1e-2 },
    });
    const box = new RigidBody(world, {
      shape: { type: 'box', halfExtents: [0.15, 0.1, 0.2] },
      mass: 0.5,
      position: [0.05, 0.4, -0.03],
      rotation: [10, 20, 5],
      velocity: [0.3, -3, 0.2],
      angularVelocity: [1, 2, -1.5],
      friction: 0.5,
      restitution: 0.3,
      canSleep: false,
    });
    coupleRigidBody(box);
    const P0 = momentum(world);
    const n0 = Math.hypot(...P0);
    let maxErr = 0;
    for (let f = 0; f < 60; f++) {
      world.step();
      const P = momentum(world);
      maxErr = Math.max(maxErr, Math.hypot(P[0] - P0[0], P[1] - P0[1], P[2] - P0[2]) / n0);
    }
    expect(maxErr).toBeLessThan(1e-9);
    // they met: the cloth carries a good part of the momentum and the box was slowed
    let clothPy = 0;
    for (let i = 0; i < cloth.activeCount; i++)
      clothPy += world.store.mass[cloth.offset + i] * world.store.v[3 * (cloth.offset + i) + 1];
    expect(clothPy / P0[1]).toBeGreaterThan(0.2);
    expect(box.linearVelocity()[1]).toBeGreaterThan(-2.5);
    expect(world.stats.recoveries + world.stats.speedClamps).toBe(0);
  });
});
