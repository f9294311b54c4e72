/** `pbdkit scenes`: the scenes that ship with pbdkit (usable by name in every command). */
import type { Command } from 'commander';
import { builtinScenes } from '../../src/node/files.js';
import type { CliContext } from '../context.js';
import { table } from '../format.js';

export function registerScenes(program: Command, ctx: CliContext): void {
  program
    .command('scenes')
    .description('list the scenes that ship with pbdkit (give their name to simulate, info or validate)')
    .option('--json', 'print name, path, title, family and figure as JSON')
    .action((flags: { json?: boolean }) => {
      const scenes = builtinScenes();
      if (flags.json) {
        ctx.out(`${JSON.stringify(scenes, null, 2)}\n`);
        return;
      }
      ctx.out(table([['name', 'family', 'title'], ...scenes.map((s) => [s.name, s.family, s.title])]));
    });
}
