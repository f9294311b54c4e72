import type { AttachOptions } from './attachments.js';
import type { ConstraintSet } from './constraint-set.js';
import { PbdError } from './errors.js';
import type { ProjectionRule } from './solver.js';
import type { World } from './world.js';
import type { Tunable, WorldBody } from './world-body.js';

export type { Tunable } from './world-body.js';

/** The live-tunable stiffness k ∈ [0, 1] of a set's projection rule (name: e.g. 'stretch.stiffness'). */
export function stiffnessTunable(name: string, rule: ProjectionRule): Tunable {
  return {
    name,
    min: 0,
    max: 1,
    get: () => rule.stiffness,
    set: (v) => rule.set({ stiffness: v }),
  };
}

/** The live-tunable compliance α of a set's projection rule, a log slider over [min, max] (name: e.g. 'stretch.compliance'). */
export function complianceTunable(name: string, rule: ProjectionRule, min: number, max: number): Tunable {
  return {
    name,
    min,
    max,
    log: true,
    get: () => rule.compliance,
    set: (v) => rule.set({ compliance: v }),
  };
}

/**
 * A body is a named, contiguous range [offset, offset + count) of the
 * world's particle store together with the constraint sets that act on it.
 * Method families subclass it (Cloth, SoftBody, …); the World knows only
 * this interface.
 */
export abstract class Body implements WorldBody {
  readonly world: World;
  readonly id: number;
  readonly name: string;
  /** Index of the first particle of the body in the store. */
  readonly offset: number;
  /** Particles reserved for the body (some may be inactive spares, e.g. for tearing). */
  readonly count: number;
  /** The body's constraint sets, in the order they were added. */
  readonly sets: ConstraintSet[] = [];
  /** What kind of body this is, e.g. 'cloth'. */
  abstract readonly type: string;
  /** Increases when the body's topology (render triangles) changes. */
  topologyVersion = 0;

  protected constructor(world: World, name: string, count: number) {
    this.world = world;
    this.id = world.bodies.length;
    this.name = name || `body${this.id}`;
    this.offset = world.store.allocate(count, this.id);
    this.count = count;
    world.registerBody(this);
  }

  /** Puts the body's particles at `positions` (xyz per particle, from its first): x = p = positions. */
  protected place(positions: ArrayLike<number>): void {
    const store = this.world.store;
    store.x.set(positions, 3 * this.offset);
    store.p.set(positions, 3 * this.offset);
  }

  /** Adds a constraint set of this body to the world's step loop. */
  protected addSet<T extends ConstraintSet>(set: T): T {
    this.sets.push(set);
    this.world.addConstraintSet(set);
    return set;
  }

  /**
   * Throws unless `vertex` is a vertex of the body (body-local, below `limit`, the particles in
   * use by default); `kind` names the body in the error ('cloth', 'softbody' …).
   */
  protected checkVertex(vertex: number, kind: string, limit = this.activeCount): void {
    if (!(Number.isInteger(vertex) && vertex >= 0 && vertex < limit)) {
      throw new PbdError(
        `${kind}/bad-vertex`,
        `${kind} '${this.name}'`,
        `has no vertex ${vertex} (it has ${limit})`,
      );
    }
  }

  /** Attaches a vertex (body-local, checked as by checkVertex) where it is, to a motion, or softly. */
  protected attachVertex(vertex: number, kind: string, opts: AttachOptions = {}): void {
    this.checkVertex(vertex, kind);
    this.world.attachments.attach(this.offset + vertex, opts);
  }

  /** Number of particles in use (≤ count). */
  get activeCount(): number {
    return this.count;
  }

  /**
   * A view of the body's current positions (xyz interleaved): the live array, which later steps
   * move in place (the kernels work on the store's arrays: StoreMemory, docs/architecture.md
   * "Live views"), also when taken before the first step. It goes stale only when the store's
   * arrays are reallocated — the store grows (a body added, tearing, an emitter), or a world made
   * with `storeMemory: false` moves them into a kernel memory at its first step — and
   * `world.store.version` increases then: take a new view when it changed.
   */
  positions(): Float64Array {
    return this.world.store.x.subarray(3 * this.offset, 3 * (this.offset + this.activeCount));
  }

  /** A view of the body's velocities. */
  velocities(): Float64Array {
    return this.world.store.v.subarray(3 * this.offset, 3 * (this.offset + this.activeCount));
  }

  /**
   * Triangles to render, indexing the vertices of `renderPositions()`;
   * empty for bodies without a surface.
   */
  renderTriangles(): Uint32Array {
    return new Uint32Array(0);
  }

  /**
   * Line segments to render (two indices into `renderPositions()` each):
   * the strands of a strand body; empty for bodies without lines.
   */
  renderLines(): Uint32Array {
    return new Uint32Array(0);
  }

  /**
   * Triangles over the body's own particles (body-local indices) that
   * contacts use: the surface of a cloth, of a soft body's tet mesh, of a
   * surface shape-matched body. By default the render triangles when the
   * body draws its particles; none when it draws a render mesh of its own
   * (those triangles index the render mesh's vertices, not particles).
   */
  contactTriangles(): Uint32Array {
    return this.hasRenderMesh ? new Uint32Array(0) : this.renderTriangles();
  }

  /**
   * Line segments over the body's own particles (two body-local indices
   * each) that contacts treat as capsules of the particles' radii: the
   * segments of a strand body. By default the render lines when the body
   * draws its particles, none otherwise.
   */
  contactLines(): Uint32Array {
    return this.hasRenderMesh ? new Uint32Array(0) : this.renderLines();
  }

  /**
   * Vertex positions (xyz interleaved) that `renderTriangles()` index. By
   * default the body's particle positions (body-local indices); a body with
   * an embedded high-resolution render mesh (002 §5) returns that mesh's
   * deformed vertices instead. Renderers and exporters read these two.
   */
  renderPositions(): Float64Array {
    return this.positions();
  }

  /**
   * The body's rest shape, body-local xyz per particle, when it has one (null
   * by default). Contacts use it to tell a collapsed part of a body and to
   * restore it (docs/collision.md, degenerate input).
   */
  restShape(): Float64Array | null {
    return null;
  }

  /** True when `renderPositions()` is an embedded render mesh rather than the particles. */
  get hasRenderMesh(): boolean {
    return false;
  }

  /** Dynamic state a checkpoint needs beyond the particle arrays (topology, rest state …). */
  saveState(): unknown {
    return null;
  }

  loadState(_state: unknown): void {}

  /** Parameters that can be tuned while running (gallery panel), by name. */
  tunables(): Tunable[] {
    return [];
  }
}
