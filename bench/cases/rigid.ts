import RAPIER from '@dimforge/rapier3d-compat';
import { boxPyramid, PlaneCollider, RigidBodies, World } from '../../src/index.js';
import type { BenchCase } from '../harness.js';

await RAPIER.init();

/** How far a body moved (m). */
const moved = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * rigid-pyramid-55 (issue 17): a pyramid of 55 unit boxes (10 rows, 2 cm
 * gaps within a row, μ = 0.6, 1000 kg/m³) settling on the ground, 1/60 s
 * frames of 20 substeps, sleeping off; and Rapier (the compat build's wasm)
 * with the same pyramid at its default solver settings, its frames
 * interleaved with ours. After the run each reports how far its top box
 * moved: the pyramid stands while that stays under 1 cm.
 */
function pyramid() {
  const world = new World({ dt: 1 / 60, substeps: 20 });
  world.addCollider(new PlaneCollider({ friction: 0.6 }));
  RigidBodies.of(world).configure({ sleep: false });
  const boxes = boxPyramid(world, { layers: 10, size: 1, friction: 0.6 });
  const top = boxes[boxes.length - 1];
  const top0 = top.position();

  const rw = new RAPIER.World({ x: 0, y: -9.81, z: 0 });
  rw.timestep = 1 / 60;
  rw.createCollider(RAPIER.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0).setFriction(0.6));
  let rTop: RAPIER.RigidBody | null = null;
  for (const b of boxes) {
    const p = b.position();
    const body = rw.createRigidBody(
      RAPIER.RigidBodyDesc.dynamic().setTranslation(p[0], p[1], p[2]).setCanSleep(false),
    );
    rw.createCollider(RAPIER.ColliderDesc.cuboid(0.5, 0.5, 0.5).setDensity(1000).setFriction(0.6), body);
    rTop = body;
  }
  const rTop0 = rTop!.translation();
  return {
    step: () => world.step(),
    reference: { name: 'Rapier', step: () => rw.step() },
    get info() {
      const ours = moved(top.position(), top0);
      const t = rTop!.translation();
      const theirs = moved([t.x, t.y, t.z], [rTop0.x, rTop0.y, rTop0.z]);
      const verdict = (d: number) => `${(d * 1000).toFixed(2)} mm (${d < 0.01 ? 'standing' : 'FELL'})`;
      return `${boxes.length} boxes; top box moved: pbdkit ${verdict(ours)}, Rapier ${verdict(theirs)}`;
    },
  };
}

export const cases: BenchCase[] = [
  {
    name: 'rigid-pyramid-55',
    description:
      'a pyramid of 55 boxes settling on the ground, 20 substeps per 1/60 s frame, single-threaded, sleeping off; Rapier on the same pyramid, interleaved',
    setup: pyramid,
    steps: 200,
    warmup: 50,
    target: { msPerStep: 2, reference: 'Rapier (@dimforge/rapier3d-compat) on the same pyramid: within 2×' },
  },
];
