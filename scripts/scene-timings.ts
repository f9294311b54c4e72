/**
 * Physics milliseconds per step of every shipped scene, on one thread, and
 * whether it keeps up with real time (ms per step ≤ dt): the table behind
 * the gallery's rule that every scene runs at ≥ 1× real time or is marked
 * `offline` in its file.
 *
 *   npx tsx scripts/scene-timings.ts [--seconds 5] [--only name,name] [--json file.json]
 *
 * Each scene runs for `--seconds` of simulated time (default 5, the span
 * the gallery's browser tests watch) after a warm-up of 20 steps; the
 * table gives the mean step time, the slowest one-second window (the
 * figure that decides real time: collisions and splashes come later than
 * the first frames) and the resulting multiple of real time. A scene that
 * spends more than `--budget` seconds of wall time (default 60) stops
 * early and says so. Timings are noisy on a shared machine: compare rows of
 * one run, and repeat on a quiet machine for figures to quote.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadScene } from '../src/index.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const k = args.indexOf(`--${name}`);
  return k >= 0 ? args[k + 1] : undefined;
};
const seconds = Number(opt('seconds') ?? 5);
const budget = Number(opt('budget') ?? 60);
const only = opt('only')?.split(',');
const jsonOut = opt('json');

const dir = new URL('../scenes/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .filter((f) => !only || only.includes(f.replace(/\.json$/, '')))
  .sort();

interface Row {
  scene: string;
  dt: number;
  steps: number;
  meanMs: number;
  worstSecondMs: number;
  realTime: number;
  offline: string | null;
  complete: boolean;
}

const rows: Row[] = [];
const pad = (s: string, n: number) => s.padEnd(n);
console.log(
  `${pad('scene', 34)} ${pad('dt ms', 6)} ${pad('mean ms', 8)} ${pad('worst 1 s', 9)} ${pad('× real time', 11)} note`,
);
for (const f of files) {
  const text = readFileSync(new URL(f, dir), 'utf8');
  const inst = loadScene(text, { file: f, readFile: (p) => readFileSync(new URL(p, dir), 'utf8') });
  const w = inst.world;
  for (let k = 0; k < 20; k++) w.step();
  const n = Math.ceil(seconds / w.dt - 1e-9);
  const perSecond = Math.max(1, Math.round(1 / w.dt));
  const ms: number[] = [];
  const t0 = performance.now();
  for (let k = 0; k < n; k++) {
    w.step();
    ms.push(w.stats.stepMs);
    if ((performance.now() - t0) / 1000 > budget) break;
  }
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  let worst = 0;
  for (let k = 0; k + perSecond <= ms.length || k === 0; k += Math.max(1, perSecond >> 2)) {
    const win = ms.slice(k, k + perSecond);
    worst = Math.max(worst, win.reduce((a, b) => a + b, 0) / win.length);
    if (k + perSecond >= ms.length) break;
  }
  const offline = (JSON.parse(text) as { offline?: string }).offline ?? null;
  const row: Row = {
    scene: f.replace(/\.json$/, ''),
    dt: w.dt,
    steps: ms.length,
    meanMs: mean,
    worstSecondMs: worst,
    realTime: (1000 * w.dt) / worst,
    offline,
    complete: ms.length === n,
  };
  rows.push(row);
  const note = [
    row.realTime < 1 ? (offline ? 'offline (marked)' : 'SLOWER THAN REAL TIME') : '',
    row.complete ? '' : `stopped after ${ms.length} steps`,
  ]
    .filter(Boolean)
    .join(', ');
  console.log(
    `${pad(row.scene, 34)} ${pad((1000 * w.dt).toFixed(2), 6)} ${pad(mean.toFixed(2), 8)} ${pad(worst.toFixed(2), 9)} ${pad(`${row.realTime.toFixed(2)}×`, 11)} ${note}`,
  );
}
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(rows, null, 2)}\n`);
