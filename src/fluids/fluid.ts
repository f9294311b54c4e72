import { Body, type Tunable } from '../core/body.js';
import { PbdError, requireParticle, requirePositive, requirePositiveAs } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';
import type { World } from '../core/world.js';
import { FluidSolidContacts } from './contacts.js';
import { FluidDensity } from './density.js';
import { type EmitterOptions, FluidEmitter } from './emitter.js';
import type { FluidBody, FluidCoupling } from './fluid-body.js';
import { autoRelaxation, latticeSums } from './kernels.js';
import {
  UNIFORM_GROUP,
  UNIFORM_INV_MASS,
  UNIFORM_MASK,
  UNIFORM_MASS,
  UNIFORM_RADIUS,
  uniformBits,
} from './row-tasks.js';

/** A box filled with fluid particles on a cubic lattice. */
export interface FluidBlock {
  /** Min corner (m). */
  min: Vec3Tuple;
  /** Max corner (m). */
  max: Vec3Tuple;
  /** Initial velocity (m/s). Default 0. */
  velocity?: Vec3Tuple;
}

/** The artificial pressure of PBF §4 (eq. 13): s_corr = −k (W(p_i − p_j) / W(Δq))ⁿ. */
export interface ArtificialPressure {
  /** k. Default 0.1 (the paper's value). */
  k?: number;
  /** n. Default 4 (the paper's value). */
  n?: number;
  /** |Δq| as a fraction of the kernel radius. Default 0.2 (the paper: 0.1 … 0.3). */
  deltaQ?: number;
}

export type { FluidCoupling } from './fluid-body.js';

export interface FluidOptions {
  name?: string;
  /** Particle spacing d (m): the fluid's resolution. Every other length defaults to a multiple of it. */
  spacing: number;
  /** Rest density ρ0 (kg/m³). Default 1000 (water). */
  restDensity?: number;
  /** SPH kernel radius h (m). Default 2d. */
  kernelRadius?: number;
  /** Boxes to fill with particles. */
  blocks?: FluidBlock[];
  /** Extra particles, xyz interleaved (m). */
  positions?: ArrayLike<number>;
  /** Stream emitters. */
  emitters?: EmitterOptions[];
  /**
   * Particles reserved for the fluid, ≥ the initial ones; emitters fill the
   * spares. Default: the initial particles plus what the emitters emit over
   * their lives (16,384 for an emitter without an end time).
   */
  capacity?: number;
  /**
   * Relaxation ε of the multiplier (PBF eq. 11, m⁻², the constraint-force-mixing term).
   * Default: the least ε with which the Jacobi solve cannot feed energy into the fluid at the
   * world's iteration count (autoRelaxation: 0.48 S0 at an even count, 1.82 S0 at an odd
   * one, h = 2d), where S0 = Σ_j |∇_{p_j} C_i|² of a particle inside a rest lattice.
   */
  relaxation?: number;
  /**
   * Unilateral density constraint C_i = max(ρ_i/ρ0 − 1, 0): particles are only pushed apart,
   * never pulled together, so a free surface (whose density is short of ρ0) does not clump.
   * Default true; false is the bilateral constraint of PBF eq. 1.
   */
  unilateral?: boolean;
  /**
   * Artificial pressure s_corr (PBF §4, eq. 13), measured from the rest spacing: it acts on pairs
   * closer than d, so a rest lattice feels none; false disables it.
   */
  artificialPressure?: ArtificialPressure | false;
  /** XSPH viscosity c (PBF §5, eq. 17), dimensionless. Default 0.01 (the paper's value). */
  viscosity?: number;
  /** Vorticity confinement ε (PBF §5, eq. 16), m/s. Default 0 (off). */
  vorticity?: number;
  /** Bodies the fluid pushes and is pushed by. Default 'all' (every body that is not a fluid). */
  couple?: FluidCoupling;
  /**
   * Static boundary particles, xyz interleaved (m): they bound the fluid like a wall that
   * contributes to its density (Akinci et al. 2012). Sample them about d apart.
   */
  boundaryParticles?: ArrayLike<number>;
  /** Collision group and mask bitmasks of the particles. */
  group?: number;
  mask?: number;
  /** Where errors say the options came from (e.g. a scene's JSON path). Default `fluid '<name>'`. */
  where?: string;
}

