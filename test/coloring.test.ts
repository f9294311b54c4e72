/**
 * Graph colouring (survey 000 §3.8), edge topology and the world's set order
 * at scale (issue 21): a body's colouring depends only on its own constraints
 * (not on where it sits in a large store), the typed edge table gives the
 * edges a plain map gives, and sets added one by one keep the sorted order.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConstraintSet,
  colorConstraints,
  colorVariableConstraints,
  gridMesh,
  icosphere,
  PbdError,
  World,
} from '../src/index.js';
import { buildBendingQuads, buildEdgeTopology } from '../src/mesh/triangle-mesh.js';
import { rng } from './helpers.js';

/** Random constraints of `arity` distinct particles among `n`. */
function randomConstraints(seed: number, count: number, arity: number, n: number): Int32Array {
  const r = rng(seed);
  const out = new Int32Array(count * arity);
  for (let c = 0; c < count; c++) {
    for (let a = 0; a < arity; a++) {
      let i: number;
      do i = Math.floor(r() * n);
      while (out.subarray(c * arity, c * arity + a).includes(i));
      out[c * arity + a] = i;
    }
  }
  return out;
}

describe('constraint colouring', () => {
  it('no two constraints of a colour share a movable particle; pinned particles never conflict', () => {
    const n = 300;
    const idx = randomConstraints(3, 2000, 4, n);
    const invMass = new Float64Array(n).fill(1);
    for (let i = 0; i < n; i += 7) invMass[i] = 0;
    const col = colorConstraints(idx, 4, 2000, n, invMass);
    expect(col.offsets[col.colors]).toBe(2000);
    for (let c = 0; c < col.colors; c++) {
      const seen = new Set<number>();
      for (let k = col.offsets[c]; k < col.offsets[c + 1]; k++) {
        for (let a = 0; a < 4; a++) {
          const i = idx[4 * col.order[k] + a];
          if (invMass[i] === 0) continue;
          expect(seen.has(i)).toBe(false);
          seen.add(i);
        }
      }
    }
    // first fit: every constraint of colour c > 0 clashes with one of each lower colour
    const colorOf = new Int32Array(2000);
    for (let c = 0; c < col.colors; c++)
      for (let k = col.offsets[c]; k < col.offsets[c + 1]; k++) colorOf[col.order[k]] = c;
    for (let q = 0; q < 2000; q += 97) {
      for (let lower = 0; lower < colorOf[q]; lower++) {
        let clash = false;
        for (let p = 0; p < q && !clash; p++) {
          if (colorOf[p] !== lower) continue;
          for (let a = 0; a < 4 && !clash; a++)
            for (let b = 0; b < 4; b++)
              if (idx[4 * p + a] === idx[4 * q + b] && invMass[idx[4 * q + b]] !== 0) clash = true;
        }
        expect(clash).toBe(true);
      }
    }
  });

  it("a body's colouring is the same wherever it sits in the store (so a big scene colours in its bodies' size)", () => {
    const n = 500;
    const idx = randomConstraints(5, 3000, 2, n);
    const far = idx.map((i) => i + 1_000_000);
    const a = colorConstraints(idx, 2, 3000, n);
    const b = colorConstraints(far, 2, 3000, 1_000_000 + n);
    expect(b.colors).toBe(a.colors);
    expect(Array.from(b.order)).toEqual(Array.from(a.order));
    expect(Array.from(b.offsets)).toEqual(Array.from(a.offsets));
    // more than 64 colours (the masks widen): a hub particle in every constraint
    const hub = new Int32Array(2 * 100);
    for (let c = 0; c < 100; c++) hub.set([7, 10 + c], 2 * c);
    const h = colorConstraints(
      hub.map((i) => i + 5000),
      2,
      100,
      6000,
    );
    expect(h.colors).toBe(100);

    const starts = new Int32Array(301);
    const flat: number[] = [];
    const r = rng(9);
    for (let c = 0; c < 300; c++) {
      const k = 2 + Math.floor(r() * 5);
      for (let j = 0; j < k; j++) flat.push(Math.floor(r() * n));
      starts[c + 1] = flat.length;
    }
    const va = colorVariableConstraints(Int32Array.from(flat), starts, 300, n);
    const vb = colorVariableConstraints(
      Int32Array.from(flat, (i) => i + 70_000),
      starts,
      300,
      70_000 + n,
    );
    expect(Array.from(vb.order)).toEqual(Array.from(va.order));
    expect(vb.colors).toBe(va.colors);
  });

  it('an index that is not a particle is a PbdError naming it', () => {
    const idx = Int32Array.from([0, 1, 1, 9]);
    expect(() => colorConstraints(idx, 2, 2, 5)).toThrow(PbdError);
    expect(() => colorConstraints(idx, 2, 2, 5)).toThrow(/indices\[3\].*9/);
    expect(() => colorVariableConstraints(Int32Array.from([0, -1]), [0, 2], 1, 5)).toThrow(/indices\[1\]/);
    expect(colorConstraints(new Int32Array(0), 2, 0, 0).colors).toBe(0);
  });
});

