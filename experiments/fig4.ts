/**
 * 002 Figure 4: total elastic energy over the iterations of one simulation
 * step of the elastoplastic-model-under-a-sphere scene (Figure 9), for the
 * position-based solver (the non-linear Gauss–Seidel projection of §3.2,
 * C = E per tet) and for a global Newton–Raphson solve of the same
 * constraints, which linearises all of them at the start of each iteration
 * and solves the n × n system (J M⁻¹ Jᵀ) λ = −C (here in the least-squares
 * sense by CGLS: n tets exceed the 3N degrees of freedom, 004 "Solver"),
 * with a backtracking line search on ‖C‖² (the undamped step overshoots).
 */
import { readFileSync } from 'node:fs';
import { loadScene, tetBox, World } from '../src/index.js';
import { SoftBody } from '../src/softbody/soft-body.js';
import { type Row, writeCsv, writeLineChart } from './plot.js';

export interface Fig4Result {
  rows: Row[];
  initialEnergy: number;
  files: string[];
}

export async function fig4(outDir: string, sceneDir: URL, iterations = 20): Promise<Fig4Result> {
  // case 1: one step of the elastoplastic model under the sphere (the scene of Figure 9)
  const file = 'continuum-plastic-sphere.json';
  const inst = loadScene(readFileSync(new URL(file, sceneDir), 'utf8'), { file });
  const world = inst.world;
  const body = inst.bodies.find((b) => b instanceof SoftBody) as SoftBody;
  // run until the sphere presses the model, then take one step of dt = 5 ms (002 §6)
  while (world.time < 1.2) world.step();
  const h = 0.005;
  const store = world.store;
  const predicted = new Float64Array(3 * store.count);
  for (let i = 0; i < store.count; i++) {
    for (let k = 0; k < 3; k++) {
      const v = store.invMass[i] > 0 ? store.v[3 * i + k] + h * world.gravity[k] : 0;
      predicted[3 * i + k] = store.x[3 * i + k] + h * v;
    }
  }
  const a = compare(world, body, predicted, h, iterations, 'bunny under the sphere (Figure 9 scene)');
  // case 2: a plate with fewer constraints than unknowns (like the paper's dragon: 7,278 tets,
  // 2,603 vertices), predicted into a strong twist
  const w2 = new World({ gravity: [0, 0, 0] });
  const plate = new SoftBody(w2, {
    mesh: tetBox({ size: [1, 0.1, 1], resolution: [15, 2, 15], origin: [-0.5, 0, -0.5] }),
    material: { youngsModulus: 1e5, poissonRatio: 0.3 },
  });
  const twisted = new Float64Array(3 * w2.store.count);
  for (let i = 0; i < plate.count; i++) {
    const X = plate.restPositions[3 * i],
      Y = plate.restPositions[3 * i + 1],
      Z = plate.restPositions[3 * i + 2];
    twisted[3 * i] = X;
    twisted[3 * i + 1] = Y + 0.3 * X * Z;
    twisted[3 * i + 2] = Z;
  }
  const b = compare(w2, plate, twisted, h, iterations, 'twisted plate (fewer constraints than unknowns)');
  const rows = [...a.rows, ...b.rows];
  const files = [
    writeCsv(outDir, 'fig4-energy-per-iteration', rows),
    writeCsv(outDir, 'fig4-timing', [...a.timing, ...b.timing]),
  ];
  for (const [name, r] of [
    ['fig4-energy-per-iteration', a],
    ['fig4-energy-per-iteration-plate', b],
  ] as const) {
    files.push(
      await writeLineChart(outDir, name, r.rows, {
        title: `002 Figure 4: elastic energy within one step — ${r.rows[0].case}`,
        x: 'iteration',
        y: 'energy',
        series: 'solver',
        xTitle: 'solver iteration within one step of 5 ms',
        yTitle: 'total elastic energy (J)',
        yLog: true,
      }),
    );
  }
  return { rows, initialEnergy: a.rows[0].energy as number, files };
}

