/**
 * The experiments of seed 002 that pbdkit reproduces, and measurements of
 * the solver's own promises (xpbd-chain) and of the strain-limiting and
 * strand methods (lra, dftl, rod-cantilever), each writing CSV
 * files and SVG plots: `runExperiment(name, outDir)`, `npm run experiment
 * -- <name> [outDir]`, and `pbdkit experiment <name>`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PbdError } from '../src/core/errors.js';
import { didYouMean } from '../src/node/suggest.js';
import { bdf2Experiment } from './bdf2.js';
import { dftlExperiment } from './dftl.js';
import { fig4 } from './fig4.js';
import { fig5 } from './fig5.js';
import { fig6 } from './fig6.js';
import { fig7 } from './fig7.js';
import { hpbdExperiment } from './hpbd.js';
import { lraExperiment } from './lra.js';
import { pbfDensity } from './pbf-density.js';
import type { Row } from './plot.js';
import { rigidTumbling } from './rigid-tumbling.js';
import { rodCantileverExperiment } from './rod-cantilever.js';
import { xpbdChain } from './xpbd-chain.js';

export interface ExperimentInfo {
  name: string;
  title: string;
  run(outDir: string): Promise<{ files: string[]; summary: string }>;
}

/** The scenes folder (from lib/experiments or experiments/). */
export function scenesDir(): URL {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 4; k++) {
    if (existsSync(join(dir, 'scenes', 'continuum-plastic-sphere.json')))
      return pathToFileURL(`${join(dir, 'scenes')}/`);
    dir = dirname(dir);
  }
  throw new Error('cannot find the scenes folder');
}

