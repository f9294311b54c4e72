/**
 * The hierarchical solver's gain (Müller 2008, "Hierarchical Position Based
 * Dynamics"; seed 004, "Hierarchical Solver"): a cloth hung from its top
 * edge, inextensible (stretch compliance 0, no bending), starts stretched to
 * 110 % of its length along the hanging direction and at rest, as after a
 * bungee-like drop; one step of 1/60 s brings it back. The mean edge stretch
 * Σ max(0, d − d₀) / d₀ / edges after the step (and the mean error
 * Σ |d − d₀| / d₀ / edges, compression included), against the work spent:
 *
 * - `gauss-seidel`: one substep, n iterations of the symmetric sweep;
 * - `gs-substeps`: n substeps of one iteration (the usual remedy);
 * - `jacobi`: one substep, n Jacobi iterations with averaging (ω = 1);
 * - `hierarchical`: one substep, n iterations, each a V-cycle over the
 *   coarse levels before the symmetric sweep (ClothOptions.hierarchy).
 *
 * Gauss–Seidel is a smoother: it removes the short-wavelength error fast and
 * the long-wavelength error (the whole sheet too long) in a number of
 * iterations that grows with the square of the grid size. The coarse levels
 * move that error across the sheet in one V-cycle. Their constraints resist
 * only stretch (HPBD: so that the cloth may fold at every scale); in this
 * flat sheet, which cannot buckle, what they over-shorten across the sheet
 * is left to the fine level as compression, which is why the mean error
 * falls more slowly than the mean stretch.
 */
import { Cloth, gridMesh, World } from '../src/index.js';
import { type Row, writeCsv, writeLineChart } from './plot.js';

export type HangingSolver = 'gauss-seidel' | 'gs-substeps' | 'jacobi' | 'hierarchical';
export const HANGING_SOLVERS: HangingSolver[] = ['gauss-seidel', 'gs-substeps', 'jacobi', 'hierarchical'];

/** The hanging cloth: n × n vertices over 2 m × 2 m, 0.1 kg/m², the top row pinned. */
export interface HangingCloth {
  world: World;
  cloth: Cloth;
  /** Back to the stretched start at rest. */
  reset(): void;
  /** One step of 1/60 s with `n` iterations (or substeps, for 'gs-substeps'); returns its wall time (ms). */
  solve(n: number): number;
  /** Mean relative edge error Σ |d − d₀| / d₀ over the edges (stretch and compression). */
  error(): number;
  /** Mean edge stretch Σ max(0, d − d₀) / d₀ over the edges (elongation only). */
  stretch(): number;
}

export type HangingMeasure = 'error' | 'stretch';

export function hangingCloth(size: number, solver: HangingSolver, stretch = 1.1): HangingCloth {
  const world = new World({
    dt: 1 / 60,
    substeps: 1,
    iterations: 1,
    solve: solver === 'jacobi' ? 'jacobi' : 'gauss-seidel',
  });
  const cloth = new Cloth(world, {
    mesh: gridMesh({ width: 2, height: 2, cols: size, rows: size, plane: 'xy' }),
    density: 0.1,
    stretch: { compliance: 0 },
    bend: false,
    hierarchy: solver === 'hierarchical',
  });
  for (let c = 0; c < size; c++) cloth.pin(c);
  const store = world.store;
  const n = size * size;
  const off = cloth.offset;
  const start = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    start[3 * i] = store.x[3 * (off + i)];
    start[3 * i + 1] = 1 + (store.x[3 * (off + i) + 1] - 1) * stretch; // the top row (y = 1) stays
    start[3 * i + 2] = store.x[3 * (off + i) + 2];
  }
  const set = cloth.stretch;
  return {
    world,
    cloth,
    reset() {
      store.x.set(start, 3 * off);
      store.p.set(start, 3 * off);
      store.v.fill(0, 3 * off, 3 * (off + n));
      world.time = 0;
    },
    solve(count: number) {
      world.configure(solver === 'gs-substeps' ? { substeps: count } : { iterations: count });
      const t0 = performance.now();
      world.step();
      return performance.now() - t0;
    },
    error: () => edgeError(store.x, set.indices, set.rest, false),
    stretch: () => edgeError(store.x, set.indices, set.rest, true),
  };
}

function edgeError(x: Float64Array, idx: Int32Array, rest: Float64Array, stretchOnly: boolean): number {
  let e = 0;
  for (let c = 0; c < rest.length; c++) {
    const a = 3 * idx[2 * c];
    const b = 3 * idx[2 * c + 1];
    const r = (Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]) - rest[c]) / rest[c];
    e += stretchOnly ? Math.max(0, r) : Math.abs(r);
  }
  return e / rest.length;
}