/** Runs both solvers on the FEM constraints of `body` from the same predicted positions. */
function compare(
  world: World,
  body: SoftBody,
  predicted: Float64Array,
  h: number,
  iterations: number,
  label: string,
): { rows: Row[]; timing: Row[] } {
  const fem = body.fem;
  if (!fem) throw new Error('no FEM constraints');
  const store = world.store;
  const n3 = 3 * store.count;
  world.configure({ solver: 'pbd' });
  const ctx = world.makeContext(h);
  ctx.solver = 'pbd';
  ctx.iterations = 1;
  fem.beginStep(ctx);

  // position-based solver: one Gauss–Seidel sweep per iteration
  const pbd = predicted.slice();
  const pbdEnergy = [fem.energy(pbd)];
  const savedP = store.p;
  store.p = pbd;
  const t0 = performance.now();
  for (let it = 0; it < iterations; it++) {
    fem.project(ctx);
    pbdEnergy.push(fem.energy(pbd));
  }
  const pbdMs = (performance.now() - t0) / iterations;
  store.p = savedP;

  // global Newton–Raphson on the same constraints
  const nr = predicted.slice();
  const nrEnergy = [fem.energy(nr)];
  const n = fem.count;
  const grads = new Float64Array(12 * n);
  const C = new Float64Array(n);
  const sw = new Float64Array(store.count);
  for (let i = 0; i < store.count; i++) sw[i] = Math.sqrt(store.invMass[i]);
  const idx = fem.indices;
  const g = new Float64Array(12);
  const t1 = performance.now();
  for (let it = 0; it < iterations; it++) {
    for (let j = 0; j < n; j++) {
      C[j] = fem.elementEnergy(nr, j, g);
      grads.set(g, 12 * j);
    }
    const y = cgls(n, n3, idx, grads, sw, C, 400);
    // globalised: backtrack on the merit function ‖C‖² that Newton–Raphson minimises
    // (the full step overshoots: the energies are piecewise and strongly non-linear)
    let merit0 = 0;
    for (let j = 0; j < n; j++) merit0 += C[j] * C[j];
    const base = nr.slice();
    let step = 1;
    for (let ls = 0; ls < 30; ls++) {
      for (let i = 0; i < store.count; i++)
        for (let k = 0; k < 3; k++) nr[3 * i + k] = base[3 * i + k] + step * sw[i] * y[3 * i + k];
      let merit = 0;
      for (let j = 0; j < n; j++) {
        const e = fem.elementEnergy(nr, j, g);
        merit += e * e;
      }
      if (merit < merit0) break;
      step *= 0.5;
    }
    nrEnergy.push(fem.energy(nr));
  }
  const nrMs = (performance.now() - t1) / iterations;
  const rows: Row[] = [];
  for (let it = 0; it <= iterations; it++) {
    rows.push({ case: label, iteration: it, solver: 'position-based (Gauss–Seidel)', energy: pbdEnergy[it] });
    rows.push({ case: label, iteration: it, solver: 'Newton–Raphson (global)', energy: nrEnergy[it] });
  }
  const unknowns = 3 * (body.count - countPinned(store.invMass, body.offset, body.count));
  return {
    rows,
    timing: [
      { case: label, solver: 'position-based', msPerIteration: pbdMs, constraints: n, unknowns },
      { case: label, solver: 'newton-raphson', msPerIteration: nrMs, constraints: n, unknowns },
    ],
  };
}

function countPinned(w: Float64Array, offset: number, count: number): number {
  let c = 0;
  for (let i = offset; i < offset + count; i++) if (w[i] === 0) c++;
  return c;
}

/**
 * CGLS: the minimum-norm least-squares solution y of A y = −C with
 * A = J W^{1/2} (rows: constraint gradients scaled by √w per particle), so
 * that Δx = W^{1/2} y = W Jᵀ λ is the Gauss–Newton / pseudo-inverse step.
 */
function cgls(
  n: number,
  n3: number,
  idx: Int32Array,
  grads: Float64Array,
  sw: Float64Array,
  C: Float64Array,
  maxIter: number,
): Float64Array {
  const apply = (y: Float64Array, out: Float64Array) => {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let a = 0; a < 4; a++) {
        const i = idx[4 * j + a];
        const w = sw[i];
        s +=
          w *
          (grads[12 * j + 3 * a] * y[3 * i] +
            grads[12 * j + 3 * a + 1] * y[3 * i + 1] +
            grads[12 * j + 3 * a + 2] * y[3 * i + 2]);
      }
      out[j] = s;
    }
  };
  const applyT = (r: Float64Array, out: Float64Array) => {
    out.fill(0);
    for (let j = 0; j < n; j++) {
      for (let a = 0; a < 4; a++) {
        const i = idx[4 * j + a];
        const f = sw[i] * r[j];
        out[3 * i] += f * grads[12 * j + 3 * a];
        out[3 * i + 1] += f * grads[12 * j + 3 * a + 1];
        out[3 * i + 2] += f * grads[12 * j + 3 * a + 2];
      }
    }
  };
  const y = new Float64Array(n3);
  const r = new Float64Array(n);
  for (let j = 0; j < n; j++) r[j] = -C[j];
  const s = new Float64Array(n3);
  applyT(r, s);
  const p = s.slice();
  const q = new Float64Array(n);
  let gamma = dot(s, s);
  const gamma0 = gamma;
  for (let k = 0; k < maxIter && gamma > 1e-24 * gamma0; k++) {
    apply(p, q);
    const qq = dot(q, q);
    if (!(qq > 0)) break;
    const alpha = gamma / qq;
    for (let i = 0; i < n3; i++) y[i] += alpha * p[i];
    for (let j = 0; j < n; j++) r[j] -= alpha * q[j];
    applyT(r, s);
    const gNew = dot(s, s);
    const beta = gNew / gamma;
    gamma = gNew;
    for (let i = 0; i < n3; i++) p[i] = s[i] + beta * p[i];
  }
  return y;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