/** The edge topology as a map of string keys gives it: edges in the order first met. */
function referenceTopology(tris: Uint32Array) {
  const index = new Map<string, number>();
  const edges: number[] = [];
  const edgeTris: number[] = [];
  const triangleEdges: number[] = [];
  for (let t = 0; t < tris.length / 3; t++) {
    for (let k = 0; k < 3; k++) {
      const a = tris[3 * t + k],
        b = tris[3 * t + ((k + 1) % 3)];
      const key = `${Math.min(a, b)},${Math.max(a, b)}`;
      let e = index.get(key);
      if (e === undefined) {
        e = edges.length / 2;
        index.set(key, e);
        edges.push(Math.min(a, b), Math.max(a, b));
        edgeTris.push(t, -1);
      } else edgeTris[2 * e + 1] = t;
      triangleEdges.push(e);
    }
  }
  return { edges, edgeTris, triangleEdges };
}

describe('edge topology', () => {
  it('gives the edges, their triangles and the bending quads a map of edges gives (grid, sphere, shuffled)', () => {
    const grid = gridMesh({ width: 1, height: 1, cols: 30, rows: 20 });
    const ball = icosphere(1, 3);
    // a sphere with its triangles in random order and its vertices renumbered far apart
    const r = rng(4);
    const perm = Array.from(
      { length: ball.positions.length / 3 },
      (_, i) => i * 1000 + Math.floor(r() * 999),
    );
    const shuffled = Array.from({ length: ball.triangles.length / 3 }, (_, t) => t).sort(() => r() - 0.5);
    const far = new Uint32Array(ball.triangles.length);
    shuffled.forEach((t, k) => {
      for (let c = 0; c < 3; c++) far[3 * k + c] = perm[ball.triangles[3 * t + c]];
    });
    for (const tris of [grid.triangles, ball.triangles, far]) {
      const topo = buildEdgeTopology(tris);
      const ref = referenceTopology(tris);
      expect(Array.from(topo.edges)).toEqual(ref.edges);
      expect(Array.from(topo.edgeTriangles)).toEqual(ref.edgeTris);
      expect(Array.from(topo.triangleEdges)).toEqual(ref.triangleEdges);
      const quads = buildBendingQuads(tris, topo);
      const interior = ref.edgeTris.filter((t, k) => k % 2 === 1 && t >= 0).length;
      expect(quads.length).toBe(4 * interior);
    }
    // Euler: a closed sphere has E = 3F/2, every edge interior; the grid's boundary edges have one triangle
    const closed = buildEdgeTopology(ball.triangles);
    expect(closed.edges.length / 2).toBe((3 * ball.triangles.length) / 3 / 2);
    const open = buildEdgeTopology(grid.triangles);
    const boundary = Array.from(open.edgeTriangles).filter((t, k) => k % 2 === 1 && t < 0).length;
    expect(boundary).toBe(2 * (30 - 1 + 20 - 1)); // cols × rows vertices
  });

  it('an edge of three triangles is a PbdError naming the edge and the triangles', () => {
    const tris = Uint32Array.from([0, 1, 2, 1, 0, 3, 0, 1, 4]);
    expect(() => buildEdgeTopology(tris, 'cloth.mesh')).toThrow(
      /cloth\.mesh: edge \(0, 1\)[\s\S]*\(0, 1, 2\)/,
    );
  });
});

describe('world set order', () => {
  it('sets added one by one run by order, then the systems first, then as added', () => {
    const world = new World();
    const before = world.sets.length;
    const make = (order: number, name: string): ConstraintSet =>
      ({ kind: name, order, enabled: true, project() {} }) as unknown as ConstraintSet;
    const added: [number, string, boolean][] = [
      [100, 'c1', false],
      [0, 'm1', false],
      [-1, 'pre', false],
      [0, 's1', true],
      [100, 'c2', false],
      [0, 'm2', false],
      [100, 's2', true],
      [0, 'm3', false],
    ];
    for (const [order, name, system] of added) world.addConstraintSet(make(order, name), { system });
    const ours = world.sets.slice(before).map((s) => s.kind);
    const mine = world.sets.filter((s) => added.some(([, n]) => n === s.kind)).map((s) => s.kind);
    expect(ours.length).toBeGreaterThanOrEqual(added.length);
    expect(mine).toEqual(['pre', 's1', 'm1', 'm2', 'm3', 's2', 'c1', 'c2']);
  });
});
