/**
 * A strand or rod body drawn as tubes: one instance of a unit cylinder per
 * segment, placed between the segment's two particles with the larger of
 * their contact radii. For rods and threads, whose thickness is part of the
 * picture (a knot, a buckled loop); thousands of hairs read better as lines
 * (BodyLines), which cost one vertex per particle.
 */
import {
  type BufferGeometry,
  CylinderGeometry,
  InstancedMesh,
  type Material,
  Matrix4,
  MeshStandardMaterial,
  Quaternion,
  Vector3,
} from 'three';
import { uploadFirst } from './attributes.js';
import { type BodySource, type StoreSource, storeOf, type WorldBodySource } from './sources.js';

export interface BodyTubesOptions {
  /** Where the particles live (required when `body` is a bare BodySource). */
  store?: StoreSource;
  material?: Material;
  color?: number;
  /** Radius (m) of segments whose particles have none. Default 1 mm. */
  defaultRadius?: number;
  /** Sides of each tube. Default 10. */
  radialSegments?: number;
}

const M = new Matrix4();
const Q = new Quaternion();
const P = new Vector3();
const S = new Vector3();
const D = new Vector3();
const UP = new Vector3(0, 1, 0);

export class BodyTubes extends InstancedMesh<BufferGeometry, Material> {
  readonly body: BodySource;
  private readonly store: StoreSource;
  private readonly defaultRadius: number;
  private lines: Uint32Array = new Uint32Array(0);
  private topologyVersion = Number.NaN;

  constructor(body: BodySource | WorldBodySource, options: BodyTubesOptions = {}) {
    const lines = body.renderLines ? body.renderLines() : new Uint32Array(0);
    const capacity = Math.max(1, lines.length >> 1);
    const geometry = new CylinderGeometry(1, 1, 1, options.radialSegments ?? 10, 1, true);
    super(
      geometry,
      options.material ?? new MeshStandardMaterial({ color: options.color ?? 0x4a3424, roughness: 0.6 }),
      capacity,
    );
    this.body = body;
    this.store = storeOf(body, options.store);
    this.defaultRadius = options.defaultRadius ?? 0.001;
    this.frustumCulled = false;
    this.castShadow = true;
    this.receiveShadow = true;
    this.update();
  }

  /** The two particles (indices within the body) of segment s, the tube instance s. */
  segment(s: number): number[] {
    return [this.lines[2 * s], this.lines[2 * s + 1]];
  }

  /** Places every segment's tube at the body's current positions; call once per rendered frame. */
  update(): void {
    const body = this.body;
    if (body.topologyVersion !== this.topologyVersion) {
      this.topologyVersion = body.topologyVersion;
      this.lines = body.renderLines ? body.renderLines() : new Uint32Array(0);
    }
    const x = this.store.x;
    const r = this.store.radius;
    const o = body.offset;
    const lines = this.lines;
    const n = Math.min(lines.length >> 1, this.instanceMatrix.count);
    for (let s = 0; s < n; s++) {
      const a = o + lines[2 * s],
        b = o + lines[2 * s + 1];
      D.set(x[3 * b] - x[3 * a], x[3 * b + 1] - x[3 * a + 1], x[3 * b + 2] - x[3 * a + 2]);
      const len = D.length();
      P.set(
        0.5 * (x[3 * a] + x[3 * b]),
        0.5 * (x[3 * a + 1] + x[3 * b + 1]),
        0.5 * (x[3 * a + 2] + x[3 * b + 2]),
      );
      const rad = Math.max(r[a] ?? 0, r[b] ?? 0) || this.defaultRadius;
      if (len > 0) Q.setFromUnitVectors(UP, D.multiplyScalar(1 / len));
      else Q.identity();
      S.set(rad, len, rad);
      this.setMatrixAt(s, M.compose(P, Q, S));
    }
    this.count = n;
    uploadFirst(this.instanceMatrix, 16 * n);
    this.boundingSphere = null;
    this.boundingBox = null;
  }
}
