import { describe, expect, it } from 'vitest';
import { foldingSheet } from '../bench/scenes.js';
import { selfPairsFrontier, selfPairsOfNodes } from '../src/collision/bvh-self-pairs.js';
import {
  Bvh,
  Cloth,
  closestPointTriangle,
  closestSegmentSegment,
  edgeEdgeCcd,
  enableCollisions,
  PlaneCollider,
  SpatialHash,
  segmentCrossesTriangle,
  vertexTriangleCcd,
  World,
} from '../src/index.js';
import { grainCube } from './helpers/particles.js';
import { rng } from './helpers.js';

/** Random boxes: mostly small, some large, some points, all deterministic. */
function randomBoxes(n: number, seed: number): Float64Array {
  const r = rng(seed);
  const b = new Float64Array(6 * n);
  for (let i = 0; i < n; i++) {
    const kind = r();
    const size = kind < 0.1 ? 0 : kind < 0.9 ? 0.05 * r() : 0.6 * r();
    for (let k = 0; k < 3; k++) {
      const lo = r() * 2 - 1;
      b[6 * i + k] = lo;
      b[6 * i + 3 + k] = lo + size * (0.2 + r());
    }
  }
  return b;
}

/** Moves box i by a random offset of up to ±amplitude/2 per axis. */
function moveBox(boxes: Float64Array, i: number, r: () => number, amplitude: number): void {
  const d = [amplitude * (r() - 0.5), amplitude * (r() - 0.5), amplitude * (r() - 0.5)];
  for (let k = 0; k < 3; k++) {
    boxes[6 * i + k] += d[k];
    boxes[6 * i + 3 + k] += d[k];
  }
}

/** Moves each of the n boxes by a random offset of up to ±amplitude/2 per axis, from a seed. */
function moveBoxes(boxes: Float64Array, n: number, seed: number, amplitude: number): void {
  const r = rng(seed);
  for (let i = 0; i < n; i++) moveBox(boxes, i, r, amplitude);
}

/** n random boxes from a seed and a BVH (leaves of 4) built over them. */
function builtBvh(n: number, seed: number): { boxes: Float64Array; bvh: Bvh } {
  const boxes = randomBoxes(n, seed);
  const bvh = new Bvh(4);
  bvh.build(boxes, n);
  return { boxes, bvh };
}

/** Runs `check`, moves every box (moveBoxes), refits the BVH and runs `check` again. */
function checkAcrossRefit(
  bvh: Bvh,
  boxes: Float64Array,
  n: number,
  seed: number,
  amplitude: number,
  check: () => void,
) {
  check();
  moveBoxes(boxes, n, seed, amplitude);
  bvh.refit(boxes);
  check();
}

function overlaps(b: Float64Array, i: number, q: ArrayLike<number>): boolean {
  const o = 6 * i;
  return (
    b[o] <= q[3] &&
    b[o + 3] >= q[0] &&
    b[o + 1] <= q[4] &&
    b[o + 4] >= q[1] &&
    b[o + 2] <= q[5] &&
    b[o + 5] >= q[2]
  );
}

