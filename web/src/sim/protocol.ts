/**
 * What the simulation (in a worker or on the main thread) tells the page.
 * Plain data: it crosses postMessage by structured clone, and typed arrays
 * on SharedArrayBuffer cross it shared, not copied.
 */

/** The store's arrays the page reads (shared with the worker when the page is cross-origin isolated). */
export interface StoreArrays {
  x: Float64Array;
  v: Float64Array;
  mass: Float64Array;
  invMass: Float64Array;
  radius: Float64Array;
  count: number;
  version: number;
}

export interface TunableInfo {
  name: string;
  min: number;
  max: number;
  log: boolean;
  value: number;
}

export interface BodyInfo {
  name: string;
  type: string;
  offset: number;
  count: number;
  activeCount: number;
  topologyVersion: number;
  /**
   * Triangle indices: body-local particle indices, or indices into
   * `renderPositions` for a body with a render mesh (empty for bodies drawn
   * as particles).
   */
  triangles: Uint32Array;
  /** Line segments, pairs of body-local particle indices (a strand body's strands; empty otherwise). */
  lines: Uint32Array;
  uvs: Float64Array | null;
  /**
   * The vertices (xyz) of the body's render mesh (an embedded or skinned
   * surface, `Body.hasRenderMesh`), or null when it draws its particles. On
   * shared memory in the worker, refreshed after every batch of steps.
   */
  renderPositions: Float64Array | null;
  tunables: TunableInfo[];
}

export interface ColliderInfo {
  type: string;
  name: string;
  radius?: number;
  halfExtents?: number[];
  halfHeight?: number;
  /** A mesh collider's triangles in its local frame. */
  mesh?: { positions: Float32Array; triangles: Uint32Array };
  /** A mesh collider holding things inside it. */
  inside?: boolean;
  /** position xyz and quaternion xyzw */
  pose: number[];
  kinematic: boolean;
  /** The rigid body (a rigid store index) this collider follows and draws, or −1. */
  rigid: number;
}

/** A constraint set over particle pairs with rest lengths (drawn as the strain overlay). */
export interface PairSetInfo {
  kind: string;
  indices: Int32Array;
  rest: Float64Array;
}

export interface WorldSettings {
  dt: number;
  substeps: number;
  iterations: number;
  solver: 'xpbd' | 'pbd';
  sweep: 'symmetric' | 'forward';
  gravity: [number, number, number];
  damping: number;
  /**
   * Threads the step computes on (World threads: the same numbers on any
   * count). Changing it rebuilds the scene; where the page is not
   * cross-origin isolated the world runs on one thread.
   */
  threads: number;
}

export interface SceneMeta {
  title: string;
  family: string;
  figure: string;
  description: string;
  camera: { position: [number, number, number]; target: [number, number, number] } | null;
}

export interface SceneInfo {
  file: string;
  meta: SceneMeta;
  world: WorldSettings;
  store: StoreArrays;
  bodies: BodyInfo[];
  colliders: ColliderInfo[];
  pairSets: PairSetInfo[];
  constraintCount: number;
  /** Threads a world may use here: the cores when memory can be shared with workers, else 1. */
  threadsAvailable: number;
  /** Constraints per kind; `wasm` of them projected by WebAssembly kernels. */
  constraintKinds: { kind: string; count: number; colors: number; wasm: number }[];
  frame: FrameInfo;
}

/** Sent after every batch of steps; the worker is idle until the page asks for more. */
export interface FrameInfo {
  steps: number;
  time: number;
  /** Steps taken in this batch. */
  stepped: number;
  /** Mean and largest wall time of a step in this batch (ms). */
  stepMs: number;
  stepMsMax: number;
  kineticEnergy: number;
  maxViolation: number;
  /**
   * The largest violation per constraint kind, in that kind's unit ('m',
   * 'rad', 'm²', 'm³', 'relative': ConstraintSet.violationUnit; '' when
   * the set does not say).
   */
  violations: { kind: string; unit: string; value: number }[];
  /**
   * Where the time of a step goes (World.timings, docs/solver.md): ms per
   * step, mean over the batch, for each labelled part of the step with
   * time in it, in the order the step runs them.
   */
  timings: { label: string; ms: number }[];
  /** Blocks of constraints the world's worker threads have projected so far (0 on one thread). */
  workerBlocks: number;
  recoveries: number;
  speedClamps: number;
  /** Set when a body gained kinetic energy from nowhere (EnergyWatch): what, when and how much. */
  energyWarning: string | null;
  /** Particle coordinates that are not finite (must stay 0). */
  nonFinite: number;
  particleCount: number;
  constraintCount: number;
  /** 7 numbers per collider: position and quaternion. */
  colliderPoses: Float64Array;
  /** Per body: active particles and topology version. */
  activeCounts: Int32Array;
  topologyVersions: Int32Array;
  /** Bodies whose topology changed since the last frame: their new triangles. */
  topology: { body: number; triangles: Uint32Array; uvs: Float64Array | null }[];
  /** Render mesh vertex arrays that were replaced (a render mesh that changed its vertex count). */
  renderPositions: { body: number; positions: Float64Array }[];
  /** New store arrays when the store was reallocated. */
  store: StoreArrays | null;
  /** New pair sets when they changed (tearing). */
  pairSets: PairSetInfo[] | null;
  /** Particle being dragged, or −1. */
  grabbed: number;
}

/** A scene that failed to load: where and what, with every validation issue. */
export interface LoadError {
  file: string;
  code: string;
  message: string;
  issues: { path: string; message: string }[];
}

export type Vec3 = [number, number, number];

/** Page → worker. Requests with an `id` get a reply with the same id. */
export type Request =
  | { type: 'load'; id: number; text: string; file: string; files: Record<string, string>; shared: boolean }
  | { type: 'reset'; id: number }
  | { type: 'step'; id: number; n: number; budgetMs: number }
  | { type: 'grab'; particle: number; point: Vec3; compliance: number }
  | { type: 'drag'; point: Vec3 }
  | { type: 'release' }
  | { type: 'grabRigid'; collider: number; point: Vec3; pull: number; local?: Vec3 }
  | { type: 'throwRigid'; collider: number; velocity: Vec3 }
  | { type: 'world'; settings: Partial<WorldSettings> }
  | { type: 'tunable'; body: number; name: string; value: number };

export type Reply =
  | { type: 'scene'; id: number; scene: SceneInfo }
  | { type: 'frame'; id: number; frame: FrameInfo }
  | { type: 'error'; id: number; error: LoadError };
