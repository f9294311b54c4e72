/**
 * The simulation side of the gallery, free of the DOM: it builds a scene,
 * steps it, applies the mouse drag and the panel's settings, and describes
 * the result as plain data (protocol.ts). The worker wraps it in messages;
 * without cross-origin isolation the page calls it directly.
 *
 * Stepping is deterministic: the world advances by fixed steps of `dt`, and
 * every input (drag, settings) is applied between two steps in the order it
 * was sent, so the same inputs give the same states.
 */
import {
  type Body,
  buildScene,
  type ConstraintSet,
  EnergyWatch,
  grabRigidBody,
  PbdError,
  parseSceneText,
  RigidBodies,
  SceneError,
  type SceneInstance,
  type SceneSpec,
  type Tunable,
  type World,
  type WorldCollider,
  type WorldOptions,
} from '../../../src/index.js';
import { grownArray } from '../../../src/math/arrays.js';
import type {
  BodyInfo,
  ColliderInfo,
  FrameInfo,
  LoadError,
  PairSetInfo,
  SceneInfo,
  StoreArrays,
  Vec3,
  WorldSettings,
} from './protocol.js';

export class SimCore {
  private spec: SceneSpec | null = null;
  private file = '';
  private files: Record<string, string> = {};
  private shared = false;
  private inst: SceneInstance | null = null;
  private tunables: Tunable[][] = [];
  private worldOverrides: Partial<WorldSettings> = {};
  private readonly tunableOverrides = new Map<string, { body: number; name: string; value: number }>();
  private grab: { particle: number; handle: { move(p: Vec3): void; release(): void } } | null = null;
  /** Kinetic energy from nowhere (a solver blow-up) shows as a warning in the readout. */
  private watch: EnergyWatch | null = null;
  private sentStoreVersion = -1;
  private sentTopology: number[] = [];
  private sentPairArrays: unknown[] = [];
  /** Per body with a render mesh: the array the page reads (the body's own, or a shared copy) and what it mirrors. */
  private renderMeshes: ({ source: Float64Array; buffer: Float64Array } | null)[] = [];

  get world(): World {
    if (!this.inst) throw new Error('no scene is loaded');
    return this.inst.world;
  }

  /** Parses, validates and builds a scene. Throws PbdError / SceneError. */
  load(text: string, file: string, files: Record<string, string>, shared: boolean): SceneInfo {
    const spec = parseSceneText(text, file);
    this.spec = spec;
    this.file = file;
    this.files = files;
    this.shared = shared;
    this.worldOverrides = {};
    this.tunableOverrides.clear();
    return this.build();
  }

  /** Rebuilds the scene from its file and re-applies the settings changed since it was loaded. */
  reset(): SceneInfo {
    if (!this.spec) throw new Error('no scene is loaded');
    return this.build();
  }