export const experiments: ExperimentInfo[] = [
  {
    name: 'fig4',
    title:
      '002 Figure 4: elastic energy per iteration in one step, position-based solver vs global Newton–Raphson',
    async run(outDir) {
      const r = await fig4(outDir, scenesDir());
      return { files: r.files, summary: fig4Summary(r.rows) };
    },
  },
  {
    name: 'fig5',
    title: "002 Figure 5: strain of a beam under 100 N vs iterations and vs Young's modulus",
    async run(outDir) {
      const r = await fig5(outDir);
      const at5 = r.left
        .filter((x) => x.iterations === 5)
        .map((x) => `${x.solver} ${(x.strain as number).toFixed(3)} %`);
      return { files: r.files, summary: `k = 1e5 Pa, 5 iterations: ${at5.join(', ')}` };
    },
  },
  {
    name: 'fig6',
    title:
      '002 Figure 6: tet meshes recover from flattened, mirrored and scrambled starts (shape error over time)',
    async run(outDir) {
      const r = await fig6(outDir);
      const ok = r.finals.filter((x) => x.recovered === 1).length;
      const worst = r.finals.reduce((m, x) => Math.max(m, x.rms as number), 0);
      const seeds = r.seeds
        .map((x) => `${x.body} ${x.model} σc = ${(x.clamp as number).toFixed(3)}: ${x.recovered}/${x.seeds}`)
        .join(', ');
      return {
        files: r.files,
        summary: `${ok}/${r.finals.length} starts recovered after 5 s (largest RMS shape error ${(100 * worst).toFixed(3)} %)\nscrambled, over seeds: ${seeds}`,
      };
    },
  },
  {
    name: 'fig7',
    title: '002 Figure 7: lateral contraction of stretched cloth vs a converged static solve',
    async run(outDir) {
      const r = await fig7(outDir);
      const lines = r.rows.map(
        (x) =>
          `ν = ${x.nu}, ${x.method}: max ${(x.maxDistance as number).toExponential(2)} m, mean ${(x.meanDistance as number).toExponential(2)} m`,
      );
      return { files: r.files, summary: lines.join('\n') };
    },
  },
  {
    name: 'xpbd-chain',
    title: 'XPBD hanging chain: stretch error against the iteration count and the substeps (docs/solver.md)',
    async run(outDir) {
      const r = await xpbdChain(outDir);
      const at = (n: number) =>
        r.substeps
          .filter((x) => x.substeps === n)
          .map((x) => `${x.series}: ${(100 * (x.error as number)).toFixed(3)} %`)
          .join(', ');
      return {
        files: r.files,
        summary: `1 iteration, 10 substeps: ${at(10)}\n1 iteration, 1 substep: ${at(1)}`,
      };
    },
  },
  {
    name: 'hpbd',
    title:
      'Hierarchical PBD (Müller 2008): a 201 × 201 hanging cloth, edge error vs iterations and vs time, Gauss–Seidel, substeps, Jacobi, hierarchical',
    async run(outDir) {
      const r = await hpbdExperiment(outDir);
      const lines = r.table.map(
        (x) =>
          `${x.solver}: ${x.iterations} iterations, ${typeof x.ms === 'number' ? x.ms.toFixed(1) : x.ms} ms, ${(x.stretchPercent as number).toFixed(3)} % stretch, ${(x.errorPercent as number).toFixed(3)} % |error|`,
      );
      return { files: r.files, summary: `to reach 1 % mean edge stretch in one step:\n${lines.join('\n')}` };
    },
  },
  {
    name: 'bdf2',
    title:
      'BDF2 vs implicit Euler (seed 004): energy over time of a pendulum (100 periods), a three-link chain and a vibrating StVK bar',
    async run(outDir) {
      const r = await bdf2Experiment(outDir);
      const lines = r.finals.map(
        (x) =>
          `${x.system}, ${x.integrator}: ${(x.energyChangePercent as number).toFixed(3)} % after ${x.seconds} s`,
      );
      return { files: r.files, summary: `energy change (% of the swing energy):\n${lines.join('\n')}` };
    },
  },
  {
    name: 'lra',
    title:
      'Long Range Attachments (000 §3.5): stretch of a hanging cloth against the iterations, with and without; the 201 × 201 bungee over time, also with the hierarchical solver',
    async run(outDir) {
      const r = await lraExperiment(outDir);
      const at1 = r.rows
        .filter((x) => x.iterations === 1)
        .map((x) => `${x.series}, ${x.measure}: ${(x.value as number).toFixed(2)} %`);
      const late = (series: string) => {
        const s = r.bungee.filter((x) => x.series === series && (x.time as number) > 3);
        const mean = s.reduce((a, x) => a + (x.meanStretch as number), 0) / s.length;
        const lowest = Math.min(...s.map((x) => x.lowest as number));
        return `${series}: mean edge stretch ${mean.toFixed(2)} % (3–5 s), lowest point ${lowest.toFixed(2)} m`;
      };
      return {
        files: r.files,
        summary: `100 × 100, 1 iteration: ${at1.join(', ')}\n201 × 201 bungee: ${late('without LRA')}; ${late('with LRA')}; ${late('with LRA and the hierarchical solver')}`,
      };
    },
  },
  {
    name: 'rigid-tumbling',
    title: 'Rigid bodies (Müller et al. 2020 §3): a torque-free tumbling box keeps L; the Dzhanibekov flip',
    async run(outDir) {
      const r = await rigidTumbling(outDir);
      const worst = (q: string) =>
        Math.max(...r.drift.filter((x) => x.quantity === q).map((x) => x.value as number)).toExponential(1);
      const flips = r.flip.filter((x, k, a) => {
        if (x.axis !== 'ω · e_y (intermediate)' || k < 3) return false;
        return Math.sign(x.value as number) !== Math.sign(a[k - 3].value as number);
      }).length;
      return {
        files: r.files,
        summary: `largest drift over 10 s: |ΔL|/|L| ${worst('|ΔL|/|L|, 5 substeps')} (5 substeps), ${worst('|ΔL|/|L|, 20 substeps')} (20); |ΔE|/E ${worst('|ΔE|/E, 5 substeps')}, ${worst('|ΔE|/E, 20 substeps')}; the intermediate-axis spin reverses ${flips} times in 25 s`,
      };
    },
  },
  {
    name: 'rod-cantilever',
    title: "Cosserat rods: a cantilever's tip deflection against Euler–Bernoulli over Young's moduli",
    async run(outDir) {
      const r = await rodCantileverExperiment(outDir);
      return {
        files: r.files,
        summary: r.rows
          .map(
            (x) =>
              `E ${(x.E as number).toExponential(0)}, ${x.iterations}: ${(x.ratio as number).toFixed(4)} × EB`,
          )
          .join('; '),
      };
    },
  },
  {
    name: 'dftl',
    title: 'Follow-The-Leader and DFTL (000 §3.5): length error and energy of a swinging strand',
    async run(outDir) {
      const r = await dftlExperiment(outDir);
      const end = r.rows.filter((x) => x.time === 3);
      const peak = (rule: string) =>
        Math.max(...r.rows.filter((x) => x.rule === rule).map((x) => x.energy as number));
      return {
        files: r.files,
        summary: end
          .map(
            (x) =>
              `${x.rule}: energy at 3 s ${(x.energy as number).toFixed(3)} m g L (peak ${peak(x.rule as string).toFixed(2)}), largest stretch ${(x.lengthError as number).toExponential(1)}`,
          )
          .join('\n'),
      };
    },
  },
  {
    name: 'pbf-density',
    title:
      'Position based fluids at rest in a tank: interior density error against iterations and substeps (docs/fluids.md)',
    async run(outDir) {
      const r = await pbfDensity(outDir);
      const at = (s: number, i: number) =>
        r.rows
          .filter((x) => x.substeps === s && x.iterations === i)
          .map(
            (x) =>
              `${x.pool}: ${(x.meanError as number).toFixed(2)} % (largest ${(x.maxError as number).toFixed(2)} %)`,
          )
          .join(', ');
      return { files: r.files, summary: `2 substeps × 4 iterations: ${at(2, 4)}\n1 × 4: ${at(1, 4)}` };
    },
  },
];

