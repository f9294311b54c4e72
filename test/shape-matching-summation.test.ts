import { describe, expect, it } from 'vitest';
import { ballOctree } from '../bench/scenes.js';
import { icosphere } from '../src/index.js';
import { Lattice, LatticeSummation } from '../src/shape-matching/lattice.js';
import { buildPaths, meshAdjacency, PathSummation, ringRegions } from '../src/shape-matching/mesh-paths.js';
import { AdaptiveLattice, OctreeSummation } from '../src/shape-matching/octree.js';
import {
  membershipCounts,
  NaiveSummation,
  type RegionSummation,
  regionSizes,
} from '../src/shape-matching/summation.js';
import { relativeError, rng } from './helpers.js';

/** A uniform octree over the unit box, every cell refined down to depth `maxDepth` ((2^maxDepth)³ particles). */
function uniformOctree(maxDepth: number): AdaptiveLattice {
  return new AdaptiveLattice({ min: [0, 0, 0], size: 1, maxDepth, refine: () => true, inside: () => true });
}

/** Fast and naive gather/scatter of random stride-12 values agree to `tol` (relative to the largest sum). */
function agree(
  fast: RegionSummation,
  naive: RegionSummation,
  seed: number,
): { gather: number; scatter: number } {
  const r = rng(seed);
  const S = 12;
  const pv = Float64Array.from({ length: S * fast.particles }, () => r() * 2 - 1);
  const rv = Float64Array.from({ length: S * fast.regions }, () => r() * 2 - 1);
  const a = new Float64Array(S * fast.regions),
    b = new Float64Array(S * fast.regions);
  fast.gather(pv, a, S);
  naive.gather(pv, b, S);
  const c = new Float64Array(S * fast.particles),
    d = new Float64Array(S * fast.particles);
  fast.scatter(rv, c, S);
  naive.scatter(rv, d, S);
  return { gather: relativeError(a, b), scatter: relativeError(c, d) };
}