  private build(): SceneInfo {
    const spec = this.spec!;
    this.grab = null;
    const files = this.files;
    // a rebuilt scene lets go of the old world's worker threads
    this.inst?.world.dispose();
    const threads = this.worldOverrides.threads;
    this.inst = buildScene(spec, {
      file: this.file,
      sharedMemory: this.shared,
      ...(threads !== undefined ? { threads } : {}),
      readFile: (path) => {
        const text = files[path] ?? files[path.replace(/^\.\//, '')];
        if (text === undefined) throw new Error(`'${path}' was not provided with the scene`);
        return text;
      },
    });
    this.tunables = this.inst.bodies.map((b) => b.tunables());
    const { threads: _threads, ...live } = this.worldOverrides;
    if (Object.keys(live).length) this.world.configure(live as WorldOptions);
    for (const t of this.tunableOverrides.values()) this.findTunable(t.body, t.name)?.set(t.value);
    this.watch = new EnergyWatch(this.world);
    this.sentStoreVersion = -1;
    this.sentTopology = [];
    this.sentPairArrays = [];
    this.renderMeshes = [];
    return this.describe(this.frame(0, 0, 0));
  }

  /** The scene at its current state: metadata, settings, bodies, colliders and the last frame. */
  private describe(frame: FrameInfo): SceneInfo {
    const inst = this.inst!;
    const spec = this.spec!;
    return {
      file: this.file,
      meta: {
        title: spec.title,
        family: spec.family,
        figure: spec.figure ?? '',
        description: spec.description ?? '',
        camera: spec.camera
          ? { position: spec.camera.position as Vec3, target: spec.camera.target as Vec3 }
          : null,
      },
      world: this.worldSettings(),
      store: this.storeArrays(),
      bodies: inst.bodies.map((b, k) => this.bodyInfo(b, k)),
      colliders: inst.world.colliders.map(colliderInfo),
      pairSets: frame.pairSets ?? this.pairSets(),
      constraintCount: inst.world.constraintCount(),
      threadsAvailable: this.shared ? Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1) : 1,
      constraintKinds: inst.world.constraintSummary().filter((s) => s.count > 0),
      frame: { ...frame, store: null, pairSets: null, topology: [], renderPositions: [] },
    };
  }

  worldSettings(): WorldSettings {
    const w = this.world;
    return {
      dt: w.dt,
      substeps: w.substeps,
      iterations: w.iterations,
      solver: w.solver,
      sweep: w.sweep,
      gravity: [w.gravity[0], w.gravity[1], w.gravity[2]],
      damping: w.damping,
      threads: w.threads,
    };
  }

  private bodyInfo(b: Body, k: number): BodyInfo {
    this.sentTopology[k] = b.topologyVersion;
    const uvs = (b as { uvs?: Float64Array | null }).uvs;
    return {
      name: b.name,
      type: b.type,
      offset: b.offset,
      count: b.count,
      activeCount: b.activeCount,
      topologyVersion: b.topologyVersion,
      triangles: b.renderTriangles().slice(),
      lines: b.renderLines().slice(),
      uvs: uvs instanceof Float64Array ? uvs.slice() : null,
      renderPositions: this.refreshRenderMesh(b, k)?.buffer ?? null,
      tunables: this.tunables[k].map((t) => ({
        name: t.name,
        min: t.min,
        max: t.max,
        log: !!t.log,
        value: t.get(),
      })),
    };
  }

  /**
   * Brings a body's render mesh up to date (`renderPositions()`) and returns
   * the array the page reads, with `replaced` when it is not the one sent
   * before. That is the body's own array when it lives on the store's kind
   * of memory (embeddings and skins allocate with `store.float64`, so in the
   * worker the page reads it in place); otherwise a SharedArrayBuffer copy,
   * refreshed here.
   */
  private refreshRenderMesh(b: Body, k: number): { buffer: Float64Array; replaced: boolean } | null {
    if (!b.hasRenderMesh) return null;
    const source = b.renderPositions();
    const prev = this.renderMeshes[k];
    if (prev && prev.source === source) {
      if (prev.buffer !== source) prev.buffer.set(source);
      return { buffer: prev.buffer, replaced: false };
    }
    const shared = this.world.store.shared;
    const buffer =
      !shared || source.buffer instanceof SharedArrayBuffer
        ? source
        : new Float64Array(new SharedArrayBuffer(source.byteLength));
    if (buffer !== source) buffer.set(source);
    this.renderMeshes[k] = { source, buffer };
    return { buffer, replaced: prev !== undefined };
  }

  private storeArrays(): StoreArrays {
    const s = this.world.store;
    return {
      x: s.x,
      v: s.v,
      mass: s.mass,
      invMass: s.invMass,
      radius: s.radius,
      count: s.count,
      version: s.version,
    };
  }

  /**
   * Takes up to n steps, stopping early once `budgetMs` of wall time has been
   * spent (0: no limit), and describes the state reached.
   */
  step(n: number, budgetMs = 0): FrameInfo {
    const w = this.world;
    const t0 = performance.now();
    let taken = 0;
    let sum = 0;
    let max = 0;
    const labels = w.timings.labels();
    let times = new Float64Array(labels.length);
    while (taken < n) {
      w.step();
      this.watch?.observe();
      taken++;
      sum += w.stats.stepMs;
      if (w.stats.stepMs > max) max = w.stats.stepMs;
      if (times.length < labels.length) times = grownArray(times, labels.length);
      for (let k = 0; k < labels.length; k++) times[k] += w.timings.ms(labels[k]);
      if (budgetMs > 0 && performance.now() - t0 >= budgetMs) break;
    }
    const timings: FrameInfo['timings'] = [];
    for (let k = 0; k < times.length; k++) {
      if (times[k] > 0) timings.push({ label: labels[k], ms: times[k] / taken });
    }
    return this.frame(taken, taken ? sum / taken : 0, max, timings);
  }

  private frame(
    stepped: number,
    stepMs: number,
    stepMsMax: number,
    timings: FrameInfo['timings'] = [],
  ): FrameInfo {
    const inst = this.inst!;
    const w = inst.world;
    const store = w.store;
    const bodies = inst.bodies;
    const activeCounts = new Int32Array(bodies.length);
    const topologyVersions = new Int32Array(bodies.length);
    const topology: FrameInfo['topology'] = [];
    const renderPositions: FrameInfo['renderPositions'] = [];
    let particles = 0;
    bodies.forEach((b, k) => {
      // render meshes are refreshed once per batch, after its last step
      if (this.renderMeshes[k] !== undefined) {
        const r = this.refreshRenderMesh(b, k);
        if (r?.replaced) renderPositions.push({ body: k, positions: r.buffer });
      }
      activeCounts[k] = b.activeCount;
      topologyVersions[k] = b.topologyVersion;
      particles += b.activeCount;
      if (this.sentTopology[k] !== undefined && this.sentTopology[k] !== b.topologyVersion) {
        const uvs = (b as { uvs?: Float64Array | null }).uvs;
        topology.push({
          body: k,
          triangles: b.renderTriangles().slice(),
          uvs: uvs instanceof Float64Array ? uvs.slice() : null,
        });
      }
      this.sentTopology[k] = b.topologyVersion;
    });
    const x = store.x;
    let nonFinite = 0;
    for (let k = 0, m = 3 * store.count; k < m; k++) if (!Number.isFinite(x[k])) nonFinite++;
    const poses = new Float64Array(7 * w.colliders.length);
    w.colliders.forEach((c, k) => {
      poses.set(c.position, 7 * k);
      poses.set(c.rotation, 7 * k + 3);
    });
    let storeArrays: StoreArrays | null = null;
    if (store.version !== this.sentStoreVersion) {
      storeArrays = this.storeArrays();
      this.sentStoreVersion = store.version;
    }
    return {
      steps: w.steps,
      time: w.time,
      stepped,
      stepMs,
      stepMsMax,
      timings,
      workerBlocks: (w.scheduler as { workerBlocks?: number }).workerBlocks ?? 0,
      kineticEnergy: w.kineticEnergy(),
      maxViolation: w.maxViolation(),
      violations: violationsByKind(w),
      recoveries: w.stats.recoveries,
      speedClamps: w.stats.speedClamps,
      energyWarning: this.watch?.first ? EnergyWatch.describe(this.watch.first) : null,
      nonFinite,
      particleCount: particles,
      constraintCount: w.constraintCount(),
      colliderPoses: poses,
      activeCounts,
      topologyVersions,
      topology,
      renderPositions,
      store: storeArrays,
      pairSets: this.pairSetsIfChanged(),
      grabbed: this.grab ? this.grab.particle : -1,
    };
  }

  /** Pair constraint sets (distance-like: two indices and a rest length each), when they changed. */
  private pairSetsIfChanged(): PairSetInfo[] | null {
    const sets = this.world.sets.filter(isPairSet);
    const arrays = sets.flatMap((s) => [s.indices, s.rest]);
    if (
      arrays.length === this.sentPairArrays.length &&
      arrays.every((a, k) => a === this.sentPairArrays[k])
    ) {
      return null;
    }
    this.sentPairArrays = arrays;
    return this.pairSets();
  }

  private pairSets(): PairSetInfo[] {
    return this.world.sets.filter(isPairSet).map((s) => ({
      kind: s.kind,
      indices: Int32Array.from(s.indices.subarray(0, 2 * s.count)),
      rest: s.rest.slice(0, s.count),
    }));
  }

  /** Starts dragging a particle (ignored for pinned or attached particles). */
  grabParticle(particle: number, point: Vec3, compliance: number): boolean {
    this.releaseParticle();
    const w = this.world;
    if (!(particle >= 0 && particle < w.store.count) || w.store.invMass[particle] === 0) return false;
    if (w.attachments.isAttached(particle)) return false;
    this.grab = { particle, handle: w.grab(particle, point, compliance) };
    return true;
  }

  dragTo(point: Vec3): void {
    this.grab?.handle.move(point);
  }

  /**
   * Starts dragging the rigid body that collider k draws, at `point`, with
   * the mouse's pull k ∈ (0, 1] of RunState.dragPull: compliance
   * α = h² (1 − k)/(k m) with the body's mass m. False when it is no
   * dynamic rigid body. `local`: the point picked, in the body's frame of
   * the pose the page drew (grabRigidBody).
   */
  grabRigid(collider: number, point: Vec3, pull: number, local?: Vec3): boolean {
    this.releaseParticle();
    const w = this.world;
    const b = w.colliders[collider]?.rigid ?? -1;
    if (b < 0 || w.rigids.invMass[b] === 0) return false;
    const h = w.dt / w.substeps;
    const m = w.rigids.mass[b];
    const compliance = pull > 0 && pull < 1 ? (h * h * (1 - pull)) / (pull * m) : 0;
    this.grab = { particle: -1, handle: grabRigidBody(w, b, point, compliance, local) };
    return true;
  }

  /** Throws the rigid body that collider k draws: its velocity becomes `velocity` (m/s). */
  throwRigid(collider: number, velocity: Vec3): boolean {
    const w = this.world;
    const b = w.colliders[collider]?.rigid ?? -1;
    if (b < 0 || w.rigids.invMass[b] === 0) return false;
    RigidBodies.of(w).wake(b);
    w.rigids.v.set(velocity, 3 * b);
    this.watch?.rebase(); // a throw is a new start
    return true;
  }

  /** Lets go: the particle keeps its velocity and can be thrown. */
  releaseParticle(): void {
    if (!this.grab) return;
    this.grab.handle.release();
    this.grab = null;
    this.watch?.rebase(); // a throw is a new start
  }

  /** Changes world settings (validated by World.configure); they survive a reset. */
  configureWorld(settings: Partial<WorldSettings>): void {
    const { threads, ...live } = settings;
    if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1 && threads <= 256)) {
      throw new PbdError(
        'world/invalid',
        'world.threads',
        `must be an integer from 1 to 256, got ${threads}`,
      );
    }
    // threads take effect when the scene is rebuilt (the page resets it)
    this.world.configure(live as WorldOptions);
    Object.assign(this.worldOverrides, settings);
    this.watch?.rebase();
  }

  /** Sets a body's tunable parameter; it survives a reset. */
  setTunable(body: number, name: string, value: number): void {
    const t = this.findTunable(body, name);
    if (!t) throw new PbdError('gallery/tunable', `bodies[${body}]`, `has no tunable parameter '${name}'`);
    if (!(value >= t.min && value <= t.max)) {
      throw new PbdError(
        'gallery/tunable',
        `bodies[${body}].${name}`,
        `must lie in [${t.min}, ${t.max}], got ${value}`,
      );
    }
    t.set(value);
    this.tunableOverrides.set(`${body}\u0000${name}`, { body, name, value });
  }

  private findTunable(body: number, name: string): Tunable | undefined {
    return this.tunables[body]?.find((t) => t.name === name);
  }
}

