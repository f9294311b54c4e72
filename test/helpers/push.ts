/**
 * A body at rest on a level plane and then pushed (issue 15, item 6; docs/collision.md, "A push after
 * rest"), shared by test/friction-push.test.ts and scripts/friction-push.ts: Coulomb's law says it
 * slides v0² / (2 μ g) and decelerates at μ g, however long it rested.
 */
import { buildScene, ParticleContacts, rigidCluster, World, type WorldBody } from '../../src/index.js';
import { cubeLattice } from '../helpers.js';
import { boxOnSlope } from './slope.js';

export const G = 9.81;

/** The bodies pushed: test/friction-slide's 4-particle cloth patch, and the boxes of test/helpers/slope.ts. */
export type PushBody = 'patch' | 'rigid' | 'shape' | 'fem';

/** test/friction-slide's patch: a 2 × 2-particle cloth (5 cm) on a level plane with friction μ, 4 substeps. */
export function restingPatch(mu: number, iterations: number): World {
  return buildScene({
    title: 'push',
    world: { dt: 1 / 60, substeps: 4, iterations },
    colliders: [{ type: 'plane', name: 'floor', friction: mu, margin: 0 }],
    bodies: [
      {
        type: 'cloth',
        name: 'patch',
        mesh: { grid: { width: 0.05, height: 0.05, cols: 2, rows: 2, plane: 'xz' } },
        transform: { translate: [0, 0.0125, 0] },
        density: 5,
        radius: 0.0125,
        stretch: { compliance: 0 },
      },
    ],
  } as never).world;
}

/** A body of the given kind resting on a level plane with μ = μs = mu (10 substeps; the patch 4, as test/friction-slide). */
function restingBody(kind: PushBody, mu: number): { world: World; body: WorldBody } {
  if (kind === 'patch') {
    const world = restingPatch(mu, 1);
    return { world, body: world.bodies[0] };
  }
  const { world, body } = boxOnSlope(kind === 'shape' ? 'rigid' : kind, 0, {
    mu,
    compliance: kind === 'shape' ? 1e-5 : 0,
  });
  return { world, body };
}

/** Mean x position and x velocity of a body's particles. */
function meanX(world: World, body: WorldBody): [number, number] {
  const { x, v } = world.store;
  let px = 0,
    vx = 0;
  for (let i = body.offset; i < body.offset + body.count; i++) {
    px += x[3 * i];
    vx += v[3 * i];
  }
  return [px / body.count, vx / body.count];
}

export interface PushResult {
  /** How far the body's centre slid along x (m). */
  distance: number;
  /** Its mean deceleration over the first half of Coulomb's stopping time (m/s²), or NaN when that is under 2 frames. */
  deceleration: number;
  /** The substep length h (s). */
  h: number;
}

/**
 * Rests the body `rest` s on the plane, sets every particle's x velocity to v0 and lets it slide until
 * Coulomb's stopping time v0 / (μ g) plus 0.5 s has passed.
 */
export function push(kind: PushBody, v0: number, mu = 0.2, rest = 1): PushResult {
  return pushBody(restingBody(kind, mu), v0, mu, rest);
}

function pushBody(
  { world, body }: { world: World; body: WorldBody },
  v0: number,
  mu: number,
  rest: number,
): PushResult {
  const dt = world.dt;
  for (let k = 0; k < Math.round(rest / dt); k++) world.step();
  const v = world.store.v;
  for (let i = body.offset; i < body.offset + body.count; i++) v[3 * i] = v0;
  const [x0] = meanX(world, body);
  const stop = v0 / (mu * G);
  const half = Math.floor(stop / 2 / dt);
  let deceleration = Number.NaN;
  const frames = Math.ceil((stop + 0.5) / dt);
  for (let f = 1; f <= frames; f++) {
    world.step();
    if (f === half && half >= 2) deceleration = (v0 - meanX(world, body)[1]) / (f * dt);
  }
  return { distance: meanX(world, body)[0] - x0, deceleration, h: dt / world.substeps };
}

/**
 * Coulomb's sliding distance as the engine integrates it: the velocity falls by μ g h per substep and
 * each substep moves the body by its new velocity times h (symplectic Euler), so the distance is
 * h Σ_{k ≥ 1} max(v0 − k μ g h, 0) = v0² / (2 μ g) − v0 h / 2 + O(μ g h²), the analytic v0² / (2 μ g)
 * as h → 0.
 */
export function coulombDistance(v0: number, mu: number, h: number): number {
  const a = mu * G * h;
  let d = 0;
  for (let k = 1; v0 - k * a > 0; k++) d += (v0 - k * a) * h;
  return d;
}

/** Bodies pushed on a particle body (particle–particle contacts): a 2 × 2 rigid-cluster patch and test/particle-friction-slope's 4³ box. */
export type ParticlePushBody = 'patch' | 'rigid';

/**
 * A rigid cluster (000 §4.1) resting on a pinned particle body with μ = μs = mu on both (the contact's
 * μ is their mean): the body underneath is one particle of radius 1 km, whose top is a plane to within
 * 0.1 mm over the few centimetres the body slides (test/particle-friction-slope). 'patch' is 2 × 2
 * particles of radius 1.25 cm in one layer, 'rigid' the 4³ box 20 cm across (10 substeps). Gravity may
 * be tilted (test/particle-friction-slope: the same as a slope).
 */
export function restingOnParticles(
  kind: ParticlePushBody,
  mu: number,
  gravity: [number, number, number] = [0, -G, 0],
): { world: World; body: WorldBody } {
  const world = new World({ substeps: 10, gravity });
  const BIG = 1000;
  const ground = rigidCluster(world, {
    name: 'ground',
    positions: new Float64Array([0, -BIG, 0]),
    masses: 1000,
    radius: BIG,
  });
  ground.pin(0);
  const R = kind === 'patch' ? 0.0125 : 0.025;
  const positions =
    kind === 'patch' ? new Float64Array([-R, R, -R, R, R, -R, -R, R, R, R, R, R]) : cubeLattice(4, 2 * R, R);
  const body = rigidCluster(world, { name: kind, positions, masses: 0.1, radius: R });
  const contacts = ParticleContacts.of(world);
  contacts.addBody(ground, { self: false, friction: mu });
  contacts.addBody(body, { self: false, friction: mu });
  return { world, body };
}

/** As push, for a body resting on a particle body (restingOnParticles). */
export function pushOnParticles(kind: ParticlePushBody, v0: number, mu = 0.2, rest = 1): PushResult {
  return pushBody(restingOnParticles(kind, mu), v0, mu, rest);
}