describe('fast summation equals the naive sums (000 §4.3)', () => {
  it('FastLSM on random lattices (bars → plates → cubes), every region width', () => {
    const r = rng(21);
    for (let t = 0; t < 12; t++) {
      const dims: [number, number, number] = [
        3 + Math.floor(r() * 8),
        3 + Math.floor(r() * 8),
        3 + Math.floor(r() * 8),
      ];
      const occ = Array.from({ length: dims[0] * dims[1] * dims[2] }, () => (r() < 0.7 ? 1 : 0));
      occ[0] = 1;
      const lat = new Lattice(dims, [r(), r(), r()], 0.1, occ);
      for (const w of [0, 1, 2, 3, 5]) {
        const fast = new LatticeSummation(lat, w);
        const naive = NaiveSummation.of(fast);
        // the cube membership is symmetric, as the scatter assumes
        if (w <= 2) {
          for (let p = 0; p < lat.count; p += 7) {
            for (const q of naive.members(p)) expect(naive.members(q).includes(p)).toBe(true);
          }
        }
        const e = agree(fast, naive, 100 * t + w);
        expect(e.gather).toBeLessThan(1e-12);
        expect(e.scatter).toBeLessThan(1e-12);
      }
    }
  });

  it('octree summation nodes on random adaptive lattices, per-region widths', () => {
    const r = rng(22);
    for (let t = 0; t < 8; t++) {
      const salt = r() * 1000;
      // deterministic pseudo-random refinement and occupancy
      const noise = (x: number, y: number, z: number) => {
        const s = Math.sin(x * 12.9898 + y * 78.233 + z * 37.719 + salt) * 43758.5453;
        return s - Math.floor(s);
      };
      const tree = new AdaptiveLattice({
        min: [0, 0, 0],
        size: 1,
        maxDepth: 4 + (t % 2),
        refine: (x, y, z, _s, depth) => depth < 2 || noise(x, y, z) < 0.45,
        inside: (x, y, z) => noise(z, x, y) < 0.85,
      });
      const sizes = tree.cellSizes();
      // widths from half a cell to 12 cells, log-uniform, plus exact ties (1, 1.5, 2, 3 cells)
      const widths = sizes.map((s, p) => (p % 5 === 0 ? [1, 1.5, 2, 3][p % 4] : 0.5 * 24 ** r()) * s);
      const fast = new OctreeSummation(tree, widths);
      // the summation nodes reproduce the definition of the regions exactly; every particle is in its own
      for (let p = 0; p < tree.count; p++) {
        const members = Array.from(fast.members(p));
        expect(members).toEqual(Array.from(OctreeSummation.bruteForceMembers(tree, p, widths[p])));
        expect(members).toContain(p);
      }
      const naive = NaiveSummation.of(fast);
      const e = agree(fast, naive, 200 + t);
      expect(e.gather).toBeLessThan(1e-12);
      expect(e.scatter).toBeLessThan(1e-12);
      expect(fast.nodesPerRegion).toBeLessThan(naive.memberIndex.length / naive.regions);
      expect(fast.maxNodesPerRegion).toBeLessThanOrEqual(64);
    }
  });

  it('octree regions have O(1) summation nodes whatever their width (a count, not a timing)', () => {
    // the benchmark's ball: fine at the surface, coarse inside
    const tree = ballOctree();
    const sizes = tree.cellSizes();
    const at = (k: number) => {
      const fast = new OctreeSummation(
        tree,
        sizes.map((s) => k * s),
      );
      return { nodes: fast.nodesPerRegion, max: fast.maxNodesPerRegion, members: regionSizes(fast) };
    };
    const base = at(1.5);
    const mean = (a: Float64Array) => a.reduce((x, y) => x + y, 0) / a.length;
    for (const k of [3, 5, 8, 12]) {
      const s = at(k);
      // the regions hold many more particles (naive cost ∝ members) …
      expect(mean(s.members)).toBeGreaterThan(4 * mean(base.members));
      // … but the summation nodes per region do not grow: at most a full 3³ block (20 nodes) on this tree
      expect(s.nodes).toBeLessThan(1.3 * base.nodes);
      expect(s.max).toBeLessThanOrEqual(20);
    }
  });

  it('octree regions: the 3³ block of cells at the level of the width, symmetric for equal widths', () => {
    // a uniform 16³ octree over a box: interior regions have an analytic size
    const tree = uniformOctree(4);
    const s = 1 / 16;
    const interior = (p: number) => {
      const c = tree.center.subarray(3 * tree.particleNode[p], 3 * tree.particleNode[p] + 3);
      return c.every((v) => v > 0.3 && v < 0.7);
    };
    // ω = 1.5 × 2^k cells: the level-(4 − k) cell of the particle and its 26 neighbours, (3 · 2^k)³ particles
    for (const [omega, expected] of [
      [1.5 * s, 27],
      [3 * s, 216],
      [2.9 * s, 216],
      [6 * s, 1728],
    ]) {
      const fast = new OctreeSummation(tree, new Float64Array(tree.count).fill(omega));
      const sizes = regionSizes(fast);
      for (let p = 0; p < tree.count; p++) if (interior(p)) expect(sizes[p]).toBe(expected);
      // equal widths and levels: j ∈ ℜ_i exactly when i ∈ ℜ_j
      const naive = NaiveSummation.of(fast);
      for (let p = 0; p < tree.count; p += 37) {
        for (const q of naive.members(p)) expect(naive.members(q).includes(p)).toBe(true);
      }
      expect(fast.maxNodesPerRegion).toBeLessThanOrEqual(20);
    }
  });

  it('octree region widths must be finite and ≥ 0', () => {
    const tree = uniformOctree(1);
    const widths = new Float64Array(tree.count).fill(0.5);
    widths[3] = Number.NaN;
    expect(() => new OctreeSummation(tree, widths)).toThrow(/regionWidths\[3\].*finite width ≥ 0/);
    widths[3] = -1;
    expect(() => new OctreeSummation(tree, widths)).toThrow(/regionWidths\[3\]/);
    expect(() => new OctreeSummation(tree, [1])).toThrow(/1 entries for 8 particles/);
  });

  it('disjoint paths with prefix sums on random triangle meshes, ω = 1…4', () => {
    const r = rng(23);
    for (let t = 0; t < 4; t++) {
      const mesh = icosphere(1, 2 + (t % 2));
      for (let k = 0; k < mesh.positions.length; k++) mesh.positions[k] *= 1 + 0.1 * (r() - 0.5);
      const n = mesh.positions.length / 3;
      const adj = meshAdjacency(n, mesh.triangles);
      const { order, pathStart } = buildPaths(mesh.positions, adj, 16 + Math.floor(r() * 100));
      // the paths are disjoint, cover every vertex and follow mesh edges
      expect(Array.from(order).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
      for (let p = 0; p + 1 < pathStart.length; p++) {
        for (let m = pathStart[p]; m + 1 < pathStart[p + 1]; m++) {
          const a = order[m],
            b = order[m + 1];
          expect(Array.from(adj.neighbors.subarray(adj.start[a], adj.start[a + 1]))).toContain(b);
        }
      }
      for (let w = 1; w <= 4; w++) {
        const lists = ringRegions(adj, w);
        const fast = new PathSummation(n, lists, order, pathStart);
        const naive = NaiveSummation.fromLists(n, lists);
        const e = agree(fast, naive, 300 + 10 * t + w);
        expect(e.gather).toBeLessThan(1e-12);
        expect(e.scatter).toBeLessThan(1e-12);
        // O(ω) intervals per region, against O(ω²) members
        if (w >= 3) expect(fast.intervalsPerRegion).toBeLessThan(0.5 * (naive.memberIndex.length / n));
      }
    }
  });

  it('region membership counts |ℜ_j| are the same through every structure', () => {
    const lat = Lattice.fromInside([0, 0, 0], [1, 0.6, 0.4], 0.1, (x, y) => x + y < 1.3);
    const fast = new LatticeSummation(lat, 2);
    expect(relativeError(membershipCounts(fast), membershipCounts(NaiveSummation.of(fast)))).toBe(0);
  });
});
