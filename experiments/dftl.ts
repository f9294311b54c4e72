/**
 * Follow-The-Leader and Dynamic FTL (000 §3.5, Figure 9; Müller, Kim and
 * Chentanez 2012) on a swinging strand: the length error each rule leaves
 * and the energy it gains or loses.
 *
 * A strand of 20 segments over 1 m, its root pinned, starts horizontal and
 * swings for 3 s (1/60 s frames, 10 substeps). FTL and DFTL keep every
 * segment at its rest length exactly (to rounding); distance constraints
 * at one iteration stretch. FTL feeds each correction to its particle alone
 * (each particle acts as if infinitely heavier than its successor): the tip
 * whips and the strand gains energy; DFTL's velocity correction
 * −s_damping d_{i+1}/Δt cancels that, at the price of damping. The
 * reference is XPBD distance constraints with 400 substeps.
 */
import { Strands, type StrandsOptions, World } from '../src/index.js';
import { type Row, writeCsv, writeLineChart } from './plot.js';

interface Rule {
  name: string;
  substeps: number;
  options: Partial<StrandsOptions>;
}

export const rules: Rule[] = [
  { name: 'FTL', substeps: 10, options: { ftl: { damping: 0 } } },
  { name: 'DFTL, s_damping 0.5', substeps: 10, options: { ftl: { damping: 0.5 } } },
  { name: 'DFTL, s_damping 0.9', substeps: 10, options: { ftl: { damping: 0.9 } } },
  { name: 'DFTL, s_damping 1', substeps: 10, options: { ftl: { damping: 1 } } },
  { name: 'XPBD distance, 1 iteration', substeps: 10, options: { ftl: false, stretch: { compliance: 0 } } },
  {
    name: 'reference: XPBD, 400 substeps',
    substeps: 400,
    options: { ftl: false, stretch: { compliance: 0 } },
  },
];

/** Energy change (over m g L) and largest segment stretch of one rule, every 5 frames for 3 s. */
export function swingingStrand(rule: Rule, segments = 20, frames = 180): Row[] {
  const world = new World({ dt: 1 / 60, substeps: rule.substeps });
  const n = segments + 1;
  const positions = new Float64Array(3 * n);
  for (let j = 0; j < n; j++) positions[3 * j] = j / segments;
  const s = new Strands(world, { positions, strandStart: [0, n], ...rule.options });
  const { x, mass } = world.store;
  let weight = 0;
  for (let j = 1; j < n; j++) weight += mass[s.offset + j] * 9.81;
  const energy = () => {
    let e = world.kineticEnergy();
    for (let j = 1; j < n; j++) e += mass[s.offset + j] * 9.81 * world.store.x[3 * (s.offset + j) + 1];
    return e;
  };
  const e0 = energy();
  const rows: Row[] = [];
  for (let f = 1; f <= frames; f++) {
    world.step();
    if (f % 5 !== 0) continue;
    rows.push({
      time: f / 60,
      rule: rule.name,
      energy: (energy() - e0) / weight,
      lengthError: Math.max(1e-16, s.maxStretch()),
      tipHeight: x[3 * (s.offset + n - 1) + 1],
    });
  }
  return rows;
}

export async function dftlExperiment(outDir: string): Promise<{ rows: Row[]; files: string[] }> {
  const rows = rules.flatMap((r) => swingingStrand(r));
  const files = [
    writeCsv(outDir, 'dftl-swinging-strand', rows),
    await writeLineChart(
      outDir,
      'dftl-energy',
      rows.map((r) => ({ ...r, value: Math.max(-1, Math.min(3, r.energy as number)) })),
      {
        title: 'A strand released horizontally: energy change over m g L (clipped to [−1, 3])',
        x: 'time',
        y: 'value',
        series: 'rule',
        points: false,
        xTitle: 'time (s)',
        yTitle: '(E − E0) / (m g L)',
      },
    ),
    await writeLineChart(outDir, 'dftl-length-error', rows, {
      title: 'Largest segment stretch |l / l0 − 1| (floor 1e-16)',
      x: 'time',
      y: 'lengthError',
      series: 'rule',
      points: false,
      yLog: true,
      xTitle: 'time (s)',
      yTitle: 'largest segment stretch',
    }),
  ];
  return { rows, files };
}
