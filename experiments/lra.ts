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
 * and the lowest point over 5 s.
 */
import { Cloth, gridMesh, World } from '../src/index.js';
import { lineChart, type Row, writeCsv, writeSvg } from './plot.js';

/** Mean and largest edge stretch (ratio − 1) of a cloth at x. */
export function edgeStretch(cloth: Cloth): { mean: number; max: number } {
  const x = cloth.world.store.x;
  const st = cloth.stretch;
  let sum = 0,
    max = -Infinity;
  for (let c = 0; c < st.count; c++) {
    const a = 3 * st.indices[2 * c],
      b = 3 * st.indices[2 * c + 1];
    const e = Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]) / st.rest[c] - 1;
    sum += e;
    if (e > max) max = e;
  }
  return { mean: sum / st.count, max };
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
  const x = cloth.positions();
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 1; i < x.length; i += 3) {
    lo = Math.min(lo, x[i]);
    hi = Math.max(hi, x[i]);
  }
  return { max: 100 * edgeStretch(cloth).max, sag: 100 * (hi - lo - 1) };
}

/** The cloth over `frames` frames: mean and largest edge stretch (%) and the lowest point (m). */
export function bungee(lra: boolean, frames = 300, n = 201): Row[] {
  const world = new World({ dt: 1 / 60, substeps: 5, iterations: 1, sweep: 'forward' });
  const cloth = new Cloth(world, {
    mesh: gridMesh({ width: 2, height: 2, cols: n, rows: n }),
    density: 0.2,
    stretch: { compliance: 0 },
    bend: { compliance: 0.05 },
    longRangeAttachments: lra ? {} : undefined,
  });
  cloth.pin(0);
  cloth.pin(n - 1);
  const rows: Row[] = [];
  const series = lra ? 'with LRA' : 'without LRA';
  for (let f = 1; f <= frames; f++) {
    world.step();
    if (f % 5 !== 0) continue;
    const s = edgeStretch(cloth);
    const x = cloth.positions();
    let lo = Infinity;
    for (let i = 1; i < x.length; i += 3) lo = Math.min(lo, x[i]);
    rows.push({ time: f / 60, series, meanStretch: 100 * s.mean, maxStretch: 100 * s.max, lowest: lo });
  }
  return rows;
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
  const time = [...bungee(false), ...bungee(true)];
  const plotRows = rows.map((r) => ({
    ...r,
    curve: `${r.series}: ${r.measure}`,
    value: Math.max(1e-3, r.value as number),
  }));
  const files = [
    writeCsv(outDir, 'lra-stretch-vs-iterations', rows),
    writeCsv(outDir, 'lra-bungee-201', time),
    await writeSvg(
      outDir,
      'lra-stretch-vs-iterations',
      lineChart(plotRows, {
        title: '100 × 100 cloth hung from its top row, 5 substeps, at rest',
        x: 'iterations',
        y: 'value',
        series: 'curve',
        xLog: true,
        yLog: true,
        xTitle: 'solver iterations per substep',
        yTitle: 'stretch (%), floor 0.001',
      }),
    ),
    await writeSvg(
      outDir,
      'lra-bungee-201',
      lineChart(
        time.map((r) => ({ ...r, value: r.meanStretch })),
        {
          title: '201 × 201 cloth, two corners pinned, 5 substeps × 1 iteration, forward sweep',
          x: 'time',
          y: 'value',
          series: 'series',
          points: false,
          xTitle: 'time (s)',
          yTitle: 'mean edge stretch (%)',
        },
      ),
    ),
  ];
  return { rows, bungee: time, files };
}
