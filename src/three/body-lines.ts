import { BufferAttribute, BufferGeometry, LineBasicMaterial, LineSegments, type Material } from 'three';
import { uploadFirst } from './attributes.js';
import { type BodySource, type StoreSource, storeOf, type WorldBodySource } from './sources.js';

export interface BodyLinesOptions {
  /** The particle store, when the body has no `world`. */
  store?: StoreSource;
  /** Line colour (default a dark brown, like hair). */
  color?: number | string;
  material?: Material;
}

/**
 * A body's line segments (`renderLines()`: the strands of a strand body)
 * as three.js LineSegments over its particles, kept in step with the
 * simulation by `update()`: one Float64 → Float32 copy of the active
 * positions, uploaded as one range; the index is set once (and again only
 * when the body's `topologyVersion` changes). Line segments can be picked
 * with a Raycaster (`params.Line.threshold`): a hit's `index` is the slot of
 * the segment's first vertex in the index.
 */
export class BodyLines extends LineSegments<BufferGeometry, Material> {
  readonly body: BodySource;
  private readonly store: StoreSource;
  private readonly positionArray: Float32Array;
  private topologyVersion = Number.NaN;

  constructor(body: BodySource | WorldBodySource, options: BodyLinesOptions = {}) {
    const n = Math.max(1, body.count);
    const geometry = new BufferGeometry();
    const positionArray = new Float32Array(3 * n);
    geometry.setAttribute('position', new BufferAttribute(positionArray, 3));
    super(geometry, options.material ?? new LineBasicMaterial({ color: options.color ?? 0x4a3424 }));
    this.body = body;
    this.store = storeOf(body, options.store);
    this.positionArray = positionArray;
    this.frustumCulled = false;
    this.update();
  }

  /** Copies the body's current positions into the geometry; call once per rendered frame. */
  update(): void {
    const body = this.body;
    const n = Math.min(body.activeCount, body.count);
    const x = this.store.x;
    const base = 3 * body.offset;
    const pos = this.positionArray;
    for (let k = 0; k < 3 * n; k++) pos[k] = x[base + k];
    const g = this.geometry;
    if (body.topologyVersion !== this.topologyVersion) {
      this.topologyVersion = body.topologyVersion;
      const lines = body.renderLines ? body.renderLines() : new Uint32Array(0);
      g.setIndex(new BufferAttribute(new Uint32Array(lines), 1));
      g.setDrawRange(0, lines.length);
    }
    const p = g.attributes.position as BufferAttribute;
    uploadFirst(p, 3 * n);
    g.boundingSphere = null;
    g.boundingBox = null;
  }
}
