import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { clothDemoWorld } from '../bench/cases/cloth.js';
import { generateAll } from '../scripts/build-kernels.js';
import { loadShippedScene, sceneFiles } from '../scripts/shipped-scenes.js';
import {
  bunnyMesh,
  Cloth,
  DistanceConstraints,
  FemCloth,
  gridMesh,
  PlaneCollider,
  SoftBody,
  type SolverKind,
  type SweepKind,
  TriangleAreaConstraints,
  tetBox,
  tetrahedralize,
  useWasmKernels,
  World,
} from '../src/index.js';

afterEach(() => useWasmKernels(true));

describe('WebAssembly kernels', () => {
  it('every generated kernel file is up to date with its definition (run npm run kernels if not)', async () => {
    const files = await generateAll();
    // five JavaScript kernels, their AssemblyScript twins and sweeps, two compiled modules
    expect(files.size).toBeGreaterThanOrEqual(9);
    for (const [path, text] of files) {
      expect(readFileSync(new URL(`../${path}`, import.meta.url), 'utf8'), path).toBe(text);
    }
  }, 120_000);

  // the SIMD kernel performs the JavaScript kernel's operations in the same order, two tets of
  // one colour at a time: every position must come out bit for bit the same
  const bar = (solver: SolverKind, sweep: SweepKind) => (world: World) => {
    const b = new SoftBody(world, {
      mesh: tetBox({ size: [3, 0.5, 0.5], resolution: [30, 5, 5] }),
      material: { youngsModulus: 1e6, poissonRatio: 0.3 },
    });
    for (let i = 0; i < b.count; i++) if (b.restPositions[3 * i] < 1e-9) b.pin(i);
    return { b, world: { dt: 0.005, substeps: 5, iterations: 1, solver, sweep } };
  };

  function simulate(
    wasm: boolean,
    options: ConstructorParameters<typeof World>[0],
    build: (w: World) => SoftBody,
    steps: number,
  ) {
    useWasmKernels(wasm);
    const w = new World(options);
    const b = build(w);
    for (let s = 0; s < steps; s++) w.step();
    const fem = b.fem;
    if (!fem) throw new Error('no fem');
    return { x: w.store.x.slice(), backend: fem.activeBackend, deferred: fem.wasmDeferred };
  }

  for (const [solver, sweep] of [
    ['pbd', 'forward'],
    ['xpbd', 'symmetric'],
  ] as const) {
    it(`StVK bar (${solver}, ${sweep} sweep): SIMD and JavaScript give identical positions`, () => {
      const make = bar(solver, sweep);
      const opts = make(new World()).world;
      const build = (w: World) => make(w).b;
      const a = simulate(true, opts, build, 120);
      const j = simulate(false, opts, build, 120);
      expect(a.backend).toBe('wasm');
      expect(j.backend).toBe('js');
      expect(Array.from(a.x)).toEqual(Array.from(j.x));
      // and the bar sagged: the comparison is not between two resting states
      let low = 0;
      for (let i = 1; i < a.x.length; i += 3) low = Math.min(low, a.x[i]);
      expect(low).toBeLessThan(-0.05);
    });
  }

  for (const model of ['stvk', 'neo-hookean'] as const) {
    it(`a flattened ${model} bunny dropped on the ground (inverted tets go to the JavaScript kernel): identical positions`, () => {
      const mesh = tetrahedralize(bunnyMesh(0.5), { resolution: 6 }).mesh;
      const opts = { dt: 1 / 60, substeps: 10, solver: 'xpbd' as const };
      const build = (w: World) => {
        w.addCollider(new PlaneCollider({}, 'ground'));
        return new SoftBody(w, {
          mesh,
          material: { model, youngsModulus: 1e5, poissonRatio: 0.3 },
          initial: 'flattened',
        });
      };
      const a = simulate(true, opts, build, 60);
      const j = simulate(false, opts, build, 60);
      expect(a.backend).toBe('wasm');
      // the flattened start has zero-volume tets, which only the SVD path handles
      expect(a.deferred).toBeGreaterThan(0);
      expect(Array.from(a.x)).toEqual(Array.from(j.x));
      // it recovered a volume: the comparison covers the fast path too
      let top = 0;
      for (let i = 1; i < a.x.length; i += 3) top = Math.max(top, a.x[i]);
      expect(top).toBeGreaterThan(0.2);
    });
  }

  it('cloth (PBD, forward sweep): SIMD distance and bending kernels give identical positions', () => {
    const run = (wasm: boolean) => {
      useWasmKernels(wasm);
      // bench/cases/cloth.ts's demo, 41 × 41 over 2 m
      const { world: w, cloth: c } = clothDemoWorld(41, 'forward', 1, 2);
      for (let s = 0; s < 100; s++) w.step();
      return { x: w.store.x.slice(), stretch: c.stretch.activeBackend, bend: c.bend?.activeBackend };
    };
    const a = run(true);
    const j = run(false);
    expect([a.stretch, a.bend]).toEqual(['wasm', 'wasm']);
    expect([j.stretch, j.bend]).toEqual(['js', 'js']);
    expect(Array.from(a.x)).toEqual(Array.from(j.x));
    let low = 0;
    for (let i = 1; i < a.x.length; i += 3) low = Math.min(low, a.x[i]);
    expect(low).toBeLessThan(-0.5); // it swung down: not a comparison of resting states
  });

  it('FEM cloth (StVK membrane + isometric bending) squeezed to half its width, released over the ground: identical positions', () => {
    const run = (wasm: boolean, solver: SolverKind, sweep: SweepKind) => {
      useWasmKernels(wasm);
      const w = new World({ dt: 1 / 60, substeps: 8, solver, sweep });
      w.addCollider(new PlaneCollider({}, 'ground'));
      const n = 31;
      const mesh = gridMesh({ width: 1, height: 1, cols: n, rows: n, plane: 'xz', diagonals: 'uniform' });
      for (let i = 0; i < mesh.positions.length; i += 3)
        mesh.positions[i + 1] = 0.3 + 0.2 * mesh.positions[i];
      const c = new FemCloth(w, {
        mesh,
        density: 0.3,
        material: { youngsModulus: 2000, poissonRatio: 0.3 },
        bend: { stiffness: 0.05 },
      });
      // squeeze it to half its width: stretches of 0.5 are below the clamp (1/√3), the SVD path's
      for (let i = 0; i < c.count; i++) w.store.x[3 * (c.offset + i)] *= 0.5;
      for (let s = 0; s < 90; s++) w.step();
      return {
        x: w.store.x.slice(),
        backends: [c.membrane.activeBackend, c.bend?.activeBackend],
        deferred: c.membrane.wasmDeferred,
      };
    };
    for (const [solver, sweep] of [
      ['pbd', 'forward'],
      ['xpbd', 'symmetric'],
    ] as const) {
      const a = run(true, solver, sweep);
      const j = run(false, solver, sweep);
      expect(a.backends).toEqual(['wasm', 'wasm']);
      expect(j.backends).toEqual(['js', 'js']);
      expect(Array.from(a.x)).toEqual(Array.from(j.x));
      let top = -1,
        lo = Infinity,
        hi = -Infinity;
      for (let i = 0; i < a.x.length; i += 3) {
        top = Math.max(top, a.x[i + 1]);
        lo = Math.min(lo, a.x[i]);
        hi = Math.max(hi, a.x[i]);
      }
      expect(top).toBeLessThan(0.1); // it fell onto the ground
      expect(hi - lo).toBeGreaterThan(0.75); // and spread out again from its half width
      expect(a.deferred).toBeGreaterThan(0); // squeezed triangles took the clamped-stress path
    }
  });

  it('a geometric soft body (edges and tet volumes) and a cloth with triangle area constraints, dropped: identical positions', () => {
    const run = (wasm: boolean) => {
      useWasmKernels(wasm);
      const w = new World({ dt: 1 / 60, substeps: 8, solver: 'xpbd', sweep: 'symmetric' });
      w.addCollider(new PlaneCollider({}, 'ground'));
      const b = new SoftBody(w, {
        mesh: tetBox({ size: [0.6, 0.3, 0.3], resolution: [8, 4, 4], origin: [-0.3, 0.4, -0.15] }),
        model: 'geometric',
        edges: { compliance: 1e-4 },
        volume: { compliance: 1e-6 },
      });
      const n = 21;
      const cloth = new Cloth(w, {
        mesh: gridMesh({ width: 1, height: 1, cols: n, rows: n, plane: 'xz', diagonals: 'uniform' }),
        density: 0.2,
        stretch: { compliance: 1e-5 },
      });
      for (let i = 0; i < cloth.count; i++) w.store.x[3 * (cloth.offset + i) + 1] = 1.2;
      const tris = cloth.contactTriangles();
      const area = new TriangleAreaConstraints(
        w.store,
        Array.from(tris, (k) => cloth.offset + k),
        {
          compliance: 1e-7,
        },
      );
      w.addConstraintSet(area);
      for (let s = 0; s < 60; s++) w.step();
      return { x: w.store.x.slice(), backends: [b.volume?.activeBackend, area.activeBackend] };
    };
    const a = run(true);
    const j = run(false);
    expect(a.backends).toEqual(['wasm', 'wasm']);
    expect(j.backends).toEqual(['js', 'js']);
    expect(Array.from(a.x)).toEqual(Array.from(j.x));
    let low = Infinity;
    for (let i = 1; i < a.x.length; i += 3) low = Math.min(low, a.x[i]);
    expect(low).toBeLessThan(0.1); // they fell: not a comparison of resting states
  });

  it('stretch-only and compress-only distance constraints (a chain): identical positions', () => {
    for (const mode of ['stretch', 'compress'] as const) {
      const run = (wasm: boolean) => {
        useWasmKernels(wasm);
        const w = new World({ dt: 1 / 60, substeps: 8 });
        const n = 40;
        const x: number[] = [];
        for (let i = 0; i < n; i++) x.push(0.05 * i, 1 + 0.02 * Math.sin(i), 0);
        const first = w.store.allocate(n, -1);
        w.store.x.set(x, 3 * first);
        w.store.p.set(x, 3 * first);
        for (let i = 1; i < n; i++) w.store.setMass(first + i, 0.1); // particle 0 stays fixed (w = 0)
        const pairs: number[] = [];
        for (let i = 0; i + 1 < n; i++) pairs.push(first + i, first + i + 1);
        // rest 0.045 (shorter than the 0.05+ spacing): stretch-only pulls together, compress-only pushes the sag apart
        const rest = new Array(n - 1).fill(0.045);
        const set = new DistanceConstraints(w.store, pairs, rest, { compliance: 1e-6 }, { mode });
        w.addConstraintSet(set);
        for (let s = 0; s < 60; s++) w.step();
        return { x: w.store.x.slice(0, 3 * n), backend: set.activeBackend };
      };
      const a = run(true);
      const j = run(false);
      expect(a.backend).toBe('wasm');
      expect(Array.from(a.x)).toEqual(Array.from(j.x));
    }
  });

  // every scene file whose constraints run on SIMD kernels: the same numbers with and without them
  const scenes = sceneFiles();
  it(`every scene with SIMD kernels runs to identical positions without them (${scenes.length} scene files)`, () => {
    const load = (f: string) => loadShippedScene(f);
    let compared = 0;
    for (const f of scenes) {
      useWasmKernels(true);
      const a = load(f);
      if (!a.world.constraintSummary().some((k) => k.wasm > 0)) continue;
      useWasmKernels(false);
      const j = load(f);
      for (let s = 0; s < 30; s++) {
        useWasmKernels(true);
        a.world.step();
        useWasmKernels(false);
        j.world.step();
      }
      expect(Array.from(a.world.store.x), f).toEqual(Array.from(j.world.store.x));
      compared++;
    }
    expect(compared).toBeGreaterThan(10);
  }, 900_000); // a hang guard: ~1 min on a quiet 2-core machine, 7 min under a load of 35
});