describe('spatial hash (dense table built with prefix sums)', () => {
  it('returns exactly the boxes a brute-force search returns, on random inputs', () => {
    for (const seed of [1, 2, 3]) {
      const n = 3000;
      const boxes = randomBoxes(n, seed);
      const hash = new SpatialHash(1);
      hash.fitCellSize(boxes, n);
      hash.build(boxes, n);
      const queries = randomBoxes(300, seed + 100);
      for (let k = 0; k < 300; k++) {
        const q = queries.subarray(6 * k, 6 * k + 6);
        const m = hash.query(q[0], q[1], q[2], q[3], q[4], q[5]);
        const got = Array.from(hash.result.subarray(0, m)).sort((a, b) => a - b);
        const want: number[] = [];
        for (let i = 0; i < n; i++) if (overlaps(boxes, i, q)) want.push(i);
        expect(got).toEqual(want);
      }
    }
  });

  it('all overlapping pairs (i < j) equal brute force, also after boxes move (overflow list)', () => {
    const n = 1500;
    const boxes = randomBoxes(n, 9);
    const hash = new SpatialHash(1);
    hash.fitCellSize(boxes, n);
    hash.build(boxes, n);
    // move some boxes after the build
    const r = rng(10);
    for (let i = 0; i < n; i += 17) {
      const dx = r() - 0.5;
      boxes[6 * i] += dx;
      boxes[6 * i + 3] += dx;
      hash.moved(i);
    }
    const pairs = (fn: (i: number) => number[]) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) for (const j of fn(i)) out.push(`${i},${j}`);
      return out.sort();
    };
    const got = pairs((i) => {
      const o = 6 * i;
      const m = hash.query(boxes[o], boxes[o + 1], boxes[o + 2], boxes[o + 3], boxes[o + 4], boxes[o + 5], i);
      return Array.from(hash.result.subarray(0, m));
    });
    const want = pairs((i) => {
      const out: number[] = [];
      for (let j = i + 1; j < n; j++) if (overlaps(boxes, j, boxes.subarray(6 * i, 6 * i + 6))) out.push(j);
      return out;
    });
    expect(got).toEqual(want);
  });

  it('a NaN box is never returned and does not break the table', () => {
    const boxes = randomBoxes(100, 4);
    boxes[6 * 7] = Number.NaN;
    const hash = new SpatialHash(0.1);
    hash.build(boxes, 100);
    const m = hash.query(-2, -2, -2, 2, 2, 2);
    const got = Array.from(hash.result.subarray(0, m));
    expect(got).not.toContain(7);
    expect(got.length).toBe(99);
  });

  it('a query with a limit does bounded work on coincident boxes, and the full answer when it is below the limit', () => {
    // 10,000 copies of one box (bodies started on top of each other): every query meets them all
    const n = 10_000;
    const boxes = new Float64Array(6 * n);
    for (let i = 0; i < n; i++) boxes.set([0, 0, 0, 0.1, 0.1, 0.1], 6 * i);
    const hash = new SpatialHash(1);
    hash.fitCellSize(boxes, n);
    hash.build(boxes, n);
    expect(hash.query(0, 0, 0, 0.1, 0.1, 0.1)).toBe(n);
    expect(hash.truncated).toBe(false);
    const v0 = hash.visits;
    for (let i = 0; i < n; i++) {
      const m = hash.query(0, 0, 0, 0.1, 0.1, 0.1, i, 32);
      expect(m).toBe(Math.min(32, n - 1 - i));
      // the first items of the full answer (i, j > i)
      if (m > 0) expect(hash.result[0]).toBe(i + 1);
    }
    // uncapped: n²/2 = 5e7 entries; capped: at most 8 × 32 per query
    expect(hash.visits - v0).toBeLessThanOrEqual(8 * 32 * n);
    // random boxes: below the limit the answer is the full one, and not truncated
    const rb = randomBoxes(3000, 5);
    hash.fitCellSize(rb, 3000);
    hash.build(rb, 3000);
    const queries = randomBoxes(200, 6);
    for (let k = 0; k < 200; k++) {
      const q = queries.subarray(6 * k, 6 * k + 6);
      const all = Array.from(hash.result.subarray(0, hash.query(q[0], q[1], q[2], q[3], q[4], q[5])));
      const m = hash.query(q[0], q[1], q[2], q[3], q[4], q[5], -1, 1000);
      expect(hash.truncated).toBe(false);
      expect(Array.from(hash.result.subarray(0, m))).toEqual(all);
    }
  });
});

