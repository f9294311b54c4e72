import { describe, expect, it } from 'vitest';
import {
  bunnyMesh,
  delaunay,
  formatGmsh,
  formatTetGen,
  gridMesh,
  icosphere,
  loadScene,
  type PbdError,
  parseGmsh,
  parseTetGen,
  RenderEmbedding,
  type TetMesh,
  tetBox,
  tetQuality,
  tetrahedralize,
  tetSurface,
  tetVolume,
  validateTetMesh,
} from '../src/index.js';
import { rng } from './helpers.js';

const one: TetMesh = {
  positions: new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1]),
  tets: new Uint32Array([0, 1, 2, 3, 1, 2, 3, 4]),
};

function codeOf(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (e) {
    return { code: (e as PbdError).code, message: (e as Error).message };
  }
  throw new Error('expected an error');
}

describe('tet mesh validation', () => {
  it('orients a consistently negative mesh and measures it', () => {
    const neg = { positions: one.positions, tets: new Uint32Array([1, 0, 2, 3, 2, 1, 3, 4]) };
    const m = validateTetMesh(neg);
    for (let t = 0; t < 2; t++)
      expect(
        tetVolume(m.positions, m.tets[4 * t], m.tets[4 * t + 1], m.tets[4 * t + 2], m.tets[4 * t + 3]),
      ).toBeGreaterThan(0);
    const q = tetQuality(m);
    expect(q.totalVolume).toBeCloseTo(1 / 6 + 1 / 3, 12);
    expect(q.minDihedral).toBeGreaterThan(0);
  });

  it('names an inverted tet, a zero-volume tet and an index out of range', () => {
    const mixed = { positions: one.positions, tets: new Uint32Array([0, 1, 2, 3, 2, 1, 3, 4, 0, 3, 1, 4]) };
    const inv = codeOf(() => validateTetMesh(mixed, 'm'));
    expect(inv.code).toBe('tetmesh/inverted-tet');
    expect(inv.message).toMatch(/m: tet 1.*inverted/);
    const flat = {
      positions: new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]),
      tets: new Uint32Array([0, 1, 2, 3]),
    };
    const z = codeOf(() => validateTetMesh(flat, 'm'));
    expect(z.code).toBe('tetmesh/zero-volume');
    expect(z.message).toMatch(/tet 0.*zero volume/);
    const bad = { positions: one.positions, tets: new Uint32Array([0, 1, 2, 9]) };
    const b = codeOf(() => validateTetMesh(bad, 'm'));
    expect(b.code).toBe('tetmesh/bad-index');
    expect(b.message).toMatch(/tet 0: refers to vertex 9 .*5 vertices/);
  });

  it('a box is conforming: its surface is closed, outward and encloses the box volume', () => {
    const m = tetBox({ size: [2, 1, 0.5], resolution: [5, 3, 4] });
    const s = tetSurface(m);
    // a closed 2-manifold: every edge in exactly two triangles
    const edges = new Map<string, number>();
    for (let t = 0; t < s.length; t += 3)
      for (let k = 0; k < 3; k++) {
        const a = s[t + k],
          b = s[t + ((k + 1) % 3)];
        const key = a < b ? `${a},${b}` : `${b},${a}`;
        edges.set(key, (edges.get(key) ?? 0) + 1);
      }
    for (const c of edges.values()) expect(c).toBe(2);
    let v = 0;
    for (let t = 0; t < s.length; t += 3)
      v += tetVolume([0, 0, 0, ...m.positions], 0, s[t] + 1, s[t + 1] + 1, s[t + 2] + 1);
    expect(v).toBeCloseTo(1, 12);
    expect(tetQuality(m).totalVolume).toBeCloseTo(1, 12);
    // 5 tets per cell
    expect(m.tets.length / 4).toBe(5 * 4 * 2 * 3);
  });
});

