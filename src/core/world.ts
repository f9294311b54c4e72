import { Attachments } from './attachments.js';
import { Bdf2History } from './bdf2.js';
import type { ConstraintSet, StepContext } from './constraint-set.js';
import { PbdError } from './errors.js';
import type { Vec3Tuple } from './motion.js';
import { OrientationPredictionStage, OrientationVelocityStage } from './orientation-stages.js';
import { ParticleStore } from './particles.js';
import {
  Pipeline,
  type Scheduler,
  SerialScheduler,
  type Stage,
  type SubstepPass,
  type ThreadedSchedulerFactory,
} from './pipeline.js';
import { RigidPredictionStage, RigidVelocityStage } from './rigid-stages.js';
import { type RigidState, RigidStore } from './rigid-store.js';
import type { SolverKind } from './solver.js';
import {
  ColliderMotionStage,
  ParticlePredictionStage,
  ParticleVelocityStage,
  ProjectionStage,
  SetHookStage,
  VelocityHistoryStage,
} from './stages.js';
import type {
  IntegratorKind,
  PrecisionKind,
  SolveKind,
  StepStats,
  SweepKind,
  WindOptions,
  WorldView,
} from './step-context.js';
import { StoreMemory } from './store-memory.js';
import { StepTimings } from './timings.js';
import type { WorldBody } from './world-body.js';
import type { WorldCollider } from './world-collider.js';

export interface WorldOptions {
  /** Length of one step (s). Default 1/60. */
  dt?: number;
  /** Substeps per step. Default 10. */
  substeps?: number;
  /** Solver iterations per substep. Default 1. */
  iterations?: number;
  /**
   * Order of the Gauss–Seidel sweep over the material constraints in each
   * iteration: 'symmetric' (default) projects them forward then backward,
   * which keeps few-iteration, many-substep simulation stable; 'forward' is
   * the single sweep of the 2007 paper, half the cost. See docs/architecture.md.
   */
  sweep?: SweepKind;
  /**
   * How constraints are iterated: 'gauss-seidel' (default; colour by colour,
   * each constraint sees the corrections before it) or 'jacobi' (every
   * constraint of a set from the same positions, each particle moved by
   * `relaxation` times the mean of its corrections: the order-free scheme of
   * GPU solvers; element sets — distance, bending, FEM, volume, area, strain
   * limits — offer it, other sets keep Gauss–Seidel). See docs/solver.md.
   */
  solve?: SolveKind;
  /** Relaxation ω of the Jacobi passes (0 < ω < 2). Default 1. */
  relaxation?: number;
  /**
   * 'f64' (default) or 'f32': the distance and dihedral bending kernels in f32 (f32x4 in WebAssembly,
   * a JavaScript twin with the same bits); everything else stays f64. docs/cloth.md, "Precision".
   */
  precision?: PrecisionKind;
  /** Projection rule: 'xpbd' (default) or 'pbd'. */
  solver?: SolverKind;
  /**
   * Time integrator of the particles: 'implicit-euler' (default; Algorithm 1
   * of 003) or 'bdf2', the second-order BDF2 prediction and velocity update
   * of seed 004, which loses far less energy per period at the same step
   * (core/bdf2.ts, docs/solver.md). Rigid bodies and particle orientations
   * keep their first-order update.
   */
  integrator?: IntegratorKind;
  /** Gravity (m/s²). Default [0, −9.81, 0]. */
  gravity?: Vec3Tuple;
  /** Point damping rate c (1/s): velocities decay as e^{−c t}. Default 0. */
  damping?: number;
  /** Wind acting on cloth triangles. Default none. */
  wind?: WindOptions;
  /** No particle moves faster than this (m/s): a last line of defence against bad input. Default 200. */
  maxSpeed?: number;
  /** Initial particle capacity (the store grows as needed). */
  capacity?: number;
  /** Allocate particle arrays on SharedArrayBuffer (for workers). */
  sharedMemory?: boolean;
  /**
   * The store's x, p, v and invMass on one growable shared WebAssembly memory that the kernels
   * use too (StoreMemory), so that arrays taken before the first step stay the live ones; false:
   * plain arrays, moved into a kernel memory at the first step. Default true where available.
   */
  storeMemory?: boolean;
  /**
   * Threads the step computes on: the calling one and threads − 1 workers
   * over the shared stores (implies `sharedMemory`). Results are the same bit
   * for bit for every count. Where workers or SharedArrayBuffer are missing
   * the world runs on one thread, with a one-line notice. Default 1.
   */
  threads?: number;
}

