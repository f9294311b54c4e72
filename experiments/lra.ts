/**
 * Long Range Attachments (000 §3.5, Figure 7; Kim, Chentanez and Müller
 * 2012): how far a hanging cloth stretches against the solver iterations,
 * with and without LRA, and the bungee test over time.
 *
 * (1) A 100 × 100 cloth (1 m, 0.2 kg/m²) hangs from its top row, XPBD with
 * stretch compliance 0, 5 substeps; after 1.5 s (damped at 1/s) we measure
 * the largest edge stretch and the sag (vertical extent over the rest
 * height, minus 1), for 1 … 32 iterations. Local Gauss–Seidel carries the
 * weight of the rows below one edge per iteration, so without LRA the
 * stretch falls only slowly with the iterations; the tethers bound it from
 * the first.
 *
 * (2) The set-up: a 201 × 201 cloth (2 m, 0.2 kg/m²) starts
 * horizontal with two corners pinned, XPBD compliance 0, 5 substeps × 1
 * iteration, forward sweep, no damping: the mean and largest edge stretch
 * and the lowest point over 5 s, without LRA, with LRA, and with LRA and the
 * hierarchical solver (HPBD, docs/solver.md), which carries the stretch
 * across the sheet in one V-cycle where the tethers leave it to one edge per
 * Gauss–Seidel iteration.
 */
import { Cloth, gridMesh, World } from '../src/index.js';
import { type Row, timeAxis, writeFigures } from './plot.js';

/**
 * Edge stretch (ratio − 1) of a cloth at x: the mean, the mean of its absolute
 * value (compression counts too), the largest, and the fraction of edges
 * stretched by more than 1 %.
 */
export function edgeStretch(cloth: Cloth): { mean: number; meanAbs: number; max: number; over1: number } {
  const x = cloth.world.store.x;
  const st = cloth.stretch;
  let sum = 0,
    abs = 0,
    over = 0,
    max = -Infinity;
  for (let c = 0; c < st.count; c++) {
    const a = 3 * st.indices[2 * c],
      b = 3 * st.indices[2 * c + 1];
    const e = Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]) / st.rest[c] - 1;
    sum += e;
    abs += Math.abs(e);
    if (e > 0.01) over++;
    if (e > max) max = e;
  }
  return { mean: sum / st.count, meanAbs: abs / st.count, max, over1: over / st.count };
}

/** The hanging 100 × 100 cloth after 1.5 s: largest edge stretch and sag (%). */
export function hangingStretch(iterations: number, lra: boolean, n = 100): { max: number; sag: number } {
  const world = new World({ dt: 1 / 60, substeps: 5, iterations, damping: 1 });
  const cloth = new Cloth(world, {
    mesh: gridMesh({ width: 1, height: 1, cols: n, rows: n, plane: 'xy' }),
    density: 0.2,
    stretch: { compliance: 0 },
    bend: { compliance: 0.05 },
    // each vertex tethered to its 4 nearest pins (as good as all 100 here: test/strain-limiting.test.ts)
    longRangeAttachments: lra ? { maxPerParticle: 4 } : undefined,
  });
  for (let c = 0; c < n; c++) cloth.pin(c);
  for (let f = 0; f < 90; f++) world.step();
  return { max: 100 * edgeStretch(cloth).max, sag: 100 * clothSag(cloth) };
}

/** Vertical extent of a cloth 1 m high at rest, over its rest height, minus 1 (m). */
export function clothSag(cloth: Cloth): number {
  const x = cloth.positions();
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 1; i < x.length; i += 3) {
    lo = Math.min(lo, x[i]);
    hi = Math.max(hi, x[i]);
  }
  return hi - lo - 1;
}

/** What holds the cloth together: nothing but its stretch constraints, LRA, or LRA and the hierarchical solver. */
export type BungeeVariant = 'none' | 'lra' | 'lra+hierarchy';

const BUNGEE_SERIES: Record<BungeeVariant, string> = {
  none: 'without LRA',
  lra: 'with LRA',
  'lra+hierarchy': 'with LRA and the hierarchical solver',
};

/**
 * The cloth over `frames` frames, every fifth frame: mean edge
 * stretch, mean |edge error| (compression included), largest edge stretch,
 * share of edges stretched by more than 1 % (all in %) and the lowest point (m).
 */