describe('BVH (built once, refitted)', () => {
  it('returns exactly the brute-force boxes on random inputs, before and after a refit', () => {
    const n = 2000;
    const { boxes, bvh } = builtBvh(n, 5);
    const check = () => {
      const queries = randomBoxes(200, 6);
      for (let k = 0; k < 200; k++) {
        const q = queries.subarray(6 * k, 6 * k + 6);
        const m = bvh.query(boxes, q[0], q[1], q[2], q[3], q[4], q[5]);
        const got = Array.from(bvh.result.subarray(0, m)).sort((a, b) => a - b);
        const want: number[] = [];
        for (let i = 0; i < n; i++) if (overlaps(boxes, i, q)) want.push(i);
        expect(got).toEqual(want);
      }
    };
    // every box moves: the topology is kept, the bounds follow
    checkAcrossRefit(bvh, boxes, n, 7, 1, check);
  });

  it('self-traversal returns exactly the overlapping pairs of a brute-force search, each once, before and after a refit', () => {
    const n = 1500;
    const { boxes, bvh } = builtBvh(n, 11);
    checkAcrossRefit(bvh, boxes, n, 12, 0.3, () => expectBruteForcePairs(bvh, boxes, n));
  });

  it('refitting only the items that moved gives the boxes of a full refit, and brute-force pairs', () => {
    const n = 1200;
    const { boxes, bvh } = builtBvh(n, 11);
    const full = new Bvh(4);
    full.build(boxes, n);
    const r = rng(22);
    for (let round = 0; round < 20; round++) {
      // a random subset moves (a few items up to a third of them, some listed twice)
      const m = 1 + Math.floor(r() * (round < 10 ? 10 : n / 3));
      const ids = new Int32Array(m);
      for (let k = 0; k < m; k++) {
        const i = Math.floor(r() * n);
        ids[k] = i;
        moveBox(boxes, i, r, 0.4);
      }
      bvh.refitItems(boxes, ids, m);
      full.refit(boxes);
      // the same tree (same build) refitted both ways: every node box is identical
      expect(Array.from(bvh.box.subarray(0, 6 * bvh.nodeCount))).toEqual(
        Array.from(full.box.subarray(0, 6 * full.nodeCount)),
      );
    }
    expectBruteForcePairs(bvh, boxes, n);
  });
});

