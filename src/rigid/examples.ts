/**
 * Rigid-body scenes built in code: a pyramid and a tower of boxes (the
 * stacking tests and the rigid-pyramid-55 benchmark) and a ragdoll of
 * capsules and a sphere held by ball and hinge joints with limits. The
 * scene-file format for rigid bodies is to come; these are what it will
 * describe.
 */
import type { Vec3Tuple } from '../core/motion.js';
import type { World } from '../core/world.js';
import { createJoint, RigidBody, type RigidJoint } from './rigid-body.js';

/** A cube of side s at `position`. */
function cube(world: World, s: number, position: Vec3Tuple, friction: number, name: string): RigidBody {
  return new RigidBody(world, {
    shape: { type: 'box', halfExtents: [s / 2, s / 2, s / 2] },
    position,
    friction,
    name,
  });
}

/** A pyramid of boxes: `layers` rows, the lowest `layers` boxes wide, in the xy plane, resting on y = 0. */
export function boxPyramid(
  world: World,
  o: { layers?: number; size?: number; gap?: number; origin?: Vec3Tuple; friction?: number } = {},
): RigidBody[] {
  const layers = o.layers ?? 10;
  const s = o.size ?? 1;
  const gap = o.gap ?? 0.02 * s;
  const [ox, oy, oz] = o.origin ?? [0, 0, 0];
  const bodies: RigidBody[] = [];
  for (let row = 0; row < layers; row++) {
    const n = layers - row;
    for (let k = 0; k < n; k++) {
      const x = ox + (k - (n - 1) / 2) * (s + gap);
      bodies.push(cube(world, s, [x, oy + s / 2 + row * s, oz], o.friction ?? 0.6, `box ${row}.${k}`));
    }
  }
  return bodies;
}

/** A tower of `count` boxes stacked on y = 0. */
export function boxTower(
  world: World,
  o: { count?: number; size?: number; origin?: Vec3Tuple } = {},
): RigidBody[] {
  const count = o.count ?? 10;
  const s = o.size ?? 1;
  const [ox, oy, oz] = o.origin ?? [0, 0, 0];
  const bodies: RigidBody[] = [];
  for (let k = 0; k < count; k++) {
    bodies.push(cube(world, s, [ox, oy + s / 2 + k * s, oz], 0.6, `box ${k}`));
  }
  return bodies;
}

/** The parts and joints of a ragdoll. */
export interface Ragdoll {
  bodies: Record<string, RigidBody>;
  joints: Record<string, RigidJoint>;
}

/**
 * A ragdoll about 1.8 m tall standing at `origin` (feet at its y): a sphere
 * head, capsule torso, upper and lower arms and legs; ball joints with swing
 * and twist limits at the neck, shoulders and hips, hinges with angle limits
 * at the elbows and knees. Joined parts do not collide with each other.
 */
export function ragdoll(world: World, o: { origin?: Vec3Tuple; density?: number } = {}): Ragdoll {
  const [ox, oy, oz] = o.origin ?? [0, 0, 0];
  const density = o.density ?? 1000;
  const at = (x: number, y: number, z: number): Vec3Tuple => [ox + x, oy + y, oz + z];
  const capsule = (name: string, r: number, len: number, p: Vec3Tuple) =>
    new RigidBody(world, {
      shape: { type: 'capsule', radius: r, halfHeight: len / 2 },
      position: p,
      density,
      friction: 0.6,
      name,
    });
  const head = new RigidBody(world, {
    shape: { type: 'sphere', radius: 0.11 },
    position: at(0, 1.68, 0),
    density,
    name: 'head',
  });
  const torso = capsule('torso', 0.15, 0.35, at(0, 1.225, 0));
  const parts: Record<string, RigidBody> = { head, torso };
  const joints: Record<string, RigidJoint> = {};
  // ball joints about the bone's axis with swing and twist limits, hinges about x with angle limits
  const ball = (A: RigidBody, B: RigidBody, anchor: Vec3Tuple, up: number, swing: number, twist: number) =>
    createJoint(world, {
      type: 'ball',
      bodyA: A,
      bodyB: B,
      anchor,
      axis: [0, up, 0],
      swing,
      twist: [-twist, twist],
    });
  const hinge = (A: RigidBody, B: RigidBody, anchor: Vec3Tuple, limits: [number, number]) =>
    createJoint(world, { type: 'hinge', bodyA: A, bodyB: B, anchor, axis: [1, 0, 0], limits });
  joints.neck = ball(torso, head, at(0, 1.56, 0), 1, 0.6, 0.8);
  for (const side of [-1, 1]) {
    const tag = side < 0 ? 'left' : 'right';
    const upperArm = capsule(`${tag} upper arm`, 0.05, 0.22, at(side * 0.22, 1.3, 0));
    const lowerArm = capsule(`${tag} lower arm`, 0.045, 0.2, at(side * 0.22, 1.0, 0));
    const thigh = capsule(`${tag} thigh`, 0.075, 0.3, at(side * 0.1, 0.7, 0));
    const shin = capsule(`${tag} shin`, 0.06, 0.3, at(side * 0.1, 0.27, 0));
    parts[`${tag} upper arm`] = upperArm;
    parts[`${tag} lower arm`] = lowerArm;
    parts[`${tag} thigh`] = thigh;
    parts[`${tag} shin`] = shin;
    joints[`${tag} shoulder`] = ball(torso, upperArm, at(side * 0.22, 1.46, 0), -1, 1.4, 1);
    joints[`${tag} elbow`] = hinge(upperArm, lowerArm, at(side * 0.22, 1.15, 0), [-2.4, 0]);
    joints[`${tag} hip`] = ball(torso, thigh, at(side * 0.1, 0.9, 0), -1, 1.2, 0.5);
    joints[`${tag} knee`] = hinge(thigh, shin, at(side * 0.1, 0.49, 0), [0, 2.4]);
  }
  return { bodies: parts, joints };
}
