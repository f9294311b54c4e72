import { readFileSync } from 'node:fs';
import RAPIER from '@dimforge/rapier3d-compat';
import { boxPyramid, loadScene, PlaneCollider, RigidBodies, World } from '../../src/index.js';
import type { BenchCase, BenchInstance } from '../harness.js';
import type { PeerInstance } from '../peers/peer.js';

await RAPIER.init();

/** How far a body moved (m). */
const moved = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * rigid-pyramid-55 (issue 17): a pyramid of 55 unit boxes (10 rows, 2 cm
 * gaps within a row, μ = 0.6, 1000 kg/m³) settling on the ground, 1/60 s
 * frames of 20 substeps, sleeping off; and Rapier (the compat build's wasm)
 * with the same pyramid at its default solver settings, as the case's peer
 * (frames interleaved). After the run the row says how far each top box
 * moved: a pyramid stands while that stays under 1 cm. (Rigid boxes have
 * no edge stretch: both engines' stretch is 0.)
 */
const rapierTop = { moved: Number.NaN };

function rapierPyramid(): PeerInstance {
  const rw = new RAPIER.World({ x: 0, y: -9.81, z: 0 });
  rw.timestep = 1 / 60;
  rw.createCollider(RAPIER.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0).setFriction(0.6));
  const bodies: RAPIER.RigidBody[] = [];
  const layers = 10,
    gap = 0.02;
  for (let row = 0; row < layers; row++) {
    const n = layers - row;
    for (let k = 0; k < n; k++) {
      const x = (k - (n - 1) / 2) * (1 + gap);
      const body = rw.createRigidBody(
        RAPIER.RigidBodyDesc.dynamic()
          .setTranslation(x, 0.5 + row, 0)
          .setCanSleep(false),
      );
      rw.createCollider(RAPIER.ColliderDesc.cuboid(0.5, 0.5, 0.5).setDensity(1000).setFriction(0.6), body);
      bodies.push(body);
    }
  }
  const top = bodies[bodies.length - 1];
  const top0 = top.translation();
  const positions = new Float64Array(3 * bodies.length);
  return {
    step: () => {
      rw.step();
      const t = top.translation();
      rapierTop.moved = moved([t.x, t.y, t.z], [top0.x, top0.y, top0.z]);
    },
    positions: () => {
      bodies.forEach((b, i) => {
        const t = b.translation();
        positions.set([t.x, t.y, t.z], 3 * i);
      });
      return positions;
    },
    quality: () => ({ maxStretch: 0, meanStretch: 0, finite: Number.isFinite(rapierTop.moved) }),
  };
}

function pyramid(): BenchInstance {
  const world = new World({ dt: 1 / 60, substeps: 20 });
  world.addCollider(new PlaneCollider({ friction: 0.6 }));
  RigidBodies.of(world).configure({ sleep: false });
  const boxes = boxPyramid(world, { layers: 10, size: 1, friction: 0.6 });
  const top = boxes[boxes.length - 1];
  const top0 = top.position();
  const verdict = (d: number) => `${(d * 1000).toFixed(2)} mm (${d < 0.01 ? 'standing' : 'FELL'})`;
  return {
    step: () => world.step(),
    get info() {
      return `${boxes.length} boxes; top box moved: pbdkit ${verdict(moved(top.position(), top0))}, Rapier ${verdict(rapierTop.moved)}`;
    },
  };
}

/** A scene file as a benchmark: its world stepped frame by frame. */
function scene(file: string): () => { step(): void; info: string } {
  return () => {
    const url = new URL(`../../../scenes/${file}`, import.meta.url); // lib/bench/cases → scenes
    const inst = loadScene(readFileSync(url, 'utf8'), { file });
    return {
      step: () => inst.world.step(),
      info: `${inst.world.store.count} particles, ${inst.world.rigids.count} rigid bodies`,
    };
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
    peers: [
      {
        name: 'Rapier',
        what: '@dimforge/rapier3d-compat 0.21 (wasm), default solver settings, the same 55 boxes, sleeping off',
        setup: rapierPyramid,
        targetRatio: 2,
      },
    ],
  },
  {
    name: 'cloth-rigid-tear',
    description:
      '003 Figure 10 (scenes/rigid-tear.json): a 32 × 32 sheet torn by an attached rigid cube and a thrown rigid ball, coupled two ways, 10 substeps, the first 2 s',
    setup: scene('rigid-tear.json'),
    steps: 120,
    warmup: 0,
    target: { msPerStep: 10, reference: 'issue 17' },
  },
];
