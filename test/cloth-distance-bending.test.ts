import { describe, expect, it } from 'vitest';
import {
  buildBendingQuads,
  buildEdgeTopology,
  Cloth,
  type ClothBendOptions,
  gridMesh,
  loadScene,
  World,
} from '../src/index.js';

/**
 * A horizontal 1 m × 1 m cloth of 17 × 17 vertices pinned at the two corners of one edge, falling
 * and folding for `frames` frames (XPBD, 10 substeps): its mean fold over the interior edges
 * (π minus the angle between the normals of the edge's two triangles: 0 when flat, π when
 * folded shut) and its mean edge stretch |ℓ/ℓ0 − 1|.
 */
function fallingFold(
  bend: ClothBendOptions | false,
  precision: 'f64' | 'f32' = 'f64',
  frames = 60,
): { fold: number; meanStretch: number; cloth: Cloth } {
  const n = 17;
  const world = new World({ substeps: 10, iterations: 1, solver: 'xpbd', sweep: 'forward', precision });
  const mesh = gridMesh({ width: 1, height: 1, cols: n, rows: n, plane: 'xz' });
  const cloth = new Cloth(world, { mesh, density: 0.2, stretch: { compliance: 0 }, bend });
  cloth.pin(0);
  cloth.pin(n - 1);
  for (let f = 0; f < frames; f++) world.step();
  const x = world.store.x;
  const off = cloth.offset;
  const normal = (a: number, b: number, c: number): number[] => {
    const u = [0, 1, 2].map((k) => x[3 * b + k] - x[3 * a + k]);
    const v = [0, 1, 2].map((k) => x[3 * c + k] - x[3 * a + k]);
    const m = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const l = Math.hypot(m[0], m[1], m[2]);
    return m.map((e) => e / l);
  };
  const q = buildBendingQuads(mesh.triangles, buildEdgeTopology(mesh.triangles));
  let fold = 0;
  for (let k = 0; k < q.length; k += 4) {
    const [a, b, c, d] = [q[k], q[k + 1], q[k + 2], q[k + 3]].map((i) => off + i);
    const n1 = normal(a, b, c),
      n2 = normal(a, b, d);
    const dot = n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2];
    fold += Math.PI - Math.acos(Math.max(-1, Math.min(1, dot)));
  }
  const s = cloth.stretch;
  let sum = 0;
  for (let k = 0; k < s.count; k++) {
    const a = 3 * s.indices[2 * k],
      b = 3 * s.indices[2 * k + 1];
    sum += Math.abs(Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]) / s.rest[k] - 1);
  }
  return { fold: fold / (q.length / 4), meanStretch: sum / s.count, cloth };
}

