/**
 * Region sums for region-based shape matching (survey 000 §4.2–4.3).
 *
 * Region-based shape matching needs two kinds of sums every projection:
 *
 * - gather: for every region r, Σ_{j ∈ ℜ_r} f_j over its particles, of the
 *   per-particle values f_j = [m̃_j x_j, m̃_j x_j x̄_jᵀ] of eqs. (7)–(8);
 * - scatter: for every particle j, Σ_{r : j ∈ ℜ_r} h_r over the regions that
 *   contain it, of the per-region values h_r = [t_r, T_r] that blend the
 *   goal positions g_j = (1/|ℜ_j|) Σ_r T_r [x̄_j; 1].
 *
 * A `RegionSummation` does both for values of any stride (12 in the shape
 * matching kernel). `NaiveSummation` adds up membership lists: O(ω^d n)
 * for regions of width ω in d dimensions. The fast versions in
 * lattice.ts (FastLSM), octree.ts (adaptive lattices) and mesh-paths.ts
 * (disjoint paths on triangle meshes) give the same sums in O(n), O(n) and
 * O(ω n).
 */
import { PbdError } from '../core/errors.js';

export interface RegionSummation {
  /** What this summation is, e.g. 'naive', 'lattice', 'octree', 'paths'. */
  readonly kind: string;
  /** Number of particles (body-local indices 0 … particles − 1). */
  readonly particles: number;
  /** Number of regions. */
  readonly regions: number;
  /** out[r·stride + k] = Σ_{j ∈ ℜ_r} values[j·stride + k]. */
  gather(values: Float64Array, out: Float64Array, stride: number): void;
  /** out[j·stride + k] = Σ_{r ∋ j} values[r·stride + k]. */
  scatter(values: Float64Array, out: Float64Array, stride: number): void;
  /** The particles of region r (for tests, tools and the naive reference). */
  members(r: number): Int32Array;
}

/**
 * Sums over lists: row r of out (r < rows, `stride` numbers a row) becomes
 * Σ values[idx[m]] over m = start[r] … start[r + 1] − 1, added in that order
 * onto zero. The gather and scatter of NaiveSummation and the octree's
 * gather from its summation nodes.
 */
export function sumLists(
  values: Float64Array,
  out: Float64Array,
  stride: number,
  rows: number,
  start: Int32Array,
  idx: Int32Array,
): void {
  for (let r = 0; r < rows; r++) {
    const o = r * stride;
    for (let k = 0; k < stride; k++) out[o + k] = 0;
    for (let m = start[r]; m < start[r + 1]; m++) {
      const s = idx[m] * stride;
      for (let k = 0; k < stride; k++) out[o + k] += values[s + k];
    }
  }
}

/** Regions as explicit membership lists (compressed rows), and their transpose. */
export class NaiveSummation implements RegionSummation {
  readonly kind = 'naive';
  readonly particles: number;
  readonly regions: number;
  /** Region r holds memberIndex[regionStart[r] … regionStart[r + 1]). */
  readonly regionStart: Int32Array;
  readonly memberIndex: Int32Array;
  /** Particle j belongs to the regions particleRegions[particleStart[j] … particleStart[j + 1]). */
  readonly particleStart: Int32Array;
  readonly particleRegions: Int32Array;

  constructor(particles: number, regionStart: Int32Array, memberIndex: Int32Array, where = 'regions') {
    this.particles = particles;
    this.regions = regionStart.length - 1;
    this.regionStart = regionStart;
    this.memberIndex = memberIndex;
    const counts = new Int32Array(particles + 1);
    for (let k = 0; k < memberIndex.length; k++) {
      const j = memberIndex[k];
      if (!(j >= 0 && j < particles)) {
        throw new PbdError(
          'shape-matching/bad-region',
          where,
          `a region names particle ${j}, but there are ${particles}`,
          'region members are body-local particle indices',
        );
      }
      counts[j + 1]++;
    }
    for (let j = 0; j < particles; j++) counts[j + 1] += counts[j];
    this.particleStart = counts.slice();
    const cursor = counts.slice(0, particles);
    this.particleRegions = new Int32Array(memberIndex.length);
    for (let r = 0; r < this.regions; r++) {
      for (let k = regionStart[r]; k < regionStart[r + 1]; k++) {
        this.particleRegions[cursor[memberIndex[k]]++] = r;
      }
    }
  }

  /** Builds the CSR arrays from one array of members per region. */
  static fromLists(particles: number, lists: ArrayLike<number>[], where = 'regions'): NaiveSummation {
    const start = new Int32Array(lists.length + 1);
    for (let r = 0; r < lists.length; r++) start[r + 1] = start[r] + lists[r].length;
    const idx = new Int32Array(start[lists.length]);
    for (let r = 0; r < lists.length; r++) idx.set(lists[r], start[r]);
    return new NaiveSummation(particles, start, idx, where);
  }

  /** Copies any summation's membership into explicit lists (the reference the fast sums are tested against). */
  static of(s: RegionSummation): NaiveSummation {
    const lists: Int32Array[] = [];
    for (let r = 0; r < s.regions; r++) lists.push(s.members(r));
    return NaiveSummation.fromLists(s.particles, lists);
  }

  gather(values: Float64Array, out: Float64Array, stride: number): void {
    sumLists(values, out, stride, this.regions, this.regionStart, this.memberIndex);
  }

  scatter(values: Float64Array, out: Float64Array, stride: number): void {
    sumLists(values, out, stride, this.particles, this.particleStart, this.particleRegions);
  }

  members(r: number): Int32Array {
    return this.memberIndex.slice(this.regionStart[r], this.regionStart[r + 1]);
  }
}

/** |ℜ_j|: how many regions contain each particle (scatter of ones). */
export function membershipCounts(s: RegionSummation): Float64Array {
  const ones = new Float64Array(s.regions).fill(1);
  const out = new Float64Array(s.particles);
  s.scatter(ones, out, 1);
  return out;
}

/** |ℜ_r|: how many particles each region holds (gather of ones). */
export function regionSizes(s: RegionSummation): Float64Array {
  const ones = new Float64Array(s.particles).fill(1);
  const out = new Float64Array(s.regions);
  s.gather(ones, out, 1);
  return out;
}
