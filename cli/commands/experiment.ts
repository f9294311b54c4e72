/**
 * `pbdkit experiment <name> [--out dir]`: reproduces a paper experiment
 * (CSV + SVG plot). Wired into cli/main.ts with registerExperimentCommand(program).
 */
import type { Command } from 'commander';
import { experiments, runExperiment } from '../../experiments/index.js';
import type { CliContext } from '../context.js';

export function registerExperimentCommand(program: Command, ctx: CliContext): void {
  program
    .command('experiment')
    .description('reproduce a paper experiment and write its CSV data and SVG plot')
    .argument('<name>', `${experiments.map((e) => e.name).join(', ')} or all`)
    .option('-o, --out <dir>', 'output folder', 'experiment-results')
    .addHelpText(
      'after',
      `\nExperiments:\n${experiments.map((e) => `  ${e.name.padEnd(10)} ${e.title}`).join('\n')}\n`,
    )
    .action(async (name: string, opts: { out: string }) => {
      const t0 = performance.now();
      const r = await runExperiment(name, opts.out);
      ctx.out(
        `${r.summary}\n\nwrote ${r.files.length} files to ${opts.out} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    });
}