/**
 * Position based fluids (Macklin & Müller 2013; 000 §3.4.6): particles that
 * keep their SPH density at the rest density ρ0 through one density
 * constraint each, C_i = ρ_i/ρ0 − 1, solved with the other constraints of the
 * world.
 *
 * Parameters are in physical units. The particle mass is set so that a
 * cubic lattice of spacing d has exactly the rest density inside,
 * m = ρ0 / Σ_j W(x_j); particles have contact radius d/2.
 *
 * Particles are kept sorted by grid cell for cache locality: every substep,
 * right after the neighbour search (beginStep at order −1, before any other
 * set builds its per-substep index lists), the fluid reorders its own range
 * of the particle store — never other bodies'. `ids` gives each slot's
 * particle id (stable from creation), `slotOf` the inverse;
 * `particleIndex(id)` is the store index of a particle now, and
 * `positionsById()` reads positions in id order. Reordering pauses while any
 * fluid particle is attached (pinned or dragged), because attachments refer
 * to store indices.
 */
export class Fluid extends Body implements FluidBody {
  readonly type = 'fluid';
  readonly spacing: number;
  readonly restDensity: number;
  readonly kernelRadius: number;
  readonly particleMass: number;
  /** Contact radius of the particles (m) = d/2. */
  readonly particleRadius: number;
  /** Σ_j |∇_{p_j} C_i|² of a particle inside a rest lattice (m⁻²): the natural scale of ε and s_corr. */
  readonly restGradientSquared: number;
  /** Neighbours of a particle inside a rest lattice. */
  readonly restNeighbours: number;
  /** The relaxation option (m⁻²), or null for the automatic value (see `relaxation`). */
  relaxationOption: number | null;
  /** μ̂ of the rest lattice (latticeSums): how far one Jacobi step overshoots its most responsive mode. */
  readonly restJacobiRadius: number;
  unilateral: boolean;
  /** s_corr k (0 disables), n and |Δq|/h. */
  artificialPressureK: number;
  artificialPressureN: number;
  artificialPressureDeltaQ: number;
  viscosity: number;
  vorticity: number;
  /** Fluid particles the range can hold (the rest of the range are boundary particles). */
  readonly capacity: number;
  /** Static boundary particles, stored after the fluid particles. */
  readonly boundaryCount: number;
  readonly emitters: FluidEmitter[];
  couple: FluidCoupling;
  /** Particle id of each slot (slot = store index − offset). */
  readonly ids: Int32Array;
  /** Slot of each particle id. */
  readonly slotOf: Int32Array;
  /** The density solver (Jacobi, PBF Algorithm 1 lines 9–19) and the velocity post-process. */
  readonly density: FluidDensity;
  /** Contacts of the fluid particles with the particles of coupled bodies. */
  readonly contacts: FluidSolidContacts;
  /** Times the range was reordered (statistics). */
  reorders = 0;
  private active: number;
  private readonly groupBits: number;
  private readonly maskBits: number;

