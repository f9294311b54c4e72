import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { compileKernel, generatedPath, generatedSource, KERNELS } from '../scripts/build-wasm.js';
import {
  bunnyMesh,
  PlaneCollider,
  SoftBody,
  type SolverKind,
  type SweepKind,
  tetBox,
  tetrahedralize,
  useWasmKernels,
  World,
} from '../src/index.js';

afterEach(() => useWasmKernels(true));

describe('WebAssembly kernels', () => {
  for (const name of KERNELS) {
    it(`src/wasm/${name}.generated.ts is compiled from wasm/${name}.ts (run npm run wasm if not)`, async () => {
      const bytes = await compileKernel(name);
      expect(readFileSync(generatedPath(name), 'utf8')).toBe(generatedSource(name, bytes));
    }, 60_000);
  }

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
});