describe('TetGen and Gmsh files', () => {
  const box = tetBox({ size: [1, 1, 1], resolution: [3, 3, 2] });

  it('TetGen .node/.ele round trip, 1-based files with attributes, 10-node tets', () => {
    const { node, ele } = formatTetGen(box);
    const back = parseTetGen(node, ele);
    expect(back.positions).toEqual(box.positions);
    expect(back.tets).toEqual(box.tets);
    const node1 = '# one-based\n5 3 1 1\n1 0 0 0 7 1\n2 1 0 0 7 1\n3 0 1 0 7 0\n4 0 0 1 7 0\n5 1 1 1 7 1\n';
    const ele1 = '2 10 1\n1 1 2 3 4 1 1 1 1 1 1 5\n2 2 3 4 5 1 1 1 1 1 1 5\n';
    const m = parseTetGen(node1, ele1);
    expect(Array.from(m.tets)).toEqual([0, 1, 2, 3, 1, 2, 3, 4]);
  });

  it('TetGen errors name the file and line', () => {
    const e = codeOf(() =>
      parseTetGen('2 3 0 0\n0 0 0 0\n1 1 0 0\n', '1 4 0\n0 0 1 2 7\n', 'a.node', 'a.ele'),
    );
    expect(e.code).toBe('tetgen/bad-index');
    expect(e.message).toMatch(/a\.ele:2/);
    const t = codeOf(() => parseTetGen('3 3 0 0\n0 0 0 0\n', '', 'b.node'));
    expect(t.code).toBe('tetgen/truncated');
  });

  for (const version of ['2.2', '4.1'] as const) {
    it(`Gmsh ${version} round trip`, () => {
      const back = parseGmsh(formatGmsh(box, version));
      expect(back.positions).toEqual(box.positions);
      expect(back.tets).toEqual(box.tets);
    });
  }

  it('Gmsh 4.1 with entities, other elements and sparse tags; 2.2 with tags; 4.0 blocks', () => {
    const v41 = `$MeshFormat
4.1 0 8
$EndMeshFormat
$Entities
0 0 0 1
1 0 0 0 1 1 1 0 0
$EndEntities
$Nodes
2 5 10 50
2 1 0 1
10
0 0 0
3 1 0 4
20
30
40
50
1 0 0
0 1 0
0 0 1
1 1 1
$EndNodes
$Elements
2 3 1 3
2 1 2 1
1 10 20 30
3 1 4 2
2 10 20 30 40
3 20 30 40 50
$EndElements
`;
    const m = parseGmsh(v41);
    expect(m.tets.length).toBe(8);
    expect(validateTetMesh(m).tets.length).toBe(8);
    const v22 =
      '$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n2\n1 2 2 0 1 1 2 3\n2 4 2 0 1 1 2 3 4\n$EndElements\n';
    expect(Array.from(parseGmsh(v22).tets)).toEqual([0, 1, 2, 3]);
    const v40 =
      '$MeshFormat\n4 0 8\n$EndMeshFormat\n$Nodes\n1 4\n1 3 0 4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1 1\n1 3 4 1\n1 1 2 3 4\n$EndElements\n';
    expect(Array.from(parseGmsh(v40).tets)).toEqual([0, 1, 2, 3]);
  });

  it('Gmsh errors: binary files, unknown nodes, no tets', () => {
    expect(codeOf(() => parseGmsh('$MeshFormat\n4.1 1 8\n$EndMeshFormat\n', 'b.msh')).code).toBe(
      'gmsh/binary',
    );
    const missing =
      '$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n$Elements\n1\n1 4 0 1 2 3 4\n$EndElements\n';
    const e = codeOf(() => parseGmsh(missing, 'm.msh'));
    expect(e.code).toBe('gmsh/bad-index');
    expect(e.message).toMatch(/m\.msh:\d+.*node 2/);
    expect(codeOf(() => parseGmsh('$MeshFormat\n2.2 0 8\n$EndMeshFormat\n')).code).toBe('gmsh/no-tets');
  });
});

describe("pbdkit's tetrahedraliser", () => {
  it('Delaunay: positive tets that fill the convex hull, with empty circumspheres', () => {
    const r = rng(11);
    const pts: number[] = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1];
    for (let i = 0; i < 200; i++) pts.push(r(), r(), r());
    const d = delaunay(Float64Array.from(pts));
    let vol = 0;
    const P = d.points;
    for (let t = 0; t < d.tets.length; t += 4) {
      const v = tetVolume(P, d.tets[t], d.tets[t + 1], d.tets[t + 2], d.tets[t + 3]);
      expect(v).toBeGreaterThan(0);
      vol += v;
    }
    expect(vol).toBeGreaterThan(0.999);
    expect(vol).toBeLessThan(1 + 1e-12);
    // empty sphere: no point strictly inside any circumsphere (checked on a sample of tets)
    for (let t = 0; t < d.tets.length; t += 4 * 7) {
      const [a, b, c, e] = [0, 1, 2, 3].map((k) => d.tets[t + k]);
      const cs = circumsphere(P, a, b, c, e);
      for (let i = 0; i < P.length / 3; i++) {
        const dd = Math.hypot(P[3 * i] - cs[0], P[3 * i + 1] - cs[1], P[3 * i + 2] - cs[2]);
        expect(dd).toBeGreaterThan(cs[3] * (1 - 1e-9));
      }
    }
  });

  it('fills a sphere and the bunny with valid tets; resolution controls the size; quality is reported', () => {
    const s8 = tetrahedralize(icosphere(1, 3), { resolution: 8 });
    const s4 = tetrahedralize(icosphere(1, 3), { resolution: 4 });
    expect(s8.quality.tets).toBeGreaterThan(3 * s4.quality.tets);
    expect(s8.meshVolume / s8.surfaceVolume).toBeGreaterThan(0.9);
    expect(s8.meshVolume / s8.surfaceVolume).toBeLessThan(1.01);
    validateTetMesh(s8.mesh);
    const b = tetrahedralize(bunnyMesh(0.5), { resolution: 8 });
    validateTetMesh(b.mesh);
    expect(b.quality.minDihedral).toBeGreaterThan(0);
    expect(b.meshVolume / b.surfaceVolume).toBeGreaterThan(0.85);
    expect(b.meshVolume / b.surfaceVolume).toBeLessThan(1.01);
    // every vertex of the tet mesh lies inside or on the bunny's bounding box
    expect(b.quality.vertices).toBeGreaterThan(100);
  });

  it('rejects an open surface, naming a boundary edge', () => {
    const e = codeOf(() =>
      tetrahedralize(gridMesh({ width: 1, height: 1, cols: 3, rows: 3 }), {}, 'bodies[0].tetMesh'),
    );
    expect(e.code).toBe('tetrahedralize/open-surface');
    expect(e.message).toMatch(/bodies\[0\]\.tetMesh\.surface: edge \(\d+, \d+\)/);
  });
});

