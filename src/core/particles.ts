import { PbdError } from './errors.js';
import type { StoreMemory } from './store-memory.js';

/** The orientation channels before a body asks for them. */
const EMPTY = new Float64Array(0);

/**
 * A kernel's copy of a particle window that the prediction may write and the velocity update read
 * (src/wasm/paired.ts ParticleWindow): particle base + i at S[3 i] (x y z) and SW[i] (w) — the f64
 * window itself, or the f64 staging of an f32 `aos4` one, rounded in by demoteStaged.
 */
export interface PredictedWindow {
  readonly S: Float64Array;
  readonly SW: Float64Array;
  readonly base: number;
  readonly range: number;
  /** Where its sweeps run on a threaded world's pool: what runs them (src/wasm/element-threads.ts); else null. */
  readonly pool?: object | null;
  flush(store: ParticleStore): void;
  /** S and SW rounded to f32 into the window (the second half of its load). */
  demoteStaged(): void;
  /** The window widened into S (the first half of its flush). */
  widenStaged(): void;
  /** The fused particle pass in the kernel module where it has one (src/wasm/paired.ts); false: not run. */
  updatePredict?(
    on: { x: Float64Array; v: Float64Array; w: Float64Array },
    invH: number,
    reach: number,
    q: { h: number; hg: Float64Array; f: number; vmax: number },
    counts: Int32Array,
  ): boolean;
  /**
   * Before the velocity stage reads the store's arrays: where it can, the store's x and v become
   * views of the window's kernel memory (src/wasm/paired.ts), so the module's pass copies neither
   * (and invMass: nor w).
   */
  homeStore?(store: ParticleStore): void;
  /** The substep's prediction into the window in the kernel module (src/wasm/paired.ts); false: not run. */
  predict?(
    on: { x: Float64Array; v: Float64Array; w: Float64Array },
    q: { h: number; hg: Float64Array; f: number; vmax: number },
  ): boolean;
  /**
   * The same prediction left to the first sweep's copy-in blocks on a threaded world's pool
   * (src/wasm/window-predict.ts); false: not deferred (the caller runs it).
   */
  predictInSweep?(
    on: { x: Float64Array; v: Float64Array; w: Float64Array },
    q: { h: number; hg: Float64Array; f: number; vmax: number },
  ): boolean;
  /** Particle base + i's position written into the window, as its load would write it from p. */
  place(i: number, x: number, y: number, z: number): void;
}

