import { describe, expect, it } from 'vitest';
import { icosphere } from '../src/index.js';
import { Lattice, LatticeSummation } from '../src/shape-matching/lattice.js';
import { buildPaths, meshAdjacency, PathSummation, ringRegions } from '../src/shape-matching/mesh-paths.js';
import { AdaptiveLattice, OctreeSummation } from '../src/shape-matching/octree.js';
import { membershipCounts, NaiveSummation, type RegionSummation } from '../src/shape-matching/summation.js';
import { relativeError, rng } from './helpers.js';

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
        maxDepth: 4,
        refine: (x, y, z, _s, depth) => depth < 2 || noise(x, y, z) < 0.45,
        inside: (x, y, z) => noise(z, x, y) < 0.85,
      });
      const sizes = tree.cellSizes();
      const widths = sizes.map((s) => s * (0.5 + 3 * r()));
      const fast = new OctreeSummation(tree, widths);
      // the summation nodes reproduce the definition of the regions exactly
      for (let p = 0; p < tree.count; p++) {
        expect(Array.from(fast.members(p))).toEqual(
          Array.from(OctreeSummation.bruteForceMembers(tree, p, widths[p])),
        );
      }
      const naive = NaiveSummation.of(fast);
      const e = agree(fast, naive, 200 + t);
      expect(e.gather).toBeLessThan(1e-12);
      expect(e.scatter).toBeLessThan(1e-12);
      expect(fast.nodesPerRegion).toBeLessThan(naive.memberIndex.length / naive.regions);
    }
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
