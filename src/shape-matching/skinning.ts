/**
 * Visual meshes carried by shape-matched particles.
 *
 * A `Skin` moves the vertices of a render mesh with the particles:
 * v = Σ_k w_k (x_{b_k} + R_{b_k} (v̄ − x̄_{b_k})), a linear blend over up to
 * K "bones" per vertex. With oriented particles the bones are the particles
 * themselves, each a full rigid transform (position and orientation), which
 * is the linear blend skinning of survey 000 §4.4. Lattice bodies use their
 * particles with their regions' transforms T_r as bones.
 */
import { PbdError } from '../core/errors.js';

export class Skin {
  /** Render triangles (indices into the skin's vertices). */
  readonly triangles: Uint32Array;
  /** Rest positions of the render vertices. */
  readonly restPositions: Float64Array;
  /** Current positions, refreshed by `update`. */
  readonly positions: Float64Array;
  /** Influences per vertex. */
  readonly influences: number;
  /** Bone (body-local particle) and weight of each influence, K per vertex. */
  readonly bones: Int32Array;
  readonly weights: Float64Array;
  /** Offset v̄ − x̄_b of each influence in the rest pose. */
  readonly offsets: Float64Array;

  constructor(
    restPositions: Float64Array,
    triangles: Uint32Array,
    influences: number,
    bones: Int32Array,
    weights: Float64Array,
    particleRest: Float64Array,
    out?: Float64Array,
  ) {
    const nv = restPositions.length / 3;
    if (bones.length !== nv * influences || weights.length !== nv * influences) {
      throw new PbdError('skin/size', 'skin', `needs ${influences} bones and weights per vertex`);
    }
    this.triangles = triangles;
    this.restPositions = restPositions;
    if (out && out.length !== restPositions.length) {
      throw new PbdError(
        'skin/size',
        'skin',
        `has ${nv} vertices but its output array holds ${out.length / 3}`,
      );
    }
    this.positions = out ?? new Float64Array(restPositions.length);
    this.positions.set(restPositions);
    this.influences = influences;
    this.bones = bones;
    this.weights = weights;
    this.offsets = new Float64Array(3 * bones.length);
    for (let v = 0; v < nv; v++) {
      for (let k = 0; k < influences; k++) {
        const e = v * influences + k;
        const b = bones[e];
        for (let d = 0; d < 3; d++)
          this.offsets[3 * e + d] = restPositions[3 * v + d] - particleRest[3 * b + d];
      }
    }
  }

  /**
   * Recomputes `positions` from particle positions x (the store's x, body at
   * `offset`) and, when given, per-bone rotations (9 numbers per particle,
   * row-major, from the rest pose to now). `rotationStride` 0 turns every
   * bone by the one rotation at the start of `rotations` (a body matched as
   * a single region, e.g. a rigid cluster).
   */
  update(x: Float64Array, offset: number, rotations: Float64Array | null, rotationStride = 9): void {
    const K = this.influences,
      bones = this.bones,
      wts = this.weights,
      off = this.offsets,
      out = this.positions;
    const nv = out.length / 3;
    for (let v = 0; v < nv; v++) {
      let px = 0,
        py = 0,
        pz = 0;
      for (let k = 0; k < K; k++) {
        const e = v * K + k;
        const w = wts[e];
        if (w === 0) continue;
        const b = bones[e];
        const b3 = 3 * (offset + b);
        let ox = off[3 * e],
          oy = off[3 * e + 1],
          oz = off[3 * e + 2];
        if (rotations) {
          const r = rotationStride * b;
          const rx = rotations[r] * ox + rotations[r + 1] * oy + rotations[r + 2] * oz;
          const ry = rotations[r + 3] * ox + rotations[r + 4] * oy + rotations[r + 5] * oz;
          const rz = rotations[r + 6] * ox + rotations[r + 7] * oy + rotations[r + 8] * oz;
          ox = rx;
          oy = ry;
          oz = rz;
        }
        px += w * (x[b3] + ox);
        py += w * (x[b3 + 1] + oy);
        pz += w * (x[b3 + 2] + oz);
      }
      out[3 * v] = px;
      out[3 * v + 1] = py;
      out[3 * v + 2] = pz;
    }
  }

  /**
   * Linear blend skinning weights from the K nearest particles (inverse
   * squared distance, normalised), for oriented particles as bones. `out`:
   * where the skinned positions go (e.g. `store.float64(n)`, shared memory
   * for a worker's page); by default a new array.
   */
  static nearest(
    restPositions: Float64Array,
    triangles: Uint32Array,
    particleRest: Float64Array,
    influences = 4,
    out?: Float64Array,
  ): Skin {
    const nv = restPositions.length / 3,
      np = particleRest.length / 3;
    const K = Math.min(influences, np);
    const bones = new Int32Array(K * nv),
      weights = new Float64Array(K * nv);
    const bestD = new Float64Array(K),
      bestI = new Int32Array(K);
    for (let v = 0; v < nv; v++) {
      bestD.fill(Infinity);
      bestI.fill(-1);
      for (let p = 0; p < np; p++) {
        const d =
          (restPositions[3 * v] - particleRest[3 * p]) ** 2 +
          (restPositions[3 * v + 1] - particleRest[3 * p + 1]) ** 2 +
          (restPositions[3 * v + 2] - particleRest[3 * p + 2]) ** 2;
        if (d >= bestD[K - 1]) continue;
        let k = K - 1;
        while (k > 0 && bestD[k - 1] > d) {
          bestD[k] = bestD[k - 1];
          bestI[k] = bestI[k - 1];
          k--;
        }
        bestD[k] = d;
        bestI[k] = p;
      }
      let sum = 0;
      for (let k = 0; k < K; k++) sum += 1 / (bestD[k] + 1e-12);
      for (let k = 0; k < K; k++) {
        bones[K * v + k] = bestI[k];
        weights[K * v + k] = 1 / (bestD[k] + 1e-12) / sum;
      }
    }
    return new Skin(restPositions, triangles, K, bones, weights, particleRest, out);
  }
}