const validSolvers: readonly SolverKind[] = ['pbd', 'xpbd'];

/** An option that names one of `allowed` (undefined: unset), or a PbdError that names world.FIELD and the fix. */
function choice<T extends string>(
  v: T | undefined,
  field: string,
  allowed: readonly T[],
  fix: string,
): T | undefined {
  if (v === undefined || allowed.includes(v)) return v;
  throw new PbdError('world/invalid', `world.${field}`, `unknown ${field} '${v}'`, fix);
}

/**
 * A world-wide system of a method family: state and constraint sets shared
 * by all its bodies (the collision system, particle contacts, collider
 * contacts …), installed in a world once, on first use, by `World.system`.
 */
export interface SystemKind<S> {
  /** A name for messages. */
  readonly name: string;
  /** Creates the system in `world` (adding its constraint sets); called once per world. */
  install(world: World): S;
}

/**
 * A simulation world: the particle store, the bodies, the constraint sets,
 * the colliders, the registry of systems and the step loop (Algorithm 1 of
 * seed 003, with substeps). The World knows no method family: families
 * subclass `Body`, add constraint sets, and install world-wide systems
 * (`system`); colliders install their contacts when added.
 */
export class World implements WorldView {
  /**
   * Makes the scheduler of worlds built with `threads` > 1: src/parallel/
   * installs its worker pool here when the package is imported. Null: every
   * world runs on one thread.
   */
  static threadedScheduler: ThreadedSchedulerFactory | null = null;
  /** The particles: positions, velocities, masses …, and the orientation channels when a body asks for them. */
  readonly store: ParticleStore;
  /** The rigid bodies: poses, velocities, masses and inertia (Müller et al. 2020). */
  readonly rigids: RigidStore;
  /** The bodies, in the order they were created (see `Body`). */
  readonly bodies: WorldBody[] = [];
  /**
   * All constraint sets, sorted by `order`, then the world's own systems'
   * sets (attachments, collider contacts) before the others, then insertion.
   */
  readonly sets: ConstraintSet[] = [];
  readonly colliders: WorldCollider[] = [];
  /** Pins, kinematic targets and the mouse drag. */
  readonly attachments: Attachments;
  readonly gravity = new Float64Array([0, -9.81, 0]);
  dt = 1 / 60;
  substeps = 10;
  iterations = 1;
  solver: SolverKind = 'xpbd';
  sweep: SweepKind = 'symmetric';
  solve: SolveKind = 'gauss-seidel';
  relaxation = 1;
  precision: PrecisionKind = 'f64';
  integrator: IntegratorKind = 'implicit-euler';
  /** The BDF2 integrator's history (null under implicit Euler). */
  history: Bdf2History | null = null;
  damping = 0;
  maxSpeed = 200;
  wind: WindOptions | null = null;
  /** Simulated time (s). */
  time = 0;
  /** Steps taken. */
  steps = 0;
  readonly stats: StepStats = { stepMs: 0, recoveries: 0, speedClamps: 0 };
  /**
   * Where the time of the last step went (ms per part, summed over its
   * substeps): every stage by name ('particles.predict', 'sets.project' …),
   * every set's projection and hooks by kind ('project:stretch',
   * 'beginStep:self-collision' …), and parts families time themselves
   * ('collision.broad', 'collision.narrow'). See `timings.lastStep()`.
   */
  readonly timings = new StepTimings();
  /** The stages of one substep, in order (see Pipeline and docs/architecture.md, "One step"). */
  readonly pipeline = new Pipeline();
  /** Fused passes tried before the pipeline each substep (SubstepPass: the first that runs does the substep). */
  readonly substepPasses: SubstepPass[] = [];
  /** Runs the pipeline's stages; the serial scheduler defines every result. */
  scheduler: Scheduler = new SerialScheduler();
  private readonly ctx: StepContext;
  /** Per set: its insertion number, negative for the world's own systems' sets (see `sets`). */
  private readonly setRank = new Map<ConstraintSet, number>();
  private insertCounter = 0;
  private readonly systems = new Map<SystemKind<unknown>, unknown>();
  private readonly spin = new Float64Array(3);
  private readonly historyStage = new VelocityHistoryStage();