/**
 * The particle store: every simulated point of a World, in flat typed arrays.
 *
 * Layout (see docs/architecture.md): positions, predicted positions and
 * velocities are xyz-interleaved Float64Arrays of length 3·capacity; per
 * particle scalars are Float64Array / Int32Array of length capacity. A body
 * is a contiguous range [offset, offset + count) of the store.
 *
 * With a StoreMemory (a World's default where shared WebAssembly memory
 * exists) x, p, v and invMass lie in the memory the kernels use from the
 * start, so they are never moved at a step: an array taken before the first
 * step stays the live one (docs/architecture.md, "Live views"). Without one,
 * a kernel window or the strand kernels move x, v, invMass (and p) into
 * their memory at the first step (homing). Either way the arrays are
 * replaced when the store grows (bodies added, tearing and emitters add
 * particles), so internal code reads `store.x` etc. afresh at the start of
 * each pass; `version` increases on every reallocation so adapters
 * (three.js, workers, a user holding a view) know to re-bind.
 *
 * Orientation channels (q, qp, omega, and inertia / invInertia) exist only
 * once a body asks for them (`addOrientations`): they are empty arrays until
 * then, and then as long as the other arrays, for every particle. The
 * World's orientation stages predict and integrate the particles of the
 * ranges that asked (`orientedRanges`); other particles' entries are unused.
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
  /**
   * The allocator of x, p, v and invMass (the store's allocation option, session 20: see
   * StoreMemory), else null: plain arrays, which a kernel window may move into its memory at the
   * first step (PredictedWindow.homeStore; `version` goes up then).
   */
  readonly memory: StoreMemory | null;
  /**
   * The x, v and invMass the store allocated itself (a window may re-home only these into its kernel
   * memory: PredictedWindow.homeStore; arrays another kernel put in, e.g. a strand world's, stay).
   */
  own: { x: Float64Array; v: Float64Array; invMass: Float64Array } = { x: EMPTY, v: EMPTY, invMass: EMPTY };

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

  /** Orientation q (unit quaternion x, y, z, w) at the start of the substep, 4 per particle. */
  q: Float64Array = EMPTY;
  /** Predicted orientation (what constraints project), 4 per particle. */
  qp: Float64Array = EMPTY;
  /** Angular velocity ω (rad/s, world frame), 3 per particle. */
  omega: Float64Array = EMPTY;
  /** Principal moments of inertia in the particle's frame (kg m²), 3 per particle; empty unless asked for. */
  inertia: Float64Array = EMPTY;
  /** Their inverses (0: that axis does not turn), 3 per particle. */
  invInertia: Float64Array = EMPTY;
  /**
   * Particles with orientations: ranges [offset, offset + count) as
   * (offset, count, inertia) triples, inertia 1 when the range has moments
   * of inertia (then the prediction integrates the gyroscopic term).
   */
  readonly orientedRanges: number[] = [];

  /**
   * A kernel's copy of a particle window that holds the current predicted positions of its
   * particles (p is stale there), else null: the paired kernels' windows (src/wasm/paired.ts,
   * ParticleWindow.save, and the pool's sweeps: element-threads.ts) are held instead of copied
   * out while `holding` is on — in the projection stage, where the next projection goes through
   * a window too; it calls settle before every set that does not
   * project through such a window, and at its end.
   */
  held: { flush(store: ParticleStore): void } | null = null;
  /** Whether a paired kernel's window may stay held after its sweep (see held). */
  holding = false;
  /**
   * The f32 window the substep's prediction wrote instead of p (held: core/window-passes.ts), or
   * null; `updateFromWindow`: the velocity update reads it (the projection stage leaves it held).
   */
  predictedWindow: PredictedWindow | null = null;
  updateFromWindow = false;
  /** Whether that update also predicts the next substep into it (`predictedAhead`: it did). */
  predictNext = false;
  predictedAhead = false;

  /** Copies a held window out to p (see held). */
  settle(): void {
    const h = this.held;
    if (h === null) return;
    this.held = null;
    h.flush(this);
  }

  constructor(capacity = 1024, options: { shared?: boolean; memory?: StoreMemory | null } = {}) {
    this.shared = !!options.shared && typeof SharedArrayBuffer !== 'undefined';
    this.memory = options.memory ?? null;
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

  /**
   * Gives particles [offset, offset + count) orientation channels (identity
   * orientation, zero angular velocity), allocating the channels for the
   * whole store on first use; with `inertia`, moments of inertia too (set
   * them with setInertia; until then the particles are treated as spheres
   * of no rotational inertia: the gyroscopic term vanishes).
   */
  addOrientations(offset: number, count: number, options: { inertia?: boolean } = {}): void {
    if (
      !(Number.isInteger(offset) && Number.isInteger(count) && offset >= 0 && count >= 0) ||
      offset + count > this.count
    ) {
      throw new PbdError(
        'particles/bad-range',
        `orientations of particles [${offset}, ${offset + count})`,
        `the store holds ${this.count} particles`,
        'allocate the particles first, then give them orientations',
      );
    }
    const r = this.orientedRanges;
    for (let k = 0; k < r.length; k += 3) {
      if (offset < r[k] + r[k + 1] && r[k] < offset + count) {
        throw new PbdError(
          'particles/orientation-overlap',
          `orientations of particles [${offset}, ${offset + count})`,
          `overlap the oriented range [${r[k]}, ${r[k] + r[k + 1]})`,
          'give each particle orientations once',
        );
      }
    }
    const cap = this.capacity;
    if (this.q.length === 0) {
      this.q = this.f64(4 * cap);
      this.qp = this.f64(4 * cap);
      this.omega = this.f64(3 * cap);
      this.version++;
    }
    if (options.inertia && this.inertia.length === 0) {
      this.inertia = this.f64(3 * cap);
      this.invInertia = this.f64(3 * cap);
      this.version++;
    }
    for (let i = offset; i < offset + count; i++) {
      this.q[4 * i] = this.q[4 * i + 1] = this.q[4 * i + 2] = 0;
      this.q[4 * i + 3] = 1;
      this.qp[4 * i] = this.qp[4 * i + 1] = this.qp[4 * i + 2] = 0;
      this.qp[4 * i + 3] = 1;
      this.omega[3 * i] = this.omega[3 * i + 1] = this.omega[3 * i + 2] = 0;
    }
    r.push(offset, count, options.inertia ? 1 : 0);
  }

  /**
   * Sets the principal moments of inertia (kg m², in the particle's frame)
   * of particle i, which must lie in a range given orientations with
   * `inertia`. Infinity makes an axis immovable (inverse 0).
   */
  setInertia(i: number, ix: number, iy: number, iz: number): void {
    if (this.inertia.length === 0 || !this.hasInertia(i)) {
      throw new PbdError(
        'particles/no-inertia',
        `particle ${i}`,
        'has no inertia channel',
        'give its range orientations with { inertia: true } (addOrientations)',
      );
    }
    const m = [ix, iy, iz];
    for (let k = 0; k < 3; k++) {
      if (!(m[k] > 0)) {
        throw new PbdError(
          'particles/non-positive-inertia',
          `particle ${i}: moment of inertia ${'xyz'[k]}`,
          `must be > 0, got ${m[k]}`,
          'give a positive moment (or Infinity for an axis that never turns)',
        );
      }
      this.inertia[3 * i + k] = m[k];
      this.invInertia[3 * i + k] = Number.isFinite(m[k]) ? 1 / m[k] : 0;
    }
  }

  /** True when particle i lies in an oriented range (has orientation channels). */
  hasOrientation(i: number): boolean {
    const r = this.orientedRanges;
    for (let k = 0; k < r.length; k += 3) if (i >= r[k] && i < r[k] + r[k + 1]) return true;
    return false;
  }

  /** True when particle i lies in an oriented range with moments of inertia. */
  private hasInertia(i: number): boolean {
    const r = this.orientedRanges;
    for (let k = 0; k < r.length; k += 3) if (i >= r[k] && i < r[k] + r[k + 1]) return r[k + 2] === 1;
    return false;
  }

  private allocateArrays(capacity: number, keep: number): void {
    this.settle();
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
    // on the store's memory (the kernels' too) where it has one; the old regions are not given back
    // (a user may hold them: version says they are old), at most the final capacity's again
    const on = this.onMemory(capacity);
    this.x = on?.[0] ?? this.f64(3 * capacity);
    this.p = on?.[1] ?? this.f64(3 * capacity);
    this.v = on?.[2] ?? this.f64(3 * capacity);
    this.mass = this.f64(capacity);
    this.invMass = on?.[3] ?? this.f64(capacity);
    this.radius = this.f64(capacity);
    this.body = this.i32(capacity);
    this.group = this.i32(capacity);
    this.mask = this.i32(capacity);
    this.own = { x: this.x, v: this.v, invMass: this.invMass };
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
    if (this.q.length > 0) {
      this.q = this.grown(this.q, 4, capacity, keep);
      this.qp = this.grown(this.qp, 4, capacity, keep);
      this.omega = this.grown(this.omega, 3, capacity, keep);
    }
    if (this.inertia.length > 0) {
      this.inertia = this.grown(this.inertia, 3, capacity, keep);
      this.invInertia = this.grown(this.invInertia, 3, capacity, keep);
    }
    this.capacity = capacity;
    this.version++;
  }

  /** The bytes x, p, v and invMass of a store made with `capacity` take on its memory (StoreMemory.create's room). */
  static memoryBytes(capacity: number): number {
    const c = Math.max(16, capacity | 0);
    return 3 * ((24 * c + 63) & ~63) + ((8 * c + 63) & ~63);
  }

  /** x, p, v and invMass for `capacity` particles on the store's memory, or null (none, or it is full). */
  private onMemory(capacity: number): Float64Array[] | null {
    const m = this.memory;
    if (m === null) return null;
    const out: Float64Array[] = [];
    for (const n of [3 * capacity, 3 * capacity, 3 * capacity, capacity]) {
      const a = m.f64(n);
      if (a === null) {
        for (const b of out) m.release(b.byteOffset);
        return null;
      }
      out.push(a);
    }
    return out;
  }

  /** A channel of `stride` numbers per particle for `capacity` particles, holding a's first `keep`. */
  private grown(a: Float64Array, stride: number, capacity: number, keep: number): Float64Array {
    const b = this.f64(stride * capacity);
    b.set(a.subarray(0, stride * keep));
    return b;
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