describe("distance bending (ClothOptions.bend.model 'distance', 003 §4.1)", () => {
  it('links the two vertices opposite each interior edge, at their rest distance, instead of the dihedral set', () => {
    const world = new World();
    const mesh = gridMesh({ width: 1, height: 1, cols: 6, rows: 5 });
    const cloth = new Cloth(world, { mesh, bend: { model: 'distance', compliance: 0.5 } });
    const quads = buildBendingQuads(mesh.triangles, buildEdgeTopology(mesh.triangles));
    const links = cloth.bendLinks!;
    expect(cloth.bend).toBeNull();
    expect(links.count).toBe(quads.length / 4);
    expect(links.kind).toBe('distance-bending');
    expect(links.rule.compliance).toBe(0.5);
    const want = new Set<string>();
    for (let k = 0; k < quads.length; k += 4)
      want.add(`${Math.min(quads[k + 2], quads[k + 3])}-${Math.max(quads[k + 2], quads[k + 3])}`);
    const p = mesh.positions;
    for (let c = 0; c < links.count; c++) {
      const a = links.indices[2 * c] - cloth.offset,
        b = links.indices[2 * c + 1] - cloth.offset;
      expect(want.has(`${Math.min(a, b)}-${Math.max(a, b)}`)).toBe(true);
      const d = Math.hypot(p[3 * a] - p[3 * b], p[3 * a + 1] - p[3 * b + 1], p[3 * a + 2] - p[3 * b + 2]);
      expect(links.rest[c]).toBeCloseTo(d, 12);
    }
    // the model's defaults alone; the dihedral model keeps its own (and `{}` the rule's, as before)
    expect(new Cloth(new World(), { mesh, bend: { model: 'distance' } }).bendLinks!.rule.compliance).toBe(1);
    const dihedral = new Cloth(new World(), { mesh, bend: {} });
    expect(dihedral.bendLinks).toBeNull();
    expect(dihedral.bend!.rule.compliance).toBe(0);
    expect(() => new Cloth(new World(), { mesh, bend: { model: 'springs' as 'distance' } })).toThrow(
      /bend\.model/,
    );
  });

  for (const precision of ['f64', 'f32'] as const) {
    it(`resists the folding of a falling cloth, more for stiffer links; stretch bounded (${precision})`, () => {
      const none = fallingFold(false, precision);
      const soft = fallingFold({ model: 'distance', compliance: 1 }, precision);
      const mid = fallingFold({ model: 'distance', compliance: 0.1 }, precision);
      const stiff = fallingFold({ model: 'distance', compliance: 0.01 }, precision);
      // measured (f64 and f32 alike): mean fold 0.115 rad without bending, 0.101 / 0.084 / 0.068
      // with links of compliance 1 / 0.1 / 0.01 m/N (the dihedral bending of compliance 0.01: 0.019)
      expect(none.fold).toBeGreaterThan(0.1);
      expect(stiff.fold).toBeLessThan(0.7 * none.fold);
      expect(mid.fold).toBeLessThan(soft.fold);
      expect(soft.fold).toBeLessThan(none.fold);
      for (const r of [none, soft, mid, stiff]) {
        expect(r.meanStretch).toBeLessThan(0.05);
        expect(Number.isFinite(r.fold)).toBe(true);
      }
      // the links project with the stretch set's kernels (WebAssembly where it is there)
      expect(stiff.cloth.bendLinks!.activeBackend).toBe(stiff.cloth.stretch.activeBackend);
    });
  }

  it('rebuilds the links when the cloth tears', () => {
    const world = new World({ substeps: 5 });
    const n = 8;
    const cloth = new Cloth(world, {
      mesh: gridMesh({ width: 1, height: 1, cols: n, rows: n, plane: 'xy' }),
      bend: { model: 'distance', compliance: 0.1 },
      tear: { threshold: 1.1 },
    });
    const before = cloth.bendLinks!.count;
    cloth.pin(0);
    cloth.pin(n - 1);
    // the bottom row jerked down: edges near the pins overstretch and tear
    for (let c = 0; c < n; c++) world.store.v[3 * (cloth.offset + (n - 1) * n + c) + 1] = -200;
    for (let f = 0; f < 10; f++) world.step();
    expect(cloth.activeCount).toBeGreaterThan(n * n);
    const quads = buildBendingQuads(cloth.triangles, buildEdgeTopology(cloth.triangles));
    expect(cloth.bendLinks!.count).toBe(quads.length / 4);
    expect(cloth.bendLinks!.count).toBeLessThan(before);
  });

  it("is the bend model of a scene file's cloth", () => {
    const scene = (bend: unknown) =>
      JSON.stringify({
        title: 't',
        family: 'cloth',
        world: { substeps: 5 },
        bodies: [{ type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: 6, rows: 6 } }, bend }],
      });
    const cloth = loadScene(scene({ model: 'distance', compliance: 0.25 })).bodies[0] as Cloth;
    expect(cloth.bend).toBeNull();
    expect(cloth.bendLinks!.count).toBeGreaterThan(0);
    expect(cloth.bendLinks!.rule.compliance).toBe(0.25);
    expect(() => loadScene(scene({ model: 'springs' }))).toThrow();
  });
});