  constructor(options: WorldOptions = {}) {
    const threads = options.threads ?? 1;
    if (!(Number.isInteger(threads) && threads >= 1 && threads <= 256)) {
      throw new PbdError(
        'world/invalid',
        'world.threads',
        `must be an integer from 1 to 256, got ${threads}`,
        'use 1 for the calling thread only, or the number of cores',
      );
    }
    const shared = options.sharedMemory || threads > 1;
    const capacity = options.capacity ?? 1024;
    // (room for the store's arrays from the start: a grow of a shared memory costs 0.14 ms)
    const memory =
      options.storeMemory === false ? null : StoreMemory.create(ParticleStore.memoryBytes(capacity));
    this.store = new ParticleStore(capacity, { shared, memory });
    this.rigids = new RigidStore(16, { shared });
    this.attachments = this.system(attachmentSystem);
    const sets = this.sets;
    for (const stage of [
      new ColliderMotionStage(),
      new SetHookStage('applyForces', sets),
      new SetHookStage('dampVelocities', sets),
      new ParticlePredictionStage(this),
      new OrientationPredictionStage(),
      new RigidPredictionStage(),
      new SetHookStage('beginStep', sets),
      new ProjectionStage(sets),
      new ParticleVelocityStage(),
      new OrientationVelocityStage(),
      new RigidVelocityStage(),
      new SetHookStage('endStep', sets),
    ])
      this.pipeline.add(stage);
    this.configure(options);
    this.ctx = {
      world: this,
      store: this.store,
      rigids: this.rigids,
      solver: this.solver,
      h: this.dt / this.substeps,
      invH: this.substeps / this.dt,
      hSolve: this.dt / this.substeps,
      time: 0,
      substep: 0,
      substeps: this.substeps,
      iteration: 0,
      iterations: this.iterations,
      passes: this.passes(),
      gravity: this.gravity,
      reverse: false,
      timings: this.timings,
    };
    if (threads > 1) {
      if (World.threadedScheduler) {
        this.scheduler = World.threadedScheduler(this, threads);
        this.ctx.tasks = this.scheduler.tasks ?? null;
      } else
        notice(`pbdkit: threads: ${threads} needs the worker pool of src/parallel/; running on one thread`);
    }
  }

  /** Threads the step computes on (see WorldOptions.threads). */
  get threads(): number {
    return this.scheduler.threads ?? 1;
  }

  /**
   * Resolves when the world's worker threads are running. Steps taken
   * before run on fewer threads, with the same results; await this where
   * the speed of the first steps matters (benchmarks, bakes).
   */
  threadsReady(): Promise<void> {
    return this.scheduler.ready?.() ?? Promise.resolve();
  }

  /** Releases the world's worker threads (no process is kept alive by a disposed world). */
  dispose(): void {
    this.scheduler.dispose?.();
    this.scheduler = new SerialScheduler();
  }

  /**
   * A fresh step context for substep length h (default dt/substeps), for
   * projecting sets by hand in tools and tests.
   */
  makeContext(h = this.dt / this.substeps): StepContext {
    return {
      ...this.ctx,
      solver: this.solver,
      h,
      invH: 1 / h,
      hSolve: h,
      iterations: this.iterations,
      passes: this.passes(),
      substeps: this.substeps,
      reverse: false,
    };
  }

  /** Projections of each material set per substep: the iterations, twice over under the symmetric sweep. */
  private passes(): number {
    return this.sweep === 'symmetric' ? 2 * this.iterations : this.iterations;
  }

