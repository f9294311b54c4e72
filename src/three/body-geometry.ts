import { BufferAttribute, BufferGeometry } from 'three';
import { accumulateFaceNormals } from '../mesh/triangle-mesh.js';
import { uploadFirst } from './attributes.js';
import { type BodySource, type StoreSource, storeOf, type WorldBodySource } from './sources.js';

export interface BodyGeometryOptions {
  /** The particle store, when the body has no `world` (e.g. a mirror of a body simulated in a worker). */
  store?: StoreSource;
  /** Compute smooth vertex normals on every update (default true). */
  normals?: boolean;
}

/**
 * A three.js BufferGeometry over a body's render triangles, kept in step
 * with the simulation by `update()`.
 *
 * Its vertices are the body's active particles, or, for a body with a
 * render mesh of its own (`hasRenderMesh`: an embedded or skinned
 * high-resolution surface), the vertices of `renderPositions()`.
 *
 * What one update copies, and nothing more:
 * - the vertex positions, converted once from Float64 to a Float32Array
 *   (WebGL has no double attributes); only the range in use is marked for
 *   upload (`addUpdateRange`), so spare particles a tearing cloth reserves
 *   are never sent to the GPU;
 * - area-weighted vertex normals, computed in place into a preallocated
 *   array (no per-vertex objects);
 * - the index, only when the body's `topologyVersion` changed (tearing).
 *
 * The attributes are allocated once for the body's whole particle range (or
 * its render mesh), so the geometry never reallocates while the body tears;
 * only a render mesh that grows past them makes it reallocate. Bounds are
 * reset on every update and recomputed lazily by three when it needs them
 * (ray casts).
 */
export class BodyGeometry extends BufferGeometry {
  readonly body: BodySource;
  /** Vertices currently in use (the body's active particles, or its render mesh's vertices). */
  vertexCount = 0;
  private readonly store: StoreSource;
  private readonly withNormals: boolean;
  private readonly renderMesh: boolean;
  private positionArray!: Float32Array;
  private normalArray: Float32Array | null = null;
  private uvArray: Float32Array | null = null;
  private topologyVersion = Number.NaN;

  constructor(body: BodySource | WorldBodySource, options: BodyGeometryOptions = {}) {
    super();
    this.body = body;
    this.store = storeOf(body, options.store);
    this.withNormals = options.normals ?? true;
    this.renderMesh = !!body.hasRenderMesh && typeof body.renderPositions === 'function';
    const n = this.renderMesh ? body.renderPositions!().length / 3 : body.count;
    this.allocate(Math.max(1, n));
    this.update();
  }

  /** (Re)allocates the vertex attributes for `n` vertices. */
  private allocate(n: number): void {
    this.positionArray = new Float32Array(3 * n);
    this.setAttribute('position', new BufferAttribute(this.positionArray, 3));
    if (this.withNormals) {
      this.normalArray = new Float32Array(3 * n);
      this.setAttribute('normal', new BufferAttribute(this.normalArray, 3));
    }
    // texture coordinates belong to the particles: a render mesh has none
    if (this.body.uvs && !this.renderMesh) {
      this.uvArray = new Float32Array(2 * n);
      this.setAttribute('uv', new BufferAttribute(this.uvArray, 2));
    }
  }

  /** Copies the body's current state into the geometry; call once per rendered frame. */
  update(): void {
    const body = this.body;
    let src: ArrayLike<number>;
    let base: number;
    let n: number;
    if (this.renderMesh) {
      src = body.renderPositions!();
      base = 0;
      n = Math.floor(src.length / 3);
      if (3 * n > this.positionArray.length) {
        // a render mesh that grew: new attributes, and the renderer drops the old buffers
        this.dispose();
        this.allocate(n);
        this.topologyVersion = Number.NaN;
      }
    } else {
      src = this.store.x;
      base = 3 * body.offset;
      n = Math.min(body.activeCount, body.count);
    }
    const pos = this.positionArray;
    const n3 = 3 * n;
    for (let k = 0; k < n3; k++) pos[k] = src[base + k];
    this.vertexCount = n;
    if (body.topologyVersion !== this.topologyVersion) this.updateTopology();
    const position = this.attributes.position as BufferAttribute;
    uploadFirst(position, n3);
    if (this.normalArray) {
      computeVertexNormals(pos, this.index ? (this.index.array as Uint32Array) : null, n, this.normalArray);
      const normal = this.attributes.normal as BufferAttribute;
      uploadFirst(normal, n3);
    }
    this.boundingSphere = null;
    this.boundingBox = null;
  }

  private updateTopology(): void {
    const body = this.body;
    this.topologyVersion = body.topologyVersion;
    const tris = body.renderTriangles();
    const index = this.index;
    if (index && index.array.length === tris.length) {
      (index.array as Uint32Array).set(tris);
      index.needsUpdate = true;
    } else {
      this.setIndex(new BufferAttribute(new Uint32Array(tris), 1));
    }
    this.setDrawRange(0, tris.length);
    if (this.uvArray && body.uvs) {
      const m = Math.min(this.uvArray.length, body.uvs.length);
      for (let k = 0; k < m; k++) this.uvArray[k] = body.uvs[k];
      (this.attributes.uv as BufferAttribute).needsUpdate = true;
    }
  }
}

/**
 * Area-weighted vertex normals of the triangles over the first `n` vertices
 * of `pos` (the unnormalised face normal is twice the triangle's area),
 * written into `out`. Vertices on no triangle get a zero normal.
 */
export function computeVertexNormals(
  pos: ArrayLike<number>,
  triangles: ArrayLike<number> | null,
  n: number,
  out: Float32Array,
): void {
  const n3 = 3 * n;
  for (let k = 0; k < n3; k++) out[k] = 0;
  if (!triangles) return;
  accumulateFaceNormals(pos, triangles, out);
  for (let k = 0; k < n3; k += 3) {
    const l2 = out[k] * out[k] + out[k + 1] * out[k + 1] + out[k + 2] * out[k + 2];
    if (l2 > 0) {
      const s = 1 / Math.sqrt(l2);
      out[k] *= s;
      out[k + 1] *= s;
      out[k + 2] *= s;
    }
  }
}
