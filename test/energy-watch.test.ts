/**
 * EnergyWatch (issue 15, item 8): a body that gains kinetic energy no
 * driver of its scene could give it is reported; gravity, a thrown start
 * and kinematic colliders are energy the scene does supply.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BoxCollider, EnergyWatch, loadScene, PlaneCollider, SoftBody, tetBox, World } from '../src/index.js';

const pump = readFileSync(new URL('./fixtures/cli/energy-pump.json', import.meta.url), 'utf8');

function watchScene(text: string, steps: number): EnergyWatch {
  const w = loadScene(text, { file: 'pump.json' }).world;
  const watch = new EnergyWatch(w);
  for (let k = 0; k < steps; k++) {
    w.step();
    watch.observe();
  }
  expect(w.stats.recoveries + w.stats.speedClamps).toBe(0);
  return watch;
}

describe('EnergyWatch', () => {
  it('catches a forward sweep pumping energy into stiff bending, and not the symmetric sweep', () => {
    const bad = watchScene(pump, 60);
    expect(bad.first).not.toBeNull();
    expect(bad.first!.name).toBe('pumped');
    // the cloth hangs from a corner: gravity can give it at most g × 2.1 m ≈ 21 J/kg
    expect(bad.first!.specificEnergy).toBeGreaterThan(bad.first!.bound);
    expect(EnergyWatch.describe(bad.first!)).toMatch(/body 'pumped' gained kinetic energy from nowhere/);
    const good = JSON.parse(pump);
    good.world.sweep = 'symmetric';
    expect(watchScene(JSON.stringify(good), 60).first).toBeNull();
  });

  it('a thrown body, a fall and a kinematic plate hitting a body are energy the scene supplies', () => {
    const w = new World({ substeps: 10 });
    w.addCollider(new PlaneCollider({ friction: 0.5 }));
    const cube = new SoftBody(w, {
      mesh: tetBox({ size: [0.2, 0.2, 0.2], resolution: [3, 3, 3], origin: [-1, 1.5, -0.1] }),
      material: { youngsModulus: 1e5, poissonRatio: 0.3 },
    });
    // thrown sideways and up at 6 m/s, from 1.5 m
    for (let i = cube.offset; i < cube.offset + cube.count; i++) w.store.v.set([4, 4.5, 0], 3 * i);
    // a plate sweeping the floor at 3 m/s
    w.addCollider(
      new BoxCollider({
        halfExtents: [0.05, 0.3, 0.5],
        position: [-2, 0.3, 0],
        motion: { velocity: [3, 0, 0] },
      }),
    );
    const watch = new EnergyWatch(w);
    for (let k = 0; k < 150; k++) {
      w.step();
      watch.observe();
    }
    expect(watch.first).toBeNull();
  });
});