/**
 * One line per case of Figure 4: its energy before the first iteration and
 * each solver's energy after the last (the cases start from different
 * states, so each is summarised on its own).
 */
export function fig4Summary(rows: Row[]): string {
  const cases = [...new Set(rows.map((r) => String(r.case)))];
  return cases
    .map((c) => {
      const mine = rows.filter((r) => r.case === c);
      const first = mine.find((r) => r.iteration === 0)!;
      const lastIt = Math.max(...mine.map((r) => r.iteration as number));
      const last = mine.filter((r) => r.iteration === lastIt);
      const e = (v: unknown) => `${(v as number).toExponential(3)} J`;
      return `${c}: elastic energy ${e(first.energy)} before the first iteration; after ${lastIt}: ${last.map((x) => `${x.solver} ${e(x.energy)}`).join(', ')}`;
    })
    .join('\n');
}

/** Runs one experiment by name ('fig4', 'fig5', 'fig6', 'fig7', 'xpbd-chain', 'lra', 'dftl', 'rod-cantilever', 'pbf-density' or 'all') and writes its files to outDir. */
export async function runExperiment(
  name: string,
  outDir: string,
): Promise<{ files: string[]; summary: string }> {
  const chosen = name === 'all' ? experiments : experiments.filter((e) => e.name === name);
  if (chosen.length === 0) {
    const known = [...experiments.map((e) => e.name), 'all'];
    const guess = didYouMean(name, known);
    throw new PbdError(
      'usage/experiment',
      name,
      `is not an experiment; known: ${known.join(', ')}`,
      guess || 'give one of the names above (pbdkit experiment --help describes them)',
    );
  }
  mkdirSync(outDir, { recursive: true });
  const files: string[] = [];
  const summary: string[] = [];
  for (const e of chosen) {
    const r = await e.run(outDir);
    files.push(...r.files);
    summary.push(`${e.title}\n${r.summary}`);
  }
  return { files, summary: summary.join('\n\n') };
}