export function bungee(variant: BungeeVariant, frames = 300, n = 201): Row[] {
  const world = new World({ dt: 1 / 60, substeps: 5, iterations: 1, sweep: 'forward' });
  const cloth = new Cloth(world, {
    mesh: gridMesh({ width: 2, height: 2, cols: n, rows: n }),
    density: 0.2,
    stretch: { compliance: 0 },
    bend: { compliance: 0.05 },
    longRangeAttachments: variant === 'none' ? undefined : {},
    hierarchy: variant === 'lra+hierarchy',
  });
  cloth.pin(0);
  cloth.pin(n - 1);
  const rows: Row[] = [];
  const series = BUNGEE_SERIES[variant];
  for (let f = 1; f <= frames; f++) {
    world.step();
    if (f % 5 !== 0) continue;
    const s = edgeStretch(cloth);
    const x = cloth.positions();
    let lo = Infinity;
    for (let i = 1; i < x.length; i += 3) lo = Math.min(lo, x[i]);
    rows.push({
      time: f / 60,
      series,
      meanStretch: 100 * s.mean,
      meanError: 100 * s.meanAbs,
      maxStretch: 100 * s.max,
      over1: 100 * s.over1,
      lowest: lo,
    });
  }
  return rows;
}

/** Averages of a bungee run's rows up to `until` s (the figure: the first 3 s), and the worst frame's. */
export function bungeeSummary(rows: Row[], until = 3): Record<string, number> {
  const r = rows.filter((row) => (row.time as number) <= until + 1e-9);
  const avg = (k: string) => r.reduce((a, row) => a + (row[k] as number), 0) / r.length;
  const worst = (k: string) => Math.max(...r.map((row) => row[k] as number));
  return {
    meanStretch: avg('meanStretch'),
    worstMeanStretch: worst('meanStretch'),
    meanError: avg('meanError'),
    maxStretch: worst('maxStretch'),
    over1: avg('over1'),
    lowest: Math.min(...r.map((row) => row.lowest as number)),
  };
}

/** The bungee part of the experiment: the three variants over 5 s, their CSV and the plot of the mean stretch. */
export async function bungeeFiles(outDir: string): Promise<{ rows: Row[]; files: string[] }> {
  const time = [...bungee('none'), ...bungee('lra'), ...bungee('lra+hierarchy')];
  const files = await writeFigures(outDir, [
    {
      name: 'lra-bungee-201',
      rows: time,
      plotted: time.map((r) => ({ ...r, value: r.meanStretch })),
      chart: {
        title: '201 × 201 cloth, two corners pinned, 5 substeps × 1 iteration, forward sweep',
        ...timeAxis,
        y: 'value',
        series: 'series',
        yTitle: 'mean edge stretch (%)',
      },
    },
  ]);
  return { rows: time, files };
}

export async function lraExperiment(
  outDir: string,
): Promise<{ rows: Row[]; bungee: Row[]; files: string[] }> {
  const rows: Row[] = [];
  for (const it of [1, 2, 4, 8, 16, 32]) {
    for (const lra of [true, false]) {
      const r = hangingStretch(it, lra);
      const series = lra ? 'with LRA' : 'without LRA';
      rows.push({ iterations: it, series, measure: 'largest edge stretch', value: r.max });
      rows.push({ iterations: it, series, measure: 'sag', value: r.sag });
    }
  }
  const plotRows = rows.map((r) => ({
    ...r,
    curve: `${r.series}: ${r.measure}`,
    value: Math.max(1e-3, r.value as number),
  }));
  const bungeePart = await bungeeFiles(outDir);
  const time = bungeePart.rows;
  const files = [
    ...(await writeFigures(outDir, [
      {
        name: 'lra-stretch-vs-iterations',
        rows,
        plotted: plotRows,
        chart: {
          title: '100 × 100 cloth hung from its top row, 5 substeps, at rest',
          x: 'iterations',
          y: 'value',
          series: 'curve',
          xLog: true,
          yLog: true,
          xTitle: 'solver iterations per substep',
          yTitle: 'stretch (%), floor 0.001',
        },
      },
    ])),
    ...bungeePart.files,
  ];
  return { rows, bungee: time, files };
}