  constructor(world: World, o: FluidOptions) {
    const where = o.where ?? `fluid '${o.name ?? `body${world.bodies.length}`}'`;
    const d = o.spacing;
    requirePositiveAs(
      d,
      'a positive length (m)',
      'fluid/spacing',
      `${where}.spacing`,
      'e.g. 0.02 for 2 cm particles',
    );
    const rho0 = o.restDensity ?? 1000;
    requirePositive(rho0, '(kg/m³)', 'fluid/rest-density', `${where}.restDensity`);
    const h = o.kernelRadius ?? 2 * d;
    if (!(h > d) || !(h <= 5 * d)) {
      throw new PbdError(
        'fluid/kernel-radius',
        `${where}.kernelRadius`,
        `must lie in (d, 5d] = (${d}, ${5 * d}], got ${h}`,
        'the kernel must reach the nearest neighbours; 2d (the default) gives about 32 neighbours',
      );
    }
    const initial = collectInitialPositions(o, d, where);
    const emitters = (o.emitters ?? []).map((e, k) => new FluidEmitter(e, d, `${where}.emitters[${k}]`));
    let capacity = initial.length / 3;
    if (o.capacity !== undefined) {
      if (!Number.isInteger(o.capacity) || o.capacity < capacity) {
        throw new PbdError(
          'fluid/capacity',
          `${where}.capacity`,
          `must be an integer ≥ the ${capacity} initial particles, got ${o.capacity}`,
        );
      }
      capacity = o.capacity;
    } else {
      for (const e of emitters) capacity += Math.min(16384, e.totalParticles(d));
    }
    if (capacity === 0) {
      throw new PbdError(
        'fluid/empty',
        where,
        'has no particles and no emitter',
        'add blocks, positions or an emitter',
      );
    }
    const boundary = o.boundaryParticles ?? [];
    if (boundary.length % 3 !== 0) {
      throw new PbdError(
        'fluid/boundary',
        `${where}.boundaryParticles`,
        `has ${boundary.length} numbers, not a multiple of 3`,
      );
    }
    for (let k = 0; k < boundary.length; k++) {
      if (!Number.isFinite(boundary[k]))
        throw new PbdError('fluid/boundary', `${where}.boundaryParticles[${k}]`, 'must be finite');
    }
    const nb = boundary.length / 3;
    super(world, o.name ?? '', capacity + nb);
    this.spacing = d;
    this.restDensity = rho0;
    this.kernelRadius = h;
    const sums = latticeSums(d, h);
    // 000 §3.4.6: ρ_i = Σ_j m_j W(p_i − p_j, h); a rest lattice has ρ = ρ0 exactly
    this.particleMass = rho0 / sums.density;
    this.restNeighbours = sums.neighbours;
    // ∇_{p_j} C_i = −(m/ρ0) ∇W; inside a lattice Σ_j ∇W = 0, so S0 = (m/ρ0)² Σ_j |∇W|²
    this.restGradientSquared = (this.particleMass / rho0) ** 2 * sums.gradientSquared;
    this.particleRadius = 0.5 * d;
    this.unilateral = o.unilateral ?? true;
    this.restJacobiRadius = sums.jacobiRadius;
    // ε defaults to what keeps the Jacobi solve from feeding energy into the fluid at the
    // world's iteration count (autoRelaxation)
    this.relaxationOption = o.relaxation ?? null;
    if (o.relaxation !== undefined && (!(o.relaxation >= 0) || !Number.isFinite(o.relaxation))) {
      throw new PbdError('fluid/relaxation', `${where}.relaxation`, `must be ≥ 0 (m⁻²), got ${o.relaxation}`);
    }
    const ap = o.artificialPressure === false ? { k: 0 } : (o.artificialPressure ?? {});
    this.artificialPressureK = ap.k ?? 0.1;
    this.artificialPressureN = ap.n ?? 4;
    this.artificialPressureDeltaQ = ap.deltaQ ?? 0.2;
    if (!(this.artificialPressureK >= 0) || !Number.isFinite(this.artificialPressureK)) {
      throw new PbdError('fluid/artificial-pressure', `${where}.artificialPressure.k`, 'must be ≥ 0');
    }
    if (!Number.isInteger(this.artificialPressureN) || this.artificialPressureN < 1) {
      throw new PbdError(
        'fluid/artificial-pressure',
        `${where}.artificialPressure.n`,
        'must be an integer ≥ 1',
      );
    }
    if (!(this.artificialPressureDeltaQ >= 0 && this.artificialPressureDeltaQ * h < d)) {
      throw new PbdError(
        'fluid/artificial-pressure',
        `${where}.artificialPressure.deltaQ`,
        `must lie in [0, ${(d / h).toPrecision(3)}): a fraction of the kernel radius below the spacing (s_corr acts on pairs closer than d), got ${this.artificialPressureDeltaQ}`,
        'the paper uses 0.1 … 0.3 with h = 2d',
      );
    }
    this.viscosity = o.viscosity ?? 0.01;
    if (!(this.viscosity >= 0 && this.viscosity <= 1)) {
      throw new PbdError('fluid/viscosity', `${where}.viscosity`, `must lie in [0, 1], got ${o.viscosity}`);
    }
    this.vorticity = o.vorticity ?? 0;
    if (!(this.vorticity >= 0) || !Number.isFinite(this.vorticity)) {
      throw new PbdError('fluid/vorticity', `${where}.vorticity`, `must be ≥ 0 (m/s), got ${o.vorticity}`);
    }
    this.couple = o.couple ?? 'all';
    this.capacity = capacity;
    this.boundaryCount = nb;
    this.emitters = emitters;
    this.groupBits = o.group ?? 1;
    this.maskBits = o.mask ?? -1;
    // on shared memory with the store (a threaded world): the pool's reordering moves them (row-tasks.ts)
    const sharedIds =
      typeof SharedArrayBuffer !== 'undefined' && world.store.x.buffer instanceof SharedArrayBuffer;
    this.ids = sharedIds ? new Int32Array(new SharedArrayBuffer(4 * capacity)) : new Int32Array(capacity);
    this.slotOf = sharedIds ? new Int32Array(new SharedArrayBuffer(4 * capacity)) : new Int32Array(capacity);
    for (let s = 0; s < capacity; s++) this.ids[s] = this.slotOf[s] = s;

    const store = world.store;
    const off = this.offset;
    const n0 = initial.length / 3;
    for (let s = 0; s < capacity; s++) this.initParticle(s, s < n0);
    store.x.set(initial, 3 * off);
    store.p.set(initial, 3 * off);
    const vel = collectInitialVelocities(o, d);
    store.v.set(vel, 3 * off);
    for (let b = 0; b < nb; b++) {
      const i = off + capacity + b;
      store.x[3 * i] = store.p[3 * i] = boundary[3 * b];
      store.x[3 * i + 1] = store.p[3 * i + 1] = boundary[3 * b + 1];
      store.x[3 * i + 2] = store.p[3 * i + 2] = boundary[3 * b + 2];
      store.mass[i] = Number.POSITIVE_INFINITY;
      store.invMass[i] = 0;
      store.radius[i] = this.particleRadius;
      store.group[i] = this.groupBits;
      store.mask[i] = this.maskBits;
    }
    this.active = n0;
    this.density = this.addSet(new FluidDensity(this));
    this.contacts = this.addSet(new FluidSolidContacts(this, this.density));
  }

