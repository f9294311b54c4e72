import { describe, expect, it } from 'vitest';
import { wallLayers } from '../src/fluids/kernels.js';
import {
  buildCrossPairs,
  buildForwardPairs,
  Fluid,
  latticeSums,
  NeighbourGrid,
  PairList,
  PlaneCollider,
  poly6,
  spiky,
  spikyGradient,
  World,
} from '../src/index.js';
import { rng } from './helpers.js';

/** All pairs (a < b) closer than r, by brute force, as sorted "a,b" keys. */
function brutePairs(pos: Float64Array, items: Int32Array, r: number): string[] {
  const out: string[] = [];
  for (let u = 0; u < items.length; u++) {
    for (let v = u + 1; v < items.length; v++) {
      const a = items[u],
        b = items[v];
      const dx = pos[3 * a] - pos[3 * b],
        dy = pos[3 * a + 1] - pos[3 * b + 1],
        dz = pos[3 * a + 2] - pos[3 * b + 2];
      if (dx * dx + dy * dy + dz * dz < r * r) out.push(`${Math.min(a, b)},${Math.max(a, b)}`);
    }
  }
  return out.sort();
}

function gridPairs(grid: NeighbourGrid, pos: Float64Array, r: number): string[] {
  const pl = new PairList();
  buildForwardPairs(grid, pos, r, pl);
  const out: string[] = [];
  for (let a = 0; a < grid.count; a++) {
    const i = grid.sorted[a];
    for (let k = pl.start[a]; k < pl.start[a + 1]; k++) {
      const j = pl.nbr[k];
      out.push(`${Math.min(i, j)},${Math.max(i, j)}`);
    }
  }
  return out.sort();
}

function bounds(pos: Float64Array, items: Int32Array): number[] {
  const b = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
  for (const i of items) {
    for (let k = 0; k < 3; k++) {
      b[k] = Math.min(b[k], pos[3 * i + k]);
      b[k + 3] = Math.max(b[k + 3], pos[3 * i + k]);
    }
  }
  return b;
}

/** Random point sets: uniform, clustered with far outliers, and with exact duplicates. */
function randomCloud(kind: 'uniform' | 'clustered' | 'duplicates', n: number, seed: number): Float64Array {
  const r = rng(seed);
  const pos = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    if (kind === 'clustered' && i % 50 === 0) {
      // far outliers force the grid to grow its cells (and clamp)
      for (let k = 0; k < 3; k++) pos[3 * i + k] = (r() - 0.5) * 1000;
    } else if (kind === 'duplicates' && i > 0 && i % 3 === 0) {
      const j = Math.floor(r() * i);
      pos.set(pos.subarray(3 * j, 3 * j + 3), 3 * i);
    } else {
      const spread = kind === 'clustered' ? 0.3 : 1;
      for (let k = 0; k < 3; k++) pos[3 * i + k] = r() * spread + (kind === 'clustered' ? 0.2 * (i % 3) : 0);
    }
  }
  return pos;
}

describe('neighbour search (uniform grid, counting sort)', () => {
  for (const kind of ['uniform', 'clustered', 'duplicates'] as const) {
    for (const reach of [1, 2, 3]) {
      it(`returns exactly the brute-force pairs: ${kind} points, ${reach} cell(s) per radius`, () => {
        const n = 1500;
        const pos = randomCloud(kind, n, 17 + reach);
        // a subset of the store, in shuffled order, as the fluid's items would be after reorders
        const r = rng(99);
        const items = Int32Array.from({ length: n - 100 }, (_, k) => k + 50);
        for (let k = items.length - 1; k > 0; k--) {
          const j = Math.floor(r() * (k + 1));
          [items[k], items[j]] = [items[j], items[k]];
        }
        const radius = 0.09;
        const grid = new NeighbourGrid(reach);
        const b = bounds(pos, items);
        // few cells for the clustered cloud: the cells must grow and the outliers clamp
        grid.setGeometry(b[0], b[1], b[2], b[3], b[4], b[5], radius, kind === 'clustered' ? 2000 : 8 * n);
        grid.insert(pos, items, items.length);
        expect(grid.cells).toBeLessThanOrEqual(kind === 'clustered' ? 2000 : 8 * n);
        const expected = brutePairs(pos, items, radius);
        expect(expected.length).toBeGreaterThan(kind === 'duplicates' ? 1000 : 500);
        expect(gridPairs(grid, pos, radius)).toEqual(expected);
      });
    }
  }

  it('cross pairs (queries against a grid of other items) equal brute force', () => {
    const pos = randomCloud('uniform', 1200, 5);
    const fluidItems = Int32Array.from({ length: 800 }, (_, k) => k);
    const queries = Int32Array.from({ length: 400 }, (_, k) => 800 + k);
    // move some queries outside the grid box: they clamp into the border cells
    for (let q = 0; q < 40; q++) pos[3 * queries[q]] += 1.5;
    const radius = 0.1;
    const grid = new NeighbourGrid();
    const b = bounds(pos, fluidItems);
    grid.setGeometry(b[0], b[1], b[2], b[3], b[4], b[5], radius, 20000);
    grid.insert(pos, fluidItems, fluidItems.length);
    const pl = new PairList();
    buildCrossPairs(grid, pos, queries, queries.length, radius, pl);
    let total = 0;
    for (let q = 0; q < queries.length; q++) {
      const got = Array.from(pl.nbr.subarray(pl.start[q], pl.start[q + 1])).sort((x, y) => x - y);
      const want: number[] = [];
      const i = queries[q];
      for (const j of fluidItems) {
        const d = Math.hypot(
          pos[3 * i] - pos[3 * j],
          pos[3 * i + 1] - pos[3 * j + 1],
          pos[3 * i + 2] - pos[3 * j + 2],
        );
        if (d < radius) want.push(j);
      }
      expect(got).toEqual(want);
      total += want.length;
    }
    expect(total).toBeGreaterThan(300);
  });

  it('the counting sort is stable: items of a cell keep their input order', () => {
    const pos = randomCloud('uniform', 500, 8);
    const items = Int32Array.from({ length: 500 }, (_, k) => k);
    const grid = new NeighbourGrid();
    grid.setGeometry(0, 0, 0, 1, 1, 1, 0.2, 10000);
    grid.insert(pos, items, 500);
    for (let c = 0; c < grid.cells; c++) {
      for (let a = grid.cellStart[c] + 1; a < grid.cellStart[c + 1]; a++) {
        expect(grid.sorted[a]).toBeGreaterThan(grid.sorted[a - 1]);
      }
    }
  });
});