/** The largest violation of each constraint kind (sets of one kind pooled), with its unit. */
export function violationsByKind(w: World): FrameInfo['violations'] {
  const out: FrameInfo['violations'] = [];
  for (const s of w.sets) {
    if (!s.enabled || !s.maxViolation || s.count === 0) continue;
    const value = s.maxViolation(w.store);
    const row = out.find((r) => r.kind === s.kind);
    if (row) row.value = Math.max(row.value, value);
    else out.push({ kind: s.kind, unit: s.violationUnit ?? '', value });
  }
  return out;
}

function isPairSet(s: ConstraintSet): s is ConstraintSet & { indices: Int32Array; rest: Float64Array } {
  const o = s as unknown as { indices?: unknown; rest?: unknown };
  return (
    (o.indices instanceof Int32Array || o.indices instanceof Uint32Array) &&
    o.rest instanceof Float64Array &&
    o.indices.length >= 2 * s.count &&
    o.rest.length >= s.count &&
    s.count > 0
  );
}

function colliderInfo(c: WorldCollider): ColliderInfo {
  const o = c as unknown as {
    radius?: unknown;
    halfExtents?: unknown;
    halfHeight?: unknown;
    mesh?: { positions?: unknown; triangles?: unknown };
    inside?: unknown;
  };
  const m = o.mesh;
  return {
    type: c.type,
    name: c.name,
    radius: typeof o.radius === 'number' ? o.radius : undefined,
    halfExtents: o.halfExtents instanceof Float64Array ? Array.from(o.halfExtents) : undefined,
    halfHeight: typeof o.halfHeight === 'number' ? o.halfHeight : undefined,
    mesh:
      m && m.positions instanceof Float64Array && m.triangles instanceof Uint32Array
        ? { positions: Float32Array.from(m.positions), triangles: Uint32Array.from(m.triangles) }
        : undefined,
    inside: o.inside === true,
    pose: [...c.position, ...c.rotation],
    kinematic: c.kinematic,
    rigid: c.rigid ?? -1,
  };
}

/** A load or settings error as plain data, with every validation issue and its JSON path. */
export function describeError(e: unknown, file: string): LoadError {
  if (e instanceof SceneError) {
    return { file, code: e.code, message: e.message, issues: e.issues.map((i) => ({ ...i })) };
  }
  if (e instanceof PbdError) {
    return {
      file,
      code: e.code,
      message: e.message,
      issues: [{ path: e.where, message: e.detail + (e.hint ? ` — ${e.hint}` : '') }],
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { file, code: 'error', message, issues: [] };
}