  /** Sets slot s to a fluid particle (active) or an inert spare. */
  private initParticle(s: number, active: boolean): void {
    const store = this.world.store;
    const i = this.offset + s;
    store.radius[i] = this.particleRadius;
    store.group[i] = this.groupBits;
    store.mask[i] = this.maskBits;
    if (active) {
      store.mass[i] = this.particleMass;
      store.invMass[i] = 1 / this.particleMass;
    } else {
      store.mass[i] = 0;
      store.invMass[i] = 0;
    }
  }

  override get activeCount(): number {
    return this.active;
  }

  /** Store index of the particle with the given id (ids are assigned in creation order). */
  particleIndex(id: number): number {
    requireParticle(id, this.active, 'fluid/bad-id', `fluid '${this.name}'`);
    return this.offset + this.slotOf[id];
  }

  /** Positions in particle-id order (not store order), xyz interleaved, into `out`. */
  positionsById(out = new Float64Array(3 * this.active)): Float64Array {
    return this.byId(this.world.store.x, out);
  }

  /** Velocities in particle-id order, into `out`. */
  velocitiesById(out = new Float64Array(3 * this.active)): Float64Array {
    return this.byId(this.world.store.v, out);
  }

  /** The store array `src` (x or v) of the active particles in particle-id order, into `out`. */
  private byId(src: Float64Array, out: Float64Array): Float64Array {
    const off = this.offset;
    for (let id = 0; id < this.active; id++) {
      const i3 = 3 * (off + this.slotOf[id]);
      out[3 * id] = src[i3];
      out[3 * id + 1] = src[i3 + 1];
      out[3 * id + 2] = src[i3 + 2];
    }
    return out;
  }