/** Stretch, error and time after one step at each count. */
export function convergence(
  c: HangingCloth,
  counts: readonly number[],
): { n: number; stretch: number; error: number; ms: number }[] {
  return counts.map((n) => {
    c.reset();
    const ms = c.solve(n);
    return { n, stretch: c.stretch(), error: c.error(), ms };
  });
}

/**
 * The fewest iterations (substeps for 'gs-substeps') whose step leaves the
 * measure (mean edge error or mean stretch) ≤ target, by doubling then
 * bisection, up to `max`; null when `max` does not reach it.
 */
export function iterationsToReach(
  c: HangingCloth,
  target: number,
  max: number,
  measure: HangingMeasure = 'error',
): { n: number; error: number; ms: number } | null {
  const at = (n: number) => {
    c.reset();
    const ms = c.solve(n);
    return { n, error: measure === 'stretch' ? c.stretch() : c.error(), ms };
  };
  let lo = 0;
  let hi = 1;
  let best = at(1);
  while (best.error > target) {
    if (hi >= max) return null;
    lo = hi;
    hi = Math.min(max, 2 * hi);
    best = at(hi);
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const r = at(mid);
    if (r.error <= target) {
      hi = mid;
      best = r;
    } else lo = mid;
  }
  return best;
}

/** What `pbdkit experiment hpbd` writes: error vs iterations and vs time, and the table to reach 1 %. */
export async function hpbdExperiment(
  outDir: string,
  size = 201,
  max = 1024,
): Promise<{ curves: Row[]; table: Row[]; files: string[] }> {
  const counts: number[] = [];
  for (let n = 1; n <= max; n *= 2) counts.push(n);
  const curves: Row[] = [];
  const table: Row[] = [];
  for (const solver of HANGING_SOLVERS) {
    const c = hangingCloth(size, solver);
    c.reset();
    c.solve(1); // warm up the kernels
    for (const r of convergence(c, counts))
      curves.push({
        series: solver,
        iterations: r.n,
        stretchPercent: 100 * r.stretch,
        errorPercent: 100 * r.error,
        ms: r.ms,
      });
    const hit = iterationsToReach(c, 0.01, max, 'stretch');
    const last = curves[curves.length - 1];
    table.push({
      solver,
      reached: hit ? 1 : 0,
      iterations: hit ? hit.n : `> ${max}`,
      ms: hit ? hit.ms : `> ${(last.ms as number).toFixed(1)}`,
      stretchPercent: hit ? 100 * hit.error : (last.stretchPercent as number),
      errorPercent: hit ? 100 * c.error() : (last.errorPercent as number),
      levels: solver === 'hierarchical' ? (c.cloth.hierarchy?.levelSizes.join(' / ') ?? '') : '',
    });
    c.world.dispose();
  }
  const what = `${size}×${size} cloth hung from its top edge, started at 110 % length`;
  const files = [
    writeCsv(outDir, 'hpbd-convergence', curves),
    writeCsv(outDir, 'hpbd-table', table),
    await writeLineChart(outDir, 'hpbd-vs-iterations', curves, {
      title: `${what}: mean edge stretch after one step of 1/60 s`,
      x: 'iterations',
      y: 'stretchPercent',
      series: 'series',
      xTitle: 'iterations (substeps for gs-substeps)',
      yTitle: 'mean max(0, d − d₀) / d₀ (%)',
      xLog: true,
      yLog: true,
    }),
    await writeLineChart(outDir, 'hpbd-error-vs-iterations', curves, {
      title: `${what}: mean edge error (stretch and compression) after one step`,
      x: 'iterations',
      y: 'errorPercent',
      series: 'series',
      xTitle: 'iterations (substeps for gs-substeps)',
      yTitle: 'mean |d − d₀| / d₀ (%)',
      xLog: true,
      yLog: true,
    }),
    await writeLineChart(outDir, 'hpbd-vs-time', curves, {
      title: `${what}: mean edge stretch against the step's wall time`,
      x: 'ms',
      y: 'stretchPercent',
      series: 'series',
      xTitle: 'wall time of the step (ms)',
      yTitle: 'mean max(0, d − d₀) / d₀ (%)',
      xLog: true,
      yLog: true,
    }),
  ];
  return { curves, table, files };
}
