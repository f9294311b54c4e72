import { Body } from '../core/body.js';
import { bodyDensity, PbdError, requirePositiveAs } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';
import type { World } from '../core/world.js';

export interface GranularOptions {
  name?: string;
  /** The box filled with particles on a cubic lattice (m). */
  box: { min: Vec3Tuple; max: Vec3Tuple };
  /** Lattice spacing (m). */
  spacing: number;
  /** Particle radius (m). Default: half the spacing. */
  radius?: number;
  /** Density of the material (kg/m³); each particle gets density · spacing³. Default 1500. */
  density?: number;
  /** Random offset of each particle, as a fraction of the spacing (deterministic). Default 0. */
  jitter?: number;
  /** Initial velocity (m/s). */
  velocity?: Vec3Tuple;
  /** Collision group and mask bitmasks. */
  group?: number;
  mask?: number;
}

/** Largest number of particles a granular body may have. */
const MAX_PARTICLES = 1_000_000;

/**
 * A body of free particles with radii — sand, gravel, beads — held together
 * by nothing but particle–particle contact with friction (ParticleContacts)
 * and contact with colliders and surfaces.
 */
export class Granular extends Body {
  readonly type = 'granular';
  readonly spacing: number;
  readonly radius: number;

  constructor(world: World, o: GranularOptions) {
    const where = o.name ? `granular '${o.name}'` : 'granular';
    const s = o.spacing;
    requirePositiveAs(s, 'a positive length (m)', 'granular/spacing', `${where}.spacing`);
    const counts = [0, 1, 2].map((k) => {
      const ext = o.box.max[k] - o.box.min[k];
      if (!(ext >= 0) || !Number.isFinite(ext)) {
        throw new PbdError(
          'granular/box',
          `${where}.box`,
          `max must not be below min (axis ${'xyz'[k]}: ${o.box.min[k]} … ${o.box.max[k]})`,
        );
      }
      return Math.floor(ext / s + 1e-9) + 1;
    });
    const n = counts[0] * counts[1] * counts[2];
    if (n > MAX_PARTICLES) {
      throw new PbdError(
        'granular/too-many',
        `${where}.box`,
        `would hold ${n} particles (the limit is ${MAX_PARTICLES})`,
        'use a larger spacing or a smaller box',
      );
    }
    const r = o.radius ?? 0.5 * s;
    requirePositiveAs(r, 'a positive length (m)', 'granular/radius', `${where}.radius`);
    const density = bodyDensity(o.density, 1500, 'kg/m³', 'granular', where);
    super(world, o.name ?? '', n);
    this.spacing = s;
    this.radius = r;
    const store = world.store;
    const jitter = (o.jitter ?? 0) * s;
    let seed = 0x9e3779b9;
    const rnd = () => {
      // xorshift32, deterministic
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 4294967296 - 0.5;
    };
    const m = density * s * s * s;
    let i = this.offset;
    for (let iz = 0; iz < counts[2]; iz++)
      for (let iy = 0; iy < counts[1]; iy++)
        for (let ix = 0; ix < counts[0]; ix++) {
          const i3 = 3 * i;
          store.x[i3] = o.box.min[0] + ix * s + jitter * rnd();
          store.x[i3 + 1] = o.box.min[1] + iy * s + jitter * rnd();
          store.x[i3 + 2] = o.box.min[2] + iz * s + jitter * rnd();
          store.p[i3] = store.x[i3];
          store.p[i3 + 1] = store.x[i3 + 1];
          store.p[i3 + 2] = store.x[i3 + 2];
          if (o.velocity) {
            store.v[i3] = o.velocity[0];
            store.v[i3 + 1] = o.velocity[1];
            store.v[i3 + 2] = o.velocity[2];
          }
          store.setMass(i, m);
          store.radius[i] = r;
          if (o.group !== undefined) store.group[i] = o.group;
          if (o.mask !== undefined) store.mask[i] = o.mask;
          i++;
        }
  }
}