describe('render embedding (002 §5)', () => {
  it('in tets: reproduces the render mesh at rest and follows affine deformations exactly', () => {
    const sim = tetrahedralize(icosphere(1, 2), { resolution: 4 }).mesh;
    const render = icosphere(1, 3);
    const emb = RenderEmbedding.inTets(render, sim.positions, sim.tets);
    const out = emb.update(sim.positions, 0);
    for (let k = 0; k < out.length; k++) expect(out[k]).toBeCloseTo(render.positions[k], 10);
    const A = [1.2, 0.3, 0, -0.1, 0.8, 0.2, 0.05, 0, 1.1];
    const def = new Float64Array(sim.positions.length);
    for (let i = 0; i < def.length; i += 3)
      for (let r = 0; r < 3; r++)
        def[i + r] =
          A[3 * r] * sim.positions[i] +
          A[3 * r + 1] * sim.positions[i + 1] +
          A[3 * r + 2] * sim.positions[i + 2] +
          r;
    emb.update(def, 0);
    for (let i = 0; i < out.length; i += 3)
      for (let r = 0; r < 3; r++) {
        const e =
          A[3 * r] * render.positions[i] +
          A[3 * r + 1] * render.positions[i + 1] +
          A[3 * r + 2] * render.positions[i + 2] +
          r;
        expect(emb.positions[i + r]).toBeCloseTo(e, 9);
      }
  });

  it('on the surface: rest positions are reproduced and rigid motions followed, normal offsets kept', () => {
    const sim = icosphere(1, 2);
    const render = icosphere(1.05, 3);
    const emb = RenderEmbedding.onSurface(render, sim.positions, sim.triangles);
    const rest = emb.update(sim.positions, 0).slice();
    let err = 0;
    for (let k = 0; k < rest.length; k++) err = Math.max(err, Math.abs(rest[k] - render.positions[k]));
    expect(err).toBeLessThan(1e-3);
    // rotate about y and translate: the embedding moves rigidly along
    const c = Math.cos(0.7),
      s = Math.sin(0.7);
    const moved = new Float64Array(sim.positions.length + 6);
    for (let i = 0; i < sim.positions.length; i += 3) {
      moved[6 + i] = c * sim.positions[i] + s * sim.positions[i + 2] + 2;
      moved[6 + i + 1] = sim.positions[i + 1] - 1;
      moved[6 + i + 2] = -s * sim.positions[i] + c * sim.positions[i + 2];
    }
    const out = emb.update(moved, 2);
    for (let i = 0; i < out.length; i += 3) {
      expect(out[i]).toBeCloseTo(c * rest[i] + s * rest[i + 2] + 2, 9);
      expect(out[i + 1]).toBeCloseTo(rest[i + 1] - 1, 9);
      expect(out[i + 2]).toBeCloseTo(-s * rest[i] + c * rest[i + 2], 9);
    }
  });

  it('a scene soft body renders its embedded surface through renderPositions()', () => {
    const scene = {
      title: 't',
      family: 'softbody',
      world: { gravity: [0, 0, 0] },
      bodies: [
        {
          type: 'softbody',
          tetMesh: {
            tetrahedralize: { mesh: { icosphere: { radius: 0.5, subdivisions: 2 } }, resolution: 4 },
          },
        },
      ],
    };
    const inst = loadScene(JSON.stringify(scene));
    const body = inst.bodies[0];
    expect(body.renderTriangles().length).toBe(3 * 320);
    expect(body.renderPositions().length).toBe(3 * 162);
    expect(body.positions().length).toBeLessThan(body.renderPositions().length);
  });
});

function circumsphere(P: Float64Array, a: number, b: number, c: number, d: number): number[] {
  const o = [P[3 * a], P[3 * a + 1], P[3 * a + 2]];
  const v = [b, c, d].map((i) => [P[3 * i] - o[0], P[3 * i + 1] - o[1], P[3 * i + 2] - o[2]]);
  const rhs = v.map((q) => 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]));
  const det = (m: number[][]) =>
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
    m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
    m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  const D = det(v);
  const x = [0, 1, 2].map((k) => det(v.map((row, r) => row.map((e, j) => (j === k ? rhs[r] : e)))) / D);
  return [o[0] + x[0], o[1] + x[1], o[2] + x[2], Math.hypot(x[0], x[1], x[2])];
}