describe('geometric primitives', () => {
  it('closest point on a triangle is never beaten by a dense sampling of the triangle', () => {
    const r = rng(11);
    const out = new Float64Array(7);
    for (let k = 0; k < 300; k++) {
      const v = Array.from({ length: 12 }, () => r() * 2 - 1);
      closestPointTriangle(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], out);
      const d = Math.sqrt(out[6]);
      // the point given is on the triangle: its barycentric coordinates are a convex combination
      expect(out[3] >= -1e-12 && out[4] >= -1e-12 && out[5] >= -1e-12).toBe(true);
      expect(Math.abs(out[3] + out[4] + out[5] - 1)).toBeLessThan(1e-12);
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i <= 40; i++) {
        for (let j = 0; i + j <= 40; j++) {
          const a = i / 40,
            b = j / 40,
            c = 1 - a - b;
          const px = a * v[3] + b * v[6] + c * v[9],
            py = a * v[4] + b * v[7] + c * v[10],
            pz = a * v[5] + b * v[8] + c * v[11];
          best = Math.min(best, Math.hypot(px - v[0], py - v[1], pz - v[2]));
        }
      }
      expect(d).toBeLessThanOrEqual(best + 1e-12);
      expect(best - d).toBeLessThan(0.05);
    }
  });

  it('closest points of two segments are never beaten by sampling', () => {
    const r = rng(12);
    const out = new Float64Array(3);
    for (let k = 0; k < 300; k++) {
      const v = Array.from({ length: 12 }, () => r() * 2 - 1);
      closestSegmentSegment(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], out);
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i <= 60; i++) {
        for (let j = 0; j <= 60; j++) {
          const s = i / 60,
            t = j / 60;
          best = Math.min(
            best,
            Math.hypot(
              v[0] + s * (v[3] - v[0]) - v[6] - t * (v[9] - v[6]),
              v[1] + s * (v[4] - v[1]) - v[7] - t * (v[10] - v[7]),
              v[2] + s * (v[5] - v[2]) - v[8] - t * (v[11] - v[8]),
            ),
          );
        }
      }
      expect(Math.sqrt(out[2])).toBeLessThanOrEqual(best + 1e-12);
      expect(best - Math.sqrt(out[2])).toBeLessThan(0.05);
    }
  });

  it('moving point vs moving triangle: finds the crossing time, and no crossing when it passes beside', () => {
    // triangle in the plane y = 0 moving up at 1; point moving down from y = 1 at 3: they meet at t = 0.25
    const x = new Float64Array([0.1, 1, 0.1, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const p = new Float64Array([0.1, -2, 0.1, 0, 1, 0, 1, 1, 0, 0, 1, 1]);
    expect(vertexTriangleCcd(x, p, 0, 3, 6, 9, 1e-12)).toBeCloseTo(0.25, 12);
    // the same motion beside the triangle
    const xs = x.slice(),
      ps = p.slice();
    xs[0] = ps[0] = 0.8;
    xs[2] = ps[2] = 0.8;
    expect(vertexTriangleCcd(xs, ps, 0, 3, 6, 9, 1e-12)).toBe(-1);
    // a triangle turning by 90° about the x axis sweeps through a resting point
    const xr = new Float64Array([0.2, 0.2, 0.5, -1, -1, 0, 2, -1, 0, -1, 2, 0]);
    const pr = new Float64Array([0.2, 0.2, 0.5, -1, 0, -1, 2, 0, -1, -1, 0, 2]);
    const t = vertexTriangleCcd(xr, pr, 0, 3, 6, 9, 1e-12);
    expect(t).toBeGreaterThan(0);
    expect(t).toBeLessThan(1);
    // at that time the point lies on the triangle
    const at = (i: number) => [0, 1, 2].map((k) => (1 - t) * xr[i + k] + t * pr[i + k]);
    const out = new Float64Array(7);
    const [a, b, c] = [at(3), at(6), at(9)];
    closestPointTriangle(0.2, 0.2, 0.5, a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], out);
    expect(Math.sqrt(out[6])).toBeLessThan(1e-9);
  });

  it('moving edges: crossing found at the right time, parallel edges that pass are not', () => {
    // edge a–b along x at y = 1 moving down at 2; edge c–d along z at y = 0: meet at t = 0.5
    const x = new Float64Array([-1, 1, 0, 1, 1, 0, 0, 0, -1, 0, 0, 1]);
    const p = new Float64Array([-1, -1, 0, 1, -1, 0, 0, 0, -1, 0, 0, 1]);
    expect(edgeEdgeCcd(x, p, 0, 3, 6, 9, 1e-12)).toBeCloseTo(0.5, 12);
    const q = p.slice();
    for (const i of [0, 3]) q[i + 2] = x[i + 2] = 2; // shifted past the end of c–d
    expect(edgeEdgeCcd(x, q, 0, 3, 6, 9, 1e-12)).toBe(-1);
  });

  it('segment–triangle crossing test', () => {
    const x = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, -1, 0.2, 0.2, 1, 2, 2, -1, 2, 2, 1]);
    expect(segmentCrossesTriangle(x, 9, 12, 0, 3, 6)).toBe(true);
    expect(segmentCrossesTriangle(x, 15, 18, 0, 3, 6)).toBe(false);
  });
});