  /** Changes world settings (validated). */
  configure(o: WorldOptions): void {
    const num = (
      v: number | undefined,
      name: string,
      ok: (x: number) => boolean,
      what: string,
    ): number | undefined => {
      if (v === undefined) return undefined;
      if (!ok(v)) throw new PbdError('world/invalid', `world.${name}`, `${what}, got ${v}`);
      return v;
    };
    this.dt =
      num(o.dt, 'dt', (x) => x > 0 && Number.isFinite(x), 'must be a positive number of seconds') ?? this.dt;
    this.substeps =
      num(o.substeps, 'substeps', (x) => Number.isInteger(x) && x >= 1, 'must be an integer ≥ 1') ??
      this.substeps;
    this.iterations =
      num(o.iterations, 'iterations', (x) => Number.isInteger(x) && x >= 1, 'must be an integer ≥ 1') ??
      this.iterations;
    this.damping =
      num(o.damping, 'damping', (x) => x >= 0 && Number.isFinite(x), 'must be ≥ 0 (1/s)') ?? this.damping;
    this.maxSpeed = num(o.maxSpeed, 'maxSpeed', (x) => x > 0, 'must be > 0 (m/s)') ?? this.maxSpeed;
    this.solver = choice(o.solver, 'solver', validSolvers, "use 'xpbd' or 'pbd'") ?? this.solver;
    this.sweep =
      choice(o.sweep, 'sweep', ['symmetric', 'forward'], "use 'symmetric' or 'forward'") ?? this.sweep;
    this.solve =
      choice(o.solve, 'solve', ['gauss-seidel', 'jacobi'], "use 'gauss-seidel' or 'jacobi'") ?? this.solve;
    const integrator = choice(
      o.integrator,
      'integrator',
      ['implicit-euler', 'bdf2'],
      "use 'implicit-euler' or 'bdf2'",
    );
    if (integrator !== undefined && integrator !== this.integrator) {
      this.integrator = integrator;
      this.history = integrator === 'bdf2' ? new Bdf2History() : null;
      if (this.history) this.pipeline.add(this.historyStage);
      else this.pipeline.remove(this.historyStage);
    }
    this.precision = choice(o.precision, 'precision', ['f64', 'f32'], "use 'f64' or 'f32'") ?? this.precision;
    this.relaxation =
      num(o.relaxation, 'relaxation', (x) => x > 0 && x < 2, 'must lie between 0 and 2 (exclusive)') ??
      this.relaxation;
    if (o.gravity) {
      for (let k = 0; k < 3; k++) {
        if (!Number.isFinite(o.gravity[k]))
          throw new PbdError('world/invalid', `world.gravity[${k}]`, `must be finite, got ${o.gravity[k]}`);
      }
      this.gravity.set(o.gravity);
    }
    if (o.wind !== undefined) this.wind = o.wind;
  }

  /** Called by Body's constructor. */
  registerBody(body: WorldBody): void {
    this.bodies.push(body);
  }

  /**
   * The world's system of this kind, installed on first use: how a method
   * family adds its world-wide state and constraint sets (see SystemKind).
   */
  system<S>(kind: SystemKind<S>): S {
    if (this.systems.has(kind)) return this.systems.get(kind) as S;
    const s = kind.install(this);
    this.addSystem(kind, s);
    return s;
  }

  /** The world's system of this kind, or null when none was installed. */
  findSystem<S>(kind: SystemKind<S>): S | null {
    return this.systems.has(kind) ? (this.systems.get(kind) as S) : null;
  }

  /** Registers a system built by hand (its constructor calls this); one per kind. */
  addSystem<S>(kind: SystemKind<S>, system: S): S {
    const had = this.systems.get(kind);
    if (had !== undefined && had !== system) {
      throw new PbdError(
        'world/duplicate-system',
        kind.name,
        'the world already has one',
        `use world.findSystem() to reach the existing ${kind.name}`,
      );
    }
    this.systems.set(kind, system);
    return system;
  }

  /**
   * Adds a constraint set to the step loop, kept sorted by `order` (stable).
   * `system: true` marks a set of the world's own systems (attachments,
   * collider contacts): it goes before the other sets of its order, and
   * `constraintCount()` leaves it out.
   */
  addConstraintSet(set: ConstraintSet, options: { system?: boolean } = {}): void {
    const n = this.insertCounter++;
    this.setRank.set(set, options.system ? n - 2 ** 40 : n);
    // after the last set before it (order, then rank): a sort's place without re-sorting per set
    const sets = this.sets;
    const order = set.order ?? 0;
    const rank = this.setRank.get(set)!;
    let k = sets.length;
    for (; k > 0; k--)
      if (((sets[k - 1].order ?? 0) - order || this.setRank.get(sets[k - 1])! - rank) <= 0) break;
    sets.splice(k, 0, set);
  }

  removeConstraintSet(set: ConstraintSet): void {
    const k = this.sets.indexOf(set);
    if (k >= 0) this.sets.splice(k, 1);
    this.setRank.delete(set);
  }