  /**
   * Densities ρ_i (kg/m³) of the active particles at their current positions
   * x, by slot (store order, like positions()), counting fluid, coupled and
   * boundary particles and colliders exactly as the solver does. Runs a
   * neighbour search of its own (without reordering); call it between steps.
   */
  densities(out = new Float64Array(this.active)): Float64Array {
    const store = this.world.store;
    // p is scratch between steps (the next step predicts it afresh)
    store.p.set(store.x.subarray(0, 3 * store.count));
    const ctx = this.world.makeContext();
    this.density.search(ctx, false);
    this.density.computeLambda(store);
    out.set(this.density.rho.subarray(0, this.active));
    return out;
  }

  /**
   * Density errors at the current positions: the mean and largest
   * compression C_i⁺ = max(ρ_i/ρ0 − 1, 0) over the active particles (the
   * "average density error" of the SPH literature: a free surface is short of
   * ρ0 by nature and is not counted) and the mean |ρ_i/ρ0 − 1| over all.
   */
  densityError(): { meanCompression: number; maxCompression: number; meanAbsolute: number } {
    const rho = this.densities();
    const inv = 1 / this.restDensity;
    let sum = 0,
      max = 0,
      abs = 0;
    for (let s = 0; s < rho.length; s++) {
      const C = rho[s] * inv - 1;
      if (C > 0) sum += C;
      if (C > max) max = C;
      abs += Math.abs(C);
    }
    const n = Math.max(1, rho.length);
    return { meanCompression: sum / n, maxCompression: max, meanAbsolute: abs / n };
  }

  /** Store indices of the boundary particles: [offset + capacity, offset + capacity + boundaryCount). */
  get boundaryOffset(): number {
    return this.offset + this.capacity;
  }

  /**
   * Speed colouring for renderers: writes one RGB triple per active particle
   * (store order, matching positions()) into `out`, blue at rest through
   * cyan to white at `maxSpeed` (m/s).
   */
  speedColors(out: Float32Array, maxSpeed = 3): Float32Array {
    const v = this.world.store.v;
    const off = this.offset;
    const inv = 1 / Math.max(1e-9, maxSpeed);
    for (let s = 0; s < this.active; s++) {
      const i3 = 3 * (off + s);
      const sp = Math.sqrt(v[i3] * v[i3] + v[i3 + 1] * v[i3 + 1] + v[i3 + 2] * v[i3 + 2]) * inv;
      const t = Math.min(sp, 1);
      out[3 * s] = 0.1 + 0.9 * t * t;
      out[3 * s + 1] = 0.35 + 0.65 * t;
      out[3 * s + 2] = 0.85 + 0.15 * t;
    }
    return out;
  }

  /**
   * Activates spare particles from the emitters (called by the density set after
   * the velocity update). Returns the number added.
   */
  emit(time: number): number {
    let added = 0;
    const store = this.world.store;
    const d = this.spacing;
    for (const e of this.emitters) {
      if (e.exhausted) continue;
      const due = e.layersDue(time, d);
      while (e.layers < due) {
        const nl = e.perLayer;
        if (this.active + nl > this.capacity) {
          e.exhausted = true;
          break;
        }
        const shift = e.layerShift(e.layers, time, d);
        const dx = e.direction[0],
          dy = e.direction[1],
          dz = e.direction[2];
        for (let k = 0; k < nl; k++) {
          const s = this.active++;
          this.initParticle(s, true);
          // slots 0 … s − 1 hold ids 0 … s − 1 in some order: the new particle gets id s
          this.ids[s] = s;
          this.slotOf[s] = s;
          const i3 = 3 * (this.offset + s);
          const x = e.position[0] + e.layer[3 * k] + dx * shift;
          const y = e.position[1] + e.layer[3 * k + 1] + dy * shift;
          const z = e.position[2] + e.layer[3 * k + 2] + dz * shift;
          store.x[i3] = store.p[i3] = x;
          store.x[i3 + 1] = store.p[i3 + 1] = y;
          store.x[i3 + 2] = store.p[i3 + 2] = z;
          store.v[i3] = dx * e.speed;
          store.v[i3 + 1] = dy * e.speed;
          store.v[i3 + 2] = dz * e.speed;
        }
        e.layers++;
        e.emitted += nl;
        added += nl;
      }
    }
    return added;
  }

