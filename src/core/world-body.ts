import type { ConstraintSet } from './constraint-set.js';
import type { WorldView } from './step-context.js';

/**
 * A body as the World and its users see it: a named, contiguous range
 * [offset, offset + count) of the particle store with the constraint sets
 * that act on it. `Body` (core/body.ts) is the base class that method
 * families extend; the World holds its bodies through this interface, so
 * that the World class does not depend on the class that depends on it.
 */
export interface WorldBody {
  /** The world the body lives in. */
  readonly world: WorldView;
  readonly id: number;
  readonly name: string;
  /** What kind of body this is, e.g. 'cloth'. */
  readonly type: string;
  /** Index of the first particle of the body in the store. */
  readonly offset: number;
  /** Particles reserved for the body (some may be inactive spares, e.g. for tearing). */
  readonly count: number;
  /** Number of particles in use (≤ count). */
  readonly activeCount: number;
  /** The body's constraint sets, in the order they were added. */
  readonly sets: readonly ConstraintSet[];
  /** Increases when the body's topology (render triangles) changes. */
  readonly topologyVersion: number;
  /** A view of the body's current positions (xyz interleaved), valid until the store grows. */
  positions(): Float64Array;
  /** A view of the body's velocities. */
  velocities(): Float64Array;
  /** Triangles to render, indexing the vertices of `renderPositions()`. */
  renderTriangles(): Uint32Array;
  /** Line segments to render (pairs of indices into `renderPositions()`): a strand body's strands. */
  renderLines(): Uint32Array;
  /** Triangles over the body's own particles (body-local indices) that contacts use. */
  contactTriangles(): Uint32Array;
  /** Line segments over the body's own particles (body-local pairs) that contacts use as capsules. */
  contactLines(): Uint32Array;
  /** Vertex positions that `renderTriangles()` index (the particles, or an embedded render mesh). */
  renderPositions(): Float64Array;
  /** True when `renderPositions()` is an embedded render mesh rather than the particles. */
  readonly hasRenderMesh: boolean;
  /** Dynamic state a checkpoint needs beyond the stores (topology, rest state …). */
  saveState(): unknown;
  loadState(state: unknown): void;
  /** Parameters that can be tuned while running (gallery panel), by name. */
  tunables(): Tunable[];
}

/** A live-tunable parameter of a body or of the world. */
export interface Tunable {
  /** Dotted name, e.g. 'stretch.compliance'. */
  name: string;
  min: number;
  max: number;
  /** Use a logarithmic slider. */
  log?: boolean;
  get(): number;
  set(value: number): void;
}