  /** Adds a collider; it installs what makes particles collide with it (WorldCollider.addedTo). */
  addCollider<T extends WorldCollider>(collider: T): T {
    this.colliders.push(collider);
    collider.addedTo?.(this);
    return collider;
  }

  removeCollider(collider: WorldCollider): void {
    const k = this.colliders.indexOf(collider);
    if (k >= 0) this.colliders.splice(k, 1);
  }

  /** Adds a stage to the step (a family's own pass: see Stage and Phase). */
  addStage<T extends Stage>(stage: T): T {
    this.pipeline.add(stage);
    return stage;
  }

  removeStage(stage: Stage): void {
    this.pipeline.remove(stage);
  }

  /** Wind velocity at time t into out[0..2] (zero when there is no wind). */
  windAt(t: number, out: Float64Array): void {
    const w = this.wind;
    if (!w) {
      out[0] = out[1] = out[2] = 0;
      return;
    }
    let f = 1;
    if (w.gust) {
      const fr = w.gustFrequency ?? 0.5;
      // deterministic gusts: a sum of incommensurate sines
      f +=
        w.gust * (0.6 * Math.sin(2 * Math.PI * fr * t) + 0.4 * Math.sin(2 * Math.PI * fr * 2.618 * t + 1.3));
    }
    out[0] = w.velocity[0] * f;
    out[1] = w.velocity[1] * f;
    out[2] = w.velocity[2] * f;
  }

  /** Advances the simulation by one step of `dt` (default `this.dt`) in `substeps` substeps. */
  step(dt = this.dt): void {
    if (!(dt > 0) || !Number.isFinite(dt))
      throw new PbdError('world/invalid', 'step(dt)', `dt must be a positive number, got ${dt}`);
    const t0 = now();
    const h = dt / this.substeps;
    const ctx = this.ctx;
    ctx.solver = this.solver;
    ctx.h = h;
    ctx.invH = 1 / h;
    ctx.substeps = this.substeps;
    ctx.iterations = this.iterations;
    ctx.passes = this.passes();
    const scheduler = this.scheduler;
    scheduler.beginStep?.();
    try {
      for (let s = 0; s < this.substeps; s++) {
        ctx.substep = s;
        this.substep(ctx);
      }
    } finally {
      scheduler.endStep?.();
    }
    this.timings.finishStep();
    this.steps++;
    this.stats.stepMs = now() - t0;
  }

  /** One substep: the pipeline's stages (Algorithm 1 of seed 003, lines 5–16), run by the scheduler. */
  private substep(ctx: StepContext): void {
    ctx.time = this.time + ctx.h;
    // BDF2 solves the implicit problem of step 2h/3 once a history exists (core/bdf2.ts)
    ctx.hSolve = this.history?.started ? (2 / 3) * ctx.h : ctx.h;
    const fused = this.substepPasses;
    let done = false;
    for (let k = 0; k < fused.length && !done; k++) done = fused[k].run(ctx, this.scheduler);
    if (!done) this.pipeline.run(ctx, this.scheduler);
    this.time = ctx.time;
  }