  /**
   * Permutes the active slots so that slot s holds the particle now in slot
   * order[s] − offset (order lists store indices). Moves every per-particle
   * array of the store and the id maps; other bodies' ranges are untouched.
   * `pooled` ≥ 0: x, p, v and the id maps were moved already, on the worker
   * pool (row-blocks.ts reorder), whose blocks found the constants with these
   * UNIFORM_* bits the same for every slot; −1: everything here.
   */
  permute(order: Int32Array, scratch: Float64Array, scratchInt: Int32Array, pooled = -1): void {
    const store = this.world.store;
    const off = this.offset;
    const n = this.active;
    if (pooled < 0) {
      gather3(store.x, order, n, off, scratch);
      gather3(store.p, order, n, off, scratch);
      gather3(store.v, order, n, off, scratch);
    }
    // per-particle constants are usually the same for every fluid particle: nothing to move then
    // (the checks in one walk over the five arrays where they hold, row-tasks.ts uniformBits)
    const u =
      pooled >= 0
        ? pooled
        : uniformBits(store.mass, store.invMass, store.radius, store.group, store.mask, off, 0, n);
    if ((u & UNIFORM_MASS) === 0) gather1(store.mass, order, n, off, scratch);
    if ((u & UNIFORM_INV_MASS) === 0) gather1(store.invMass, order, n, off, scratch);
    if ((u & UNIFORM_RADIUS) === 0) gather1(store.radius, order, n, off, scratch);
    if ((u & UNIFORM_GROUP) === 0) gather1i(store.group, order, n, off, scratchInt);
    if ((u & UNIFORM_MASK) === 0) gather1i(store.mask, order, n, off, scratchInt);
    if (pooled < 0) {
      for (let s = 0; s < n; s++) scratchInt[s] = this.ids[order[s] - off];
      this.ids.set(scratchInt.subarray(0, n));
      for (let s = 0; s < n; s++) this.slotOf[this.ids[s]] = s;
    }
    this.reorders++;
  }

  override saveState(): unknown {
    return {
      active: this.active,
      ids: Array.from(this.ids.subarray(0, this.active)),
      emitters: this.emitters.map((e) => ({ emitted: e.emitted, layers: e.layers, exhausted: e.exhausted })),
    };
  }

  override loadState(state: unknown): void {
    if (!state) return;
    const s = state as {
      active: number;
      ids: number[];
      emitters: { emitted: number; layers: number; exhausted: boolean }[];
    };
    this.active = s.active;
    for (let k = 0; k < this.capacity; k++) this.initParticle(k, k < s.active);
    this.ids.set(s.ids);
    for (let k = 0; k < s.active; k++) this.slotOf[this.ids[k]] = k;
    s.emitters.forEach((e, k) => {
      const em = this.emitters[k];
      if (!em) return;
      em.emitted = e.emitted;
      em.layers = e.layers;
      em.exhausted = e.exhausted;
    });
  }

  /**
   * Relaxation ε of PBF eq. 11 (m⁻²): the option, or by default
   * autoRelaxation(μ̂, world.iterations) · S0 — the least ε with which the
   * Jacobi solve cannot feed energy into any mode of a rest lattice (0.48 S0
   * at an even iteration count, 1.82 S0 at an odd one, h = 2d).
   */
  get relaxation(): number {
    return (
      this.relaxationOption ??
      autoRelaxation(this.restJacobiRadius, this.world.iterations) * this.restGradientSquared
    );
  }

  set relaxation(v: number) {
    this.relaxationOption = v;
  }

  override tunables(): Tunable[] {
    const S0 = this.restGradientSquared;
    return [
      {
        name: 'relaxation',
        min: 1e-4 * S0,
        max: 10 * S0,
        log: true,
        get: () => this.relaxation,
        set: (v) => (this.relaxation = v),
      },
      this.tunable('artificialPressure.k', 'artificialPressureK', 0.5),
      this.tunable('viscosity', 'viscosity', 0.5),
      this.tunable('vorticity', 'vorticity', 2),
    ];
  }

  /** The linear tunable `name` over [0, max] that reads and writes the field `key`. */
  private tunable(
    name: string,
    key: 'artificialPressureK' | 'viscosity' | 'vorticity',
    max: number,
  ): Tunable {
    return { name, min: 0, max, get: () => this[key], set: (v) => (this[key] = v) };
  }
}

