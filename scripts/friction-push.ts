/**
 * Coulomb's law for a push (issue 15, item 6; docs/collision.md, "A push after rest"): bodies that have
 * rested 1 s on a level plane with μ = μs = 0.2 and are then pushed at v0, their slide over Coulomb's
 * distance as the engine integrates it (v0² / (2 μ g) − v0 h / 2, test/helpers/push.ts) and their
 * deceleration over μ g (over the first half of the stopping time, from 0.2 m/s). The bodies: the
 * 4-particle cloth patch of test/friction-slide (4 substeps), the boxes of test/friction-slope (20 cm,
 * 10 substeps: rigid cluster, shape-matched with compliance 10⁻⁵, FEM E = 1 MPa) and, for comparison,
 * a rigid body of src/rigid (its own contacts, Müller et al. 2020); and on a pinned particle body
 * (particle–particle contacts, test/helpers/push.ts restingOnParticles) a 2 × 2 rigid patch and the 4³
 * rigid cluster. Writes docs/collision/friction-push.csv.
 *
 *   npx tsx scripts/friction-push.ts [outDir]
 */
import { writeCsv } from '../experiments/plot.js';
import { PlaneCollider, RigidBodies, RigidBody, World } from '../src/index.js';
import {
  coulombDistance,
  G,
  type ParticlePushBody,
  type PushBody,
  push,
  pushOnParticles,
} from '../test/helpers/push.js';

const outDir = process.argv[2] ?? new URL('../docs/collision/', import.meta.url).pathname;
const MU = 0.2;
const SPEEDS = [0.05, 0.1, 0.2, 0.3, 1];

/** The rigid body of src/rigid, a 20 cm box of 500 kg/m³, rested 1 s and pushed at v0: slide over Coulomb. */
function rigidBody(v0: number): number {
  const world = new World({ substeps: 10 });
  world.addCollider(new PlaneCollider({ normal: [0, 1, 0], friction: MU }));
  RigidBodies.of(world).configure({ sleep: false });
  const box = new RigidBody(world, {
    shape: { type: 'box', halfExtents: [0.1, 0.1, 0.1] },
    position: [0, 0.1, 0],
    density: 500,
    friction: MU,
  });
  for (let f = 0; f < 60; f++) world.step();
  const x0 = box.position()[0];
  box.setLinearVelocity([v0, 0, 0]);
  for (let f = 0; f < Math.ceil((v0 / (MU * G) + 0.5) * 60); f++) world.step();
  return (box.position()[0] - x0) / coulombDistance(v0, MU, 1 / 600);
}

const bodies: [string, PushBody | { on: ParticlePushBody } | null][] = [
  ['cloth patch (4 particles)', 'patch'],
  ['rigid cluster', 'rigid'],
  ['shape-matched, compliance 1e-5', 'shape'],
  ['FEM box, E = 1 MPa', 'fem'],
  ['rigid body (src/rigid)', null],
  ['2 x 2 rigid patch on particles', { on: 'patch' }],
  ['rigid cluster on particles', { on: 'rigid' }],
];
const rows: Record<string, number | string>[] = [];
for (const [name, kind] of bodies) {
  const cells: string[] = [];
  for (const v0 of SPEEDS) {
    if (kind === null) {
      const slide = rigidBody(v0);
      rows.push({ body: name, v0, slide: Number(slide.toFixed(4)), deceleration: '' });
      cells.push(`${slide.toFixed(3)}`);
      continue;
    }
    const r = typeof kind === 'string' ? push(kind, v0, MU) : pushOnParticles(kind.on, v0, MU);
    const slide = r.distance / coulombDistance(v0, MU, r.h);
    const dec = r.deceleration / (MU * G);
    rows.push({
      body: name,
      v0,
      slide: Number(slide.toFixed(4)),
      deceleration: Number.isNaN(dec) ? '' : Number(dec.toFixed(4)),
    });
    cells.push(`${slide.toFixed(3)}${Number.isNaN(dec) ? '' : ` (a ${dec.toFixed(3)})`}`);
  }
  console.log(`${name.padEnd(32)} ${cells.join(' | ')}`);
}
console.log(writeCsv(outDir, 'friction-push', rows));