describe('candidate lists of the surface contacts', () => {
  it('always hold every vertex–triangle and edge–edge pair within contact reach (incremental updates included)', () => {
    const world = new World({ substeps: 4 });
    const mesh = foldingSheet([0.6, 0.6], [16, 16], 0.35, [0.05, 9]);
    const cloth = new Cloth(world, { mesh, density: 0.2, bend: { compliance: 1 } });
    world.addCollider(new PlaneCollider({ friction: 0.5 }));
    const sc = enableCollisions(world, { thickness: 0.01 }).add(cloth).surfaces;
    const topo = sc.topology,
      broad = sc.broadPhase;
    const missing = { vt: 0, ee: 0 };
    const out = new Float64Array(7);
    const seg = new Float64Array(3);
    for (let step = 0; step < 90; step++) {
      world.step();
      const x = world.store.x;
      const reach = sc.marginFactor * 0.01 + 0.01;
      const vt = new Set<number>();
      for (let k = 0; k < broad.vtCount; k++) vt.add(broad.vtCand[2 * k] * 1e6 + broad.vtCand[2 * k + 1]);
      const ee = new Set<number>();
      for (let k = 0; k < broad.eeCount; k++) {
        const e = broad.eeCand[2 * k],
          f = broad.eeCand[2 * k + 1];
        ee.add(Math.min(e, f) * 1e6 + Math.max(e, f));
      }
      const V = (v: number) => 3 * topo.vertex[v];
      for (let q = 0; q < topo.vertexCount; q++) {
        for (let t = 0; t < topo.triCount; t++) {
          const a = topo.tri[3 * t],
            b = topo.tri[3 * t + 1],
            c = topo.tri[3 * t + 2];
          if (q === a || q === b || q === c) continue;
          closestPointTriangle(
            x[V(q)], x[V(q) + 1], x[V(q) + 2],
            x[V(a)], x[V(a) + 1], x[V(a) + 2],
            x[V(b)], x[V(b) + 1], x[V(b) + 2],
            x[V(c)], x[V(c) + 1], x[V(c) + 2],
            out,
          ); // biome-ignore format: coordinates
          if (out[6] < reach * reach && !vt.has(q * 1e6 + t)) missing.vt++;
        }
      }
      for (let e = 0; e < topo.edgeCount; e++) {
        for (let f = e + 1; f < topo.edgeCount; f++) {
          const a = topo.edge[2 * e],
            b = topo.edge[2 * e + 1],
            c = topo.edge[2 * f],
            d = topo.edge[2 * f + 1];
          if (a === c || a === d || b === c || b === d) continue;
          closestSegmentSegment(
            x[V(a)], x[V(a) + 1], x[V(a) + 2],
            x[V(b)], x[V(b) + 1], x[V(b) + 2],
            x[V(c)], x[V(c) + 1], x[V(c) + 2],
            x[V(d)], x[V(d) + 1], x[V(d) + 2],
            seg,
          ); // biome-ignore format: coordinates
          if (seg[2] < reach * reach && !ee.has(e * 1e6 + f)) missing.ee++;
        }
      }
    }
    expect(sc.stats.partialUpdates).toBeGreaterThan(0);
    expect(missing).toEqual({ vt: 0, ee: 0 });
  });

  it('particle contacts find exactly the brute-force pairs within reach', () => {
    const { world, g } = grainCube(0.3, 0.03, 0.016, 0.4);
    const sys = enableCollisions(world).add(g);
    const ctx = world.makeContext();
    world.store.p.set(world.store.x);
    sys.particles.beginStep(ctx);
    const got = sys.particles
      .pairs()
      .map(([i, j]) => `${Math.min(i, j)},${Math.max(i, j)}`)
      .sort();
    const { p, radius } = world.store;
    const want: string[] = [];
    for (let i = g.offset; i < g.offset + g.count; i++) {
      for (let j = i + 1; j < g.offset + g.count; j++) {
        const d = Math.hypot(p[3 * i] - p[3 * j], p[3 * i + 1] - p[3 * j + 1], p[3 * i + 2] - p[3 * j + 2]);
        if (d <= (radius[i] + radius[j]) * (1 + sys.particles.marginFactor)) want.push(`${i},${j}`);
      }
    }
    expect(want.length).toBeGreaterThan(500);
    expect(got).toEqual(want.sort());
  });
});

/** The tree's self-traversal returns exactly the overlapping pairs of a brute-force search, each once (and enough of them to mean something). */
function expectBruteForcePairs(bvh: Bvh, boxes: Float64Array, n: number): void {
  const m = bvh.selfPairs(boxes);
  const got: number[] = [];
  for (let k = 0; k < m; k++) {
    const i = bvh.pairs[2 * k],
      j = bvh.pairs[2 * k + 1];
    got.push(Math.min(i, j) * n + Math.max(i, j));
  }
  got.sort((a, b) => a - b);
  const want: number[] = [];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++)
      if (overlaps(boxes, i, boxes.subarray(6 * j, 6 * j + 6))) want.push(i * n + j);
  expect(want.length).toBeGreaterThan(200);
  expect(got).toEqual(want);
}