  /** Total kinetic energy ½ Σ m v² of the movable particles, and ½ m v² + ½ ωᵀIω of the dynamic rigid bodies (J). */
  kineticEnergy(): number {
    const { v, mass, invMass, count } = this.store;
    let e = 0;
    for (let i = 0; i < count; i++) {
      if (invMass[i] === 0) continue;
      e += mass[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
    }
    const r = this.rigids;
    for (let i = 0; i < r.count; i++) if (r.invMass[i] !== 0) e += 2 * r.kineticEnergy(i);
    return 0.5 * e;
  }

  /** Linear momentum Σ m v of the movable particles and dynamic rigid bodies into out. */
  linearMomentum(out = new Float64Array(3)): Float64Array {
    const { v, mass, invMass, count } = this.store;
    out.fill(0);
    for (let i = 0; i < count; i++) {
      if (invMass[i] === 0) continue;
      out[0] += mass[i] * v[3 * i];
      out[1] += mass[i] * v[3 * i + 1];
      out[2] += mass[i] * v[3 * i + 2];
    }
    const r = this.rigids;
    for (let i = 0; i < r.count; i++) {
      if (r.invMass[i] === 0) continue;
      for (let k = 0; k < 3; k++) out[k] += r.mass[i] * r.v[3 * i + k];
    }
    return out;
  }

  /** Angular momentum about the origin into out: Σ x × m v of the movable particles, and x × m v + R I Rᵀ ω of the dynamic rigid bodies. */
  angularMomentum(out = new Float64Array(3)): Float64Array {
    const { x, v, mass, invMass, count } = this.store;
    out.fill(0);
    for (let i = 0; i < count; i++) {
      if (invMass[i] === 0) continue;
      const m = mass[i];
      const rx = x[3 * i],
        ry = x[3 * i + 1],
        rz = x[3 * i + 2];
      const vx = v[3 * i] * m,
        vy = v[3 * i + 1] * m,
        vz = v[3 * i + 2] * m;
      out[0] += ry * vz - rz * vy;
      out[1] += rz * vx - rx * vz;
      out[2] += rx * vy - ry * vx;
    }
    const r = this.rigids;
    const spin = this.spin;
    for (let i = 0; i < r.count; i++) {
      if (r.invMass[i] === 0) continue;
      const m = r.mass[i];
      const rx = r.x[3 * i],
        ry = r.x[3 * i + 1],
        rz = r.x[3 * i + 2];
      const vx = r.v[3 * i] * m,
        vy = r.v[3 * i + 1] * m,
        vz = r.v[3 * i + 2] * m;
      r.angularMomentum(i, spin);
      out[0] += ry * vz - rz * vy + spin[0];
      out[1] += rz * vx - rx * vz + spin[1];
      out[2] += rx * vy - ry * vx + spin[2];
    }
    return out;
  }

  /** Largest constraint violation over all sets that report one. */
  maxViolation(): number {
    let m = 0;
    for (const s of this.sets) if (s.enabled && s.maxViolation) m = Math.max(m, s.maxViolation(this.store));
    return m;
  }

  /** Constraint counts by kind, and colour counts. */
  constraintSummary(): { kind: string; count: number; colors: number; wasm: number }[] {
    const byKind = new Map<string, { kind: string; count: number; colors: number; wasm: number }>();
    for (const s of this.sets) {
      const e = byKind.get(s.kind) ?? { kind: s.kind, count: 0, colors: 0, wasm: 0 };
      e.count += s.count;
      if (s.activeBackend === 'wasm') e.wasm += s.count;
      e.colors = Math.max(e.colors, s.colors ?? (s.count > 0 ? 1 : 0));
      byKind.set(s.kind, e);
    }
    return [...byKind.values()];
  }

  /** Total number of constraints (excluding attachments and collider contacts of the current step). */
  constraintCount(): number {
    let c = 0;
    for (const s of this.sets) if (this.setRank.get(s)! >= 0) c += s.count;
    return c;
  }

  /**
   * Starts dragging particle i toward `point` with a soft attachment of the
   * given compliance (m/N). Returns a handle to move and release it; on
   * release the particle keeps its velocity (so it can be thrown).
   */
  grab(i: number, point: Vec3Tuple, compliance = 1e-4): { move(point: Vec3Tuple): void; release(): void } {
    const a = this.attachments;
    if (a.isAttached(i)) {
      throw new PbdError(
        'attachment/busy',
        `grab of particle ${i}`,
        'the particle is already attached',
        'grab another particle or unpin it first',
      );
    }
    a.attach(i, { target: point, compliance });
    return {
      move: (q) => a.setTarget(i, q[0], q[1], q[2]),
      release: () => a.detach(i),
    };
  }

  /**
   * Everything needed to continue the simulation exactly: time, particle
   * arrays and orientation channels, the rigid-body store, and the dynamic
   * state of bodies, sets and colliders.
   */
  saveState(): WorldState {
    const s = this.store;
    const n = s.count;
    return {
      format: 'pbdkit-state',
      version: 2,
      time: this.time,
      steps: this.steps,
      count: n,
      x: s.x.slice(0, 3 * n),
      v: s.v.slice(0, 3 * n),
      mass: s.mass.slice(0, n),
      invMass: s.invMass.slice(0, n),
      orientations:
        s.q.length === 0
          ? null
          : {
              q: s.q.slice(0, 4 * n),
              omega: s.omega.slice(0, 3 * n),
              inertia: s.inertia.length === 0 ? null : s.inertia.slice(0, 3 * n),
            },
      rigids: this.rigids.saveState(),
      ...(this.history ? { history: this.history.save(n) } : {}),
      bodies: this.bodies.map((b) => b.saveState()),
      sets: this.sets.map((set) => (set.saveState ? set.saveState() : null)),
      colliders: this.colliders.map((c) => [...c.position, ...c.rotation]),
    };
  }

  /** Restores a state saved from a world built from the same scene. */
  loadState(state: WorldState): void {
    if (state.format !== 'pbdkit-state') throw new PbdError('state/format', 'state', 'is not a pbdkit state');
    if (state.version !== 2) {
      throw new PbdError(
        'state/version',
        'state',
        `has format version ${state.version}, this pbdkit reads version 2`,
        'start again from the scene (pbdkit simulate --restart)',
      );
    }
    const s = this.store;
    if (
      state.count < s.count ||
      state.bodies.length !== this.bodies.length ||
      state.sets.length !== this.sets.length ||
      (state.orientations === null) !== (s.q.length === 0)
    ) {
      throw new PbdError(
        'state/mismatch',
        'state',
        'was saved from a different scene',
        'resume with the scene that produced it',
      );
    }
    if (state.count > s.count) s.allocate(state.count - s.count, -1);
    s.x.set(state.x);
    s.p.set(state.x);
    s.v.set(state.v);
    s.mass.set(state.mass);
    s.invMass.set(state.invMass);
    const o = state.orientations;
    if (o !== null) {
      s.q.set(o.q);
      s.qp.set(o.q);
      s.omega.set(o.omega);
      if (o.inertia !== null && s.inertia.length > 0) {
        s.inertia.set(o.inertia);
        for (let k = 0; k < o.inertia.length; k++) s.invInertia[k] = inverseMoment(o.inertia[k]);
      }
    }
    this.rigids.loadState(state.rigids);
    // BDF2: x_{n−1}, v_{n−1} from the checkpoint; without them the next substep is implicit Euler
    this.history?.load(state.history, s.x, s.v, state.count);
    this.time = state.time;
    this.steps = state.steps;
    for (let k = 0; k < this.bodies.length; k++) this.bodies[k].loadState(state.bodies[k]);
    this.sets.forEach((set, k) => {
      if (set.loadState && state.sets[k] !== null) set.loadState(state.sets[k]);
    });
    // bodies rebuilding their topology recompute masses: the saved ones (with pins) win
    s.mass.set(state.mass);
    s.invMass.set(state.invMass);
    state.colliders.forEach((c, k) => {
      if (!this.colliders[k]) return;
      this.colliders[k].position.set(c.slice(0, 3));
      this.colliders[k].rotation.set(c.slice(3, 7));
    });
  }
}

/** A snapshot of a World (see World.saveState). */
export interface WorldState {
  format: 'pbdkit-state';
  version: 2;
  time: number;
  steps: number;
  count: number;
  x: Float64Array;
  v: Float64Array;
  mass: Float64Array;
  invMass: Float64Array;
  /** The particles' orientation channels (4 and 3 numbers per particle), null when no body asked for them. */
  orientations: { q: Float64Array; omega: Float64Array; inertia: Float64Array | null } | null;
  rigids: RigidState;
  /** BDF2's x_{n−1}, v_{n−1} and which particles have them (WorldOptions.integrator); null or absent otherwise. */
  history?: { xPrev: Float64Array; vPrev: Float64Array; has: Uint8Array } | null;
  bodies: unknown[];
  sets: unknown[];
  colliders: number[][];
}

/** The attachments (pins, kinematic targets, the mouse drag): the first system of every world. */
const attachmentSystem: SystemKind<Attachments> = {
  name: 'attachments',
  install(world) {
    const a = new Attachments(world.store);
    world.addConstraintSet(a, { system: true });
    return a;
  },
};

/** 1/I, or 0 for an axis that never turns (I = 0 where a range's moments were never set, or Infinity). */
function inverseMoment(I: number): number {
  return I > 0 && Number.isFinite(I) ? 1 / I : 0;
}

const noticed = new Set<string>();

/** A one-line notice, once per text (console.warn where there is a console). */
export function notice(text: string): void {
  if (noticed.has(text)) return;
  noticed.add(text);
  if (typeof console !== 'undefined') console.warn(text);
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