/** a[3(off + s) …] ← a[3 order[s] …] for s < n (xyz triples), through `scratch`. */
function gather3(a: Float64Array, order: Int32Array, n: number, off: number, scratch: Float64Array): void {
  for (let s = 0; s < n; s++) {
    const j3 = 3 * order[s];
    scratch[3 * s] = a[j3];
    scratch[3 * s + 1] = a[j3 + 1];
    scratch[3 * s + 2] = a[j3 + 2];
  }
  a.set(scratch.subarray(0, 3 * n), 3 * off);
}

/** a[off + s] ← a[order[s]] for s < n, through `scratch`. */
function gather1(a: Float64Array, order: Int32Array, n: number, off: number, scratch: Float64Array): void {
  for (let s = 0; s < n; s++) scratch[s] = a[order[s]];
  a.set(scratch.subarray(0, n), off);
}

/** gather1 for Int32Arrays. */
function gather1i(a: Int32Array, order: Int32Array, n: number, off: number, scratch: Int32Array): void {
  for (let s = 0; s < n; s++) scratch[s] = a[order[s]];
  a.set(scratch.subarray(0, n), off);
}

/** Lattice points of spacing d filling [min, max], centred in the box. */
export function blockPositions(min: Vec3Tuple, max: Vec3Tuple, d: number): Float64Array {
  const n = [0, 1, 2].map((k) => Math.max(1, Math.floor((max[k] - min[k]) / d + 1e-9)));
  const start = [0, 1, 2].map((k) => 0.5 * (min[k] + max[k]) - 0.5 * (n[k] - 1) * d);
  const out = new Float64Array(3 * n[0] * n[1] * n[2]);
  let k = 0;
  for (let c = 0; c < n[2]; c++)
    for (let b = 0; b < n[1]; b++)
      for (let a = 0; a < n[0]; a++) {
        out[k++] = start[0] + a * d;
        out[k++] = start[1] + b * d;
        out[k++] = start[2] + c * d;
      }
  return out;
}

function collectInitialPositions(o: FluidOptions, d: number, where: string): Float64Array {
  const parts: Float64Array[] = [];
  (o.blocks ?? []).forEach((b, k) => {
    for (let a = 0; a < 3; a++) {
      if (!Number.isFinite(b.min[a]) || !Number.isFinite(b.max[a]) || !(b.max[a] >= b.min[a])) {
        throw new PbdError(
          'fluid/block',
          `${where}.blocks[${k}]`,
          `min must not exceed max and both must be finite (axis ${'xyz'[a]}: ${b.min[a]} … ${b.max[a]})`,
        );
      }
    }
    const cells = [0, 1, 2].map((a) => Math.max(1, Math.floor((b.max[a] - b.min[a]) / d)));
    if (cells[0] * cells[1] * cells[2] > 8_000_000) {
      throw new PbdError(
        'fluid/block',
        `${where}.blocks[${k}]`,
        `would hold ${cells[0] * cells[1] * cells[2]} particles`,
        'use a larger spacing or a smaller block (at most 8 million particles)',
      );
    }
    parts.push(blockPositions(b.min, b.max, d));
  });
  if (o.positions) {
    if (o.positions.length % 3 !== 0) {
      throw new PbdError('fluid/positions', `${where}.positions`, 'must hold x, y, z per particle');
    }
    const p = Float64Array.from(o.positions);
    for (let k = 0; k < p.length; k++) {
      if (!Number.isFinite(p[k]))
        throw new PbdError('fluid/positions', `${where}.positions[${k}]`, 'must be finite');
    }
    parts.push(p);
  }
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Float64Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function collectInitialVelocities(o: FluidOptions, d: number): Float64Array {
  const parts: number[] = [];
  for (const b of o.blocks ?? []) {
    const n = blockPositions(b.min, b.max, d).length / 3;
    const v = b.velocity ?? [0, 0, 0];
    for (let k = 0; k < n; k++) parts.push(v[0], v[1], v[2]);
  }
  const np = o.positions ? o.positions.length / 3 : 0;
  for (let k = 0; k < np; k++) parts.push(0, 0, 0);
  return Float64Array.from(parts);
}