describe('Bvh.selfPairsBounded (budgets for coincident geometry, issue 21)', () => {
  /** n random boxes, and `copies` coincident copies of each. */
  function boxes(n: number, copies: number, seed: number): Float64Array {
    const r = rng(seed);
    const b = new Float64Array(6 * n * copies);
    for (let i = 0; i < n; i++) {
      const x = r(),
        y = r(),
        z = r(),
        s = 0.05 * r();
      for (let c = 0; c < copies; c++) b.set([x, y, z, x + s, y + s, z + s], 6 * (c * n + i));
    }
    return b;
  }
  const pairsOf = (t: Bvh, np: number) => Array.from(t.pairs.subarray(0, 2 * np));

  it('below its budgets gives every overlapping pair, in the order of the marked traversal', () => {
    const b = boxes(500, 3, 3);
    const t = new Bvh(4);
    t.build(b, 1500);
    // the marked traversal with every item marked: the same descent, pair by pair (an independent path)
    const all = pairsOf(t, t.selfPairs(b, new Uint8Array(1500).fill(1)));
    expect(all.length).toBeGreaterThan(100);
    const bounded = pairsOf(t, t.selfPairsBounded(b, 1000, 0));
    expect(bounded).toEqual(all);
    expect(t.saturated).toBe(0);
    expect(t.truncated).toBe(false);
  });

  it('on 50 coincident copies: at most perItem pairs per item, at most maxPairs in all, and only overlapping pairs', () => {
    const n = 100,
      copies = 50,
      m = n * copies;
    const b = boxes(n, copies, 5);
    const t = new Bvh(4);
    t.build(b, m);
    const uncapped = t.selfPairs(b);
    expect(uncapped).toBeGreaterThan(10 * m);
    const np = t.selfPairsBounded(b, 8, 0);
    expect(t.truncated).toBe(false);
    const per = new Int32Array(m);
    for (let k = 0; k < np; k++) {
      const i = t.pairs[2 * k],
        j = t.pairs[2 * k + 1];
      per[i]++;
      per[j]++;
      for (let a = 0; a < 3; a++) {
        expect(b[6 * i + a]).toBeLessThanOrEqual(b[6 * j + 3 + a]);
        expect(b[6 * j + a]).toBeLessThanOrEqual(b[6 * i + 3 + a]);
      }
    }
    expect(Math.max(...per)).toBeLessThanOrEqual(8);
    // every item meets its own copies, so nearly all of them use their whole budget
    expect(t.saturated).toBeGreaterThan(0.9 * m);
    expect(t.selfPairsBounded(b, 1000, 2 * m)).toBe(2 * m);
    expect(t.truncated).toBe(true);
  });
});

describe('the self-traversal cut into parts (bvh-self-pairs.ts, the pool rebuild)', () => {
  it('the parts of any frontier, concatenated in order, are selfPairs pair for pair; a part stops at its cap', () => {
    const n = 1500;
    const { boxes, bvh: t } = builtBvh(n, 11);
    const m = t.selfPairs(boxes);
    const want = Array.from(t.pairs.subarray(0, 2 * m));
    expect(want.length).toBeGreaterThan(400);
    for (const target of [1, 2, 7, 40, 96, 400]) {
      const front = new Int32Array(2 * (target + 2)),
        scratch = new Int32Array(2 * (target + 2));
      const nf = selfPairsFrontier(t, target, front, scratch);
      expect(nf).toBeLessThanOrEqual(target + 1);
      if (target <= 96) expect(nf).toBeGreaterThanOrEqual(target);
      const out = new Int32Array(want.length + 2);
      let np = 0;
      for (let f = 0; f < nf; f++)
        np = selfPairsOfNodes(t, boxes, front[2 * f], front[2 * f + 1], out, np, out.length >> 1);
      expect(Array.from(out.subarray(0, 2 * np))).toEqual(want);
    }
    // a cap below the pairs of the traversal: −1, never a write past the cap
    const small = new Int32Array(20).fill(-7);
    expect(selfPairsOfNodes(t, boxes, 0, 0, small, 0, 8)).toBe(-1);
    expect(Array.from(small.subarray(16))).toEqual([-7, -7, -7, -7]);
  });
});
