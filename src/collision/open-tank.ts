import { PbdError } from '../core/errors.js';
import type { MotionSpec, Vec3Tuple } from '../core/motion.js';
import type { World } from '../core/world.js';
import { type ColliderOptions, PlaneCollider } from './colliders.js';

/** Options of an open tank: those of its planes, and a motion for its wall at x = 0. */
export interface OpenTankOptions extends Omit<ColliderOptions, 'position' | 'rotation' | 'motion'> {
  /** Scripted motion of the wall at x = 0 (a wave maker); the others stay put. */
  wallMotion?: MotionSpec;
}

/**
 * Adds an open tank of five plane colliders to the world, in this order: the
 * floor y = 0 and the walls x = 0, x = lx, z = 0 and z = lz, each facing
 * inwards (a pool for fluids, as in the fluid tests, experiments and
 * benchmarks). Returns the planes.
 */
export function addOpenTank(
  world: World,
  lx: number,
  lz: number,
  options: OpenTankOptions = {},
): PlaneCollider[] {
  for (const [name, v] of [
    ['lx', lx],
    ['lz', lz],
  ] as const) {
    if (!(Number.isFinite(v) && v > 0))
      throw new PbdError(
        'collider/invalid',
        `tank.${name}`,
        `${v} is not a size`,
        'give a positive length in metres',
      );
  }
  const { wallMotion, ...plane } = options;
  const planes: [Vec3Tuple, Vec3Tuple][] = [
    [
      [0, 1, 0],
      [0, 0, 0],
    ],
    [
      [1, 0, 0],
      [0, 0, 0],
    ],
    [
      [-1, 0, 0],
      [lx, 0, 0],
    ],
    [
      [0, 0, 1],
      [0, 0, 0],
    ],
    [
      [0, 0, -1],
      [0, 0, lz],
    ],
  ];
  return planes.map(([normal, position], k) => {
    const c = new PlaneCollider(
      { ...plane, normal, position, motion: k === 1 ? wallMotion : undefined },
      `tank.planes[${k}]`,
    );
    world.addCollider(c);
    return c;
  });
}