describe('SPH kernels (PBF §3; 000 §3.4.6)', () => {
  it('poly6 integrates to 1 over its support', () => {
    const h = 0.37;
    const n = 20000;
    let s = 0;
    for (let k = 0; k < n; k++) {
      const r = ((k + 0.5) / n) * h;
      s += 4 * Math.PI * r * r * poly6(r, h) * (h / n);
    }
    expect(s).toBeCloseTo(1, 8);
  });

  it('the spiky gradient is the gradient of W_spiky = 15/(π h⁶)(h − r)³', () => {
    const h = 0.2;
    const W = (x: number, y: number, z: number) => {
      const r = Math.hypot(x, y, z);
      return r < h ? (15 / (Math.PI * h ** 6)) * (h - r) ** 3 : 0;
    };
    const g = new Float64Array(3);
    const r = rng(3);
    for (let t = 0; t < 20; t++) {
      const p = [r() - 0.5, r() - 0.5, r() - 0.5].map((v) => v * 0.2);
      spikyGradient(p[0], p[1], p[2], h, g);
      const e = 1e-7;
      for (let k = 0; k < 3; k++) {
        const a = [...p],
          b = [...p];
        a[k] += e;
        b[k] -= e;
        const fd = (W(a[0], a[1], a[2]) - W(b[0], b[1], b[2])) / (2 * e);
        expect(Math.abs(g[k] - fd)).toBeLessThan(1e-6 * Math.max(1, Math.abs(fd)));
      }
    }
  });

  it('the particle mass makes a rest lattice exactly as dense as ρ0', () => {
    const world = new World({ gravity: [0, 0, 0] });
    const d = 0.1;
    const fluid = new Fluid(world, {
      spacing: d,
      restDensity: 997,
      blocks: [{ min: [0, 0, 0], max: [1, 1, 1] }],
    });
    expect(fluid.particleMass).toBeCloseTo(997 / latticeSums(d, 2 * d).density, 12);
    const rho = fluid.densities();
    const x = fluid.positions();
    let inner = 0;
    for (let s = 0; s < fluid.activeCount; s++) {
      const c = [x[3 * s], x[3 * s + 1], x[3 * s + 2]];
      if (c.every((v) => v > 0.25 && v < 0.75)) {
        expect(rho[s]).toBeCloseTo(997, 9);
        inner++;
      }
    }
    expect(inner).toBeGreaterThan(50);
  });

  it('a wall completes the density of the fluid next to it (the half lattice behind a plane)', () => {
    // the first layer (s = d/2) and the second: lattice sum above + wallLayers ≈ the full lattice
    // (the density kernel is spiky: kernels.ts)
    const d = 1,
      h = 2;
    const full = latticeSums(d, h).density;
    const out = new Float64Array(2);
    for (const layer of [0, 1, 2]) {
      let present = 0;
      for (let a = -4; a <= 4; a++)
        for (let b = -4; b <= 4; b++)
          for (let c = -layer; c <= 4; c++) present += spiky(Math.hypot(a, b, c), h);
      wallLayers((layer + 0.5) * d, d, h, out);
      // the wall term is the continuous plane integral times the lattice's areal mass (1/d² per m)
      const wall = out[0] / (d * d);
      expect(Math.abs((present + wall) / full - 1)).toBeLessThan(0.003);
    }
    // and in a fluid block standing on a plane collider, the bottom layer is at ρ0
    const world = new World({ gravity: [0, 0, 0] });
    world.addCollider(new PlaneCollider({ margin: 0 }));
    const fluid = new Fluid(world, { spacing: 0.1, blocks: [{ min: [0, 0, 0], max: [1, 0.6, 1] }] });
    const rho = fluid.densities();
    const x = fluid.positions();
    let bottom = 0;
    for (let s = 0; s < fluid.activeCount; s++) {
      if (
        x[3 * s + 1] < 0.1 &&
        x[3 * s] > 0.3 &&
        x[3 * s] < 0.7 &&
        x[3 * s + 2] > 0.3 &&
        x[3 * s + 2] < 0.7
      ) {
        expect(Math.abs(rho[s] / 1000 - 1)).toBeLessThan(0.003);
        bottom++;
      }
    }
    expect(bottom).toBe(16);
  });
});
