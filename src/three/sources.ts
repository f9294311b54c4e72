/**
 * What the three.js adapter reads. `Body` and `ParticleStore` satisfy these
 * interfaces, and so can lightweight mirrors of a body simulated elsewhere
 * (a Web Worker sharing the store's SharedArrayBuffers, as the gallery does).
 */

/** The particle arrays the adapter reads; re-read on every update because a store replaces them when it grows. */
export interface StoreSource {
  /** Positions, xyz interleaved. */
  readonly x: Float64Array;
  /** Contact radius per particle (m). */
  readonly radius: Float64Array;
  /** Velocities, xyz interleaved (read when particles are coloured by speed). */
  readonly v?: Float64Array;
  /** Increases when the arrays are reallocated. */
  readonly version: number;
}

/**
 * A body: a contiguous particle range and, optionally, a triangle surface —
 * over the particles, or over a render mesh of its own (an embedded or
 * skinned high-resolution surface, `hasRenderMesh`).
 */
export interface BodySource {
  /** First particle of the body in the store. */
  readonly offset: number;
  /** Particles reserved for the body (an upper bound of `activeCount`). */
  readonly count: number;
  /** Particles in use. */
  readonly activeCount: number;
  /** Changes whenever `renderTriangles()` changes (tearing). */
  readonly topologyVersion: number;
  /**
   * Triangles in body-local vertex indices, or indices into
   * `renderPositions()` when `hasRenderMesh`; empty when the body has no
   * surface.
   */
  renderTriangles(): Uint32Array;
  /** Line segments (pairs of body-local particle indices): a strand body's strands; absent or empty otherwise. */
  renderLines?(): Uint32Array;
  /**
   * True when the body draws a render mesh of its own rather than its
   * particles; it must not change over the body's life.
   */
  readonly hasRenderMesh?: boolean;
  /**
   * The render mesh's vertices (xyz interleaved), read only when
   * `hasRenderMesh`. A `Body` brings them up to date on each call; a mirror
   * of a body simulated elsewhere returns the array it was sent.
   */
  renderPositions?(): ArrayLike<number>;
  /** Texture coordinates, two per vertex, when the body has them. */
  readonly uvs?: Float64Array | null;
}

/** A body together with the world that owns it (what a `Body` is). */
export interface WorldBodySource extends BodySource {
  readonly world: { readonly store: StoreSource };
}

/** A collider's shape and pose; `Collider` and its subclasses satisfy it. */
export interface ColliderSource {
  /** 'plane', 'sphere', 'box', 'capsule', 'mesh'; other types are not drawn. */
  readonly type: string;
  /** Position (m). */
  readonly position: ArrayLike<number>;
  /** Orientation as a quaternion (x, y, z, w). */
  readonly rotation: ArrayLike<number>;
  /** Sphere and capsule radius (m). */
  readonly radius?: number;
  /** Box half extents (m). */
  readonly halfExtents?: ArrayLike<number>;
  /** Capsule half length along its local y axis (m). */
  readonly halfHeight?: number;
  /** A mesh collider's triangles in its local frame. */
  readonly mesh?: { readonly positions: ArrayLike<number>; readonly triangles: ArrayLike<number> };
  /** A mesh collider whose free space is its inside (a container): drawn by its back faces. */
  readonly inside?: boolean;
}

/** The store of `body`, or `store` when given. */
export function storeOf(body: BodySource | WorldBodySource, store?: StoreSource): StoreSource {
  if (store) return store;
  if ('world' in body && body.world) return body.world.store;
  throw new TypeError('pbdkit/three: pass the particle store of a body that has no world');
}
