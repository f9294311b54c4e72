import { PbdError } from './errors.js';

/**
 * The particle store: every simulated point of a World, in flat typed arrays.
 *
 * Layout (see docs/architecture.md): positions, predicted positions and
 * velocities are xyz-interleaved Float64Arrays of length 3·capacity; per
 * particle scalars are Float64Array / Int32Array of length capacity. A body
 * is a contiguous range [offset, offset + count) of the store.
 *
 * Arrays are replaced when the store grows (tearing and emitters add
 * particles), so code must read `store.x` etc. afresh at the start of each
 * pass and never keep them across steps. `version` increases on every
 * reallocation so adapters (three.js, workers) know to re-bind.
 */
export class ParticleStore {
  /** Number of particles in use. */
  count = 0;
  /** Number of particles the arrays can hold. */
  capacity: number;
  /** Increases whenever the arrays are reallocated. */
  version = 0;
  /** Allocate on SharedArrayBuffer (for workers) when available. */
  readonly shared: boolean;

  /** Positions x (start of step), xyz interleaved. */
  x!: Float64Array;
  /** Predicted positions p (what constraints project), xyz interleaved. */
  p!: Float64Array;
  /** Velocities v, xyz interleaved. */
  v!: Float64Array;
  /** Mass m (kg). Kept even when a particle is pinned. */
  mass!: Float64Array;
  /** Inverse mass w = 1/m; 0 means the particle never moves under constraints (pinned, kinematic). */
  invMass!: Float64Array;
  /** Contact radius (m), used by particle contacts and fluids; 0 for plain mesh vertices. */
  radius!: Float64Array;
  /** Id of the owning body. */
  body!: Int32Array;
  /** Collision group bitmask of the particle (which groups it belongs to). */
  group!: Int32Array;
  /** Collision mask (which groups it collides with). */
  mask!: Int32Array;

  constructor(capacity = 1024, options: { shared?: boolean } = {}) {
    this.shared = !!options.shared && typeof SharedArrayBuffer !== 'undefined';
    this.capacity = Math.max(16, capacity | 0);
    this.allocateArrays(this.capacity, 0);
  }

  /**
   * A Float64Array of n zeros on the store's kind of memory (shared when the
   * store is), for per-body arrays a worker's page reads in place, such as
   * embedded render meshes.
   */
  float64(n: number): Float64Array {
    return this.f64(n);
  }

  private f64(n: number): Float64Array {
    return this.shared ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(n);
  }

  private i32(n: number): Int32Array {
    return this.shared ? new Int32Array(new SharedArrayBuffer(n * 4)) : new Int32Array(n);
  }

  private allocateArrays(capacity: number, keep: number): void {
    const old = this.x
      ? {
          x: this.x,
          p: this.p,
          v: this.v,
          mass: this.mass,
          invMass: this.invMass,
          radius: this.radius,
          body: this.body,
          group: this.group,
          mask: this.mask,
        }
      : null;
    this.x = this.f64(3 * capacity);
    this.p = this.f64(3 * capacity);
    this.v = this.f64(3 * capacity);
    this.mass = this.f64(capacity);
    this.invMass = this.f64(capacity);
    this.radius = this.f64(capacity);
    this.body = this.i32(capacity);
    this.group = this.i32(capacity);
    this.mask = this.i32(capacity);
    if (old) {
      this.x.set(old.x.subarray(0, 3 * keep));
      this.p.set(old.p.subarray(0, 3 * keep));
      this.v.set(old.v.subarray(0, 3 * keep));
      this.mass.set(old.mass.subarray(0, keep));
      this.invMass.set(old.invMass.subarray(0, keep));
      this.radius.set(old.radius.subarray(0, keep));
      this.body.set(old.body.subarray(0, keep));
      this.group.set(old.group.subarray(0, keep));
      this.mask.set(old.mask.subarray(0, keep));
    }
    this.capacity = capacity;
    this.version++;
  }

  /**
   * Reserves `n` new particles and returns the index of the first. New
   * particles have zero mass and inverse mass, zero position and velocity,
   * group 1 and mask all-ones; the caller fills them.
   */
  allocate(n: number, bodyId: number): number {
    if (!(n >= 0) || !Number.isInteger(n)) {
      throw new PbdError('particles/bad-count', 'ParticleStore.allocate', `cannot allocate ${n} particles`);
    }
    const start = this.count;
    const needed = start + n;
    if (needed > this.capacity) {
      let cap = this.capacity;
      while (cap < needed) cap *= 2;
      this.allocateArrays(cap, start);
    }
    for (let i = start; i < needed; i++) {
      this.x[3 * i] = this.x[3 * i + 1] = this.x[3 * i + 2] = 0;
      this.p[3 * i] = this.p[3 * i + 1] = this.p[3 * i + 2] = 0;
      this.v[3 * i] = this.v[3 * i + 1] = this.v[3 * i + 2] = 0;
      this.mass[i] = 0;
      this.invMass[i] = 0;
      this.radius[i] = 0;
      this.body[i] = bodyId;
      this.group[i] = 1;
      this.mask[i] = -1;
    }
    this.count = needed;
    return start;
  }

  /** Sets the mass of particle i (m > 0, or Infinity for an immovable particle). */
  setMass(i: number, m: number): void {
    if (!(m > 0)) {
      throw new PbdError(
        'particles/non-positive-mass',
        `particle ${i}`,
        `mass must be > 0, got ${m}`,
        'give the body a positive density or mass, or pin the particle instead of giving it zero mass',
      );
    }
    this.mass[i] = m;
    this.invMass[i] = Number.isFinite(m) ? 1 / m : 0;
  }
}
