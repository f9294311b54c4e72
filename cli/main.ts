/**
 * The pbdkit command. Each command lives in cli/commands/<name>.ts and
 * exports a register function; adding a command is one line in `commands`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { packageRoot } from '../src/node/files.js';
import { registerExperimentCommand } from './commands/experiment.js';
import { registerInfo } from './commands/info.js';
import { registerScenes } from './commands/scenes.js';
import { registerSimulate } from './commands/simulate.js';
import { registerValidate } from './commands/validate.js';
import { type CliContext, processContext } from './context.js';
import { reportError } from './errors.js';

/** Adds one command to the program. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/** Every command of pbdkit, in the order `pbdkit --help` lists them. */
export const commands: RegisterCommand[] = [
  registerSimulate,
  registerInfo,
  registerValidate,
  registerScenes,
  registerExperimentCommand,
];

/** Builds the commander program, printing through ctx. */
export function createProgram(ctx: CliContext): Command {
  const version = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version as string;
  const program = new Command('pbdkit')
    .description(
      'Position-based simulation: bake scene files to glTF, OBJ and CSV; inspect and validate scenes.',
    )
    .version(version, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.out(s),
      writeErr: (s) => ctx.err(s),
      outputError: (s, write) => write(`pbdkit: ${s.replace(/^error: /, '')}`),
    })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  pbdkit scenes                                   list the scenes that ship with pbdkit
  pbdkit simulate cloth-flag --frames 120 --out flag.glb
  pbdkit simulate my-scene.json --out frames/ --stats stats.csv
  pbdkit info scenes/cloth-bag.json
  pbdkit validate my-scene.json

Exit codes: 0 ok, 1 simulation or output failure, 2 invalid input or usage,
130/143 stopped by Ctrl-C/kill after writing a checkpoint (continue with --resume).
Documentation: docs/cli.md`,
    );
  for (const register of commands) register(program, ctx);
  return program;
}

/** Runs the command line (argv as in process.argv) and returns the exit code. */
export async function main(
  argv: string[] = process.argv,
  ctx: CliContext = processContext(),
): Promise<number> {
  ctx.argv = argv;
  const program = createProgram(ctx);
  try {
    await program.parseAsync(argv);
    return ctx.exitCode;
  } catch (e) {
    return reportError(e, ctx);
  }
}
