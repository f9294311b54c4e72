/**
 * Physics milliseconds per step of every shipped scene on one thread, and
 * whether it keeps up with real time (ms per step ≤ dt): the table behind
 * the gallery's rule that every scene runs at ≥ 1× real time on one core or
 * is marked `offline` in its file (docs/gallery.md, "Real time").
 *
 *   npx tsx scripts/scene-timings.ts [--seconds 5] [--only name,name] [--json file.json] [--budget 120]
 *
 * Measured so that a loaded machine gives the figures of a quiet one:
 * - CPU time, not wall time: `process.cpuUsage()` around every step, so the
 *   time the thread waits for a core while others run does not count;
 * - scaled by a reference workload timed in the same process, interleaved
 *   with the scene: after each simulated second, 60 steps of the cloth-50
 *   benchmark (bench/cases/cloth.ts); a window's CPU ms per step times
 *   (cloth-50's quiet median in bench/results.json) / (its CPU ms per step
 *   measured next to that window) is the window's quiet-machine estimate,
 *   which corrects for what load does to CPU time itself (shared caches,
 *   memory bandwidth, clock);
 * - each scene runs `--seconds` of simulated time (default 5: the span the
 *   browser tests watch) after a warm-up of 20 steps, and the slowest
 *   one-second window decides (collisions and splashes come later than the
 *   first frames). A scene that has spent `--budget` seconds of CPU time
 *   stops early and says so.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cases } from '../bench/cases/cloth.js';
import { loadScene } from '../src/index.js';
import { scriptOption as opt, sceneFiles, sceneText } from './shipped-scenes.js';

const seconds = Number(opt('seconds') ?? 5);
const budget = Number(opt('budget') ?? 120);
const only = opt('only')?.split(',');
const jsonOut = opt('json');

const files = sceneFiles(only);

// the reference: cloth-50, and its median ms per step on a quiet machine (the committed bench results)
const reference = cases.find((c) => c.name === 'cloth-50')!;
const results = JSON.parse(readFileSync(new URL('../bench/results.json', import.meta.url), 'utf8')) as {
  results: { name: string; medianMs: number }[];
};
const quietRefMs = results.results.find((r) => r.name === 'cloth-50')!.medianMs;
const ref = reference.setup();
for (let k = 0; k < 200; k++) ref.step();
const REF_STEPS = 60;

/** CPU milliseconds (user + system) of this process since `since`. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/** CPU ms per step of the reference, measured now. */
function referenceMs(): number {
  const c0 = process.cpuUsage();
  for (let k = 0; k < REF_STEPS; k++) ref.step();
  return cpuMs(c0) / REF_STEPS;
}

interface Row {
  scene: string;
  dt: number;
  steps: number;
  /** Mean CPU ms per step, as measured here (load included). */
  cpuMs: number;
  /** Mean wall ms per step, as measured here. */
  wallMs: number;
  /** Quiet-machine estimates: the mean over all windows and the slowest one-second window. */
  meanMs: number;
  worstSecondMs: number;
  /** dt / worstSecondMs. */
  realTime: number;
  /** The reference's CPU ms per step here against its quiet figure (the load's slowdown of CPU time). */
  referenceRatio: number;
  offline: string | null;
  complete: boolean;
}

const rows: Row[] = [];
const pad = (s: string, n: number) => s.padEnd(n);
console.log(
  `reference: cloth-50, ${quietRefMs.toFixed(3)} ms per step on a quiet machine (bench/results.json)`,
);
console.log(
  `${pad('scene', 34)} ${pad('dt ms', 6)} ${pad('cpu ms', 8)} ${pad('wall ms', 8)} ${pad('ref ×', 6)} ${pad('quiet ms', 9)} ${pad('worst 1 s', 9)} ${pad('× real time', 11)} note`,
);
for (const f of files) {
  const text = sceneText(f);
  const inst = loadScene(text, { file: f, readFile: sceneText });
  const w = inst.world;
  for (let k = 0; k < 20; k++) w.step();
  const n = Math.ceil(seconds / w.dt - 1e-9);
  const perSecond = Math.max(1, Math.round(1 / w.dt));
  let steps = 0;
  let cpuTotal = 0;
  let wallTotal = 0;
  let scaledTotal = 0;
  let worst = 0;
  const ratios: number[] = [];
  while (steps < n && cpuTotal / 1000 < budget) {
    const m = Math.min(perSecond, n - steps);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let k = 0; k < m; k++) w.step();
    const windowCpu = cpuMs(c0);
    wallTotal += performance.now() - t0;
    cpuTotal += windowCpu;
    steps += m;
    const r = referenceMs() / quietRefMs;
    ratios.push(r);
    const scaled = windowCpu / m / r;
    scaledTotal += scaled * m;
    // a partial last window counts only when it is the only one
    if (m === perSecond || worst === 0) worst = Math.max(worst, scaled);
  }
  ratios.sort((a, b) => a - b);
  const offline = (JSON.parse(text) as { offline?: string }).offline ?? null;
  const row: Row = {
    scene: f.replace(/\.json$/, ''),
    dt: w.dt,
    steps,
    cpuMs: cpuTotal / steps,
    wallMs: wallTotal / steps,
    meanMs: scaledTotal / steps,
    worstSecondMs: worst,
    realTime: (1000 * w.dt) / worst,
    referenceRatio: ratios[ratios.length >> 1],
    offline,
    complete: steps === n,
  };
  rows.push(row);
  const note = [
    row.realTime < 1
      ? offline
        ? 'offline (marked)'
        : 'SLOWER THAN REAL TIME'
      : offline
        ? 'marked offline'
        : '',
    row.complete ? '' : `stopped after ${steps} steps`,
  ]
    .filter(Boolean)
    .join(', ');
  console.log(
    `${pad(row.scene, 34)} ${pad((1000 * w.dt).toFixed(2), 6)} ${pad(row.cpuMs.toFixed(2), 8)} ${pad(row.wallMs.toFixed(2), 8)} ${pad(row.referenceRatio.toFixed(2), 6)} ${pad(row.meanMs.toFixed(2), 9)} ${pad(worst.toFixed(2), 9)} ${pad(`${row.realTime.toFixed(2)}×`, 11)} ${note}`,
  );
}
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(rows, null, 2)}\n`);
