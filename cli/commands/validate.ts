/** `pbdkit validate <scene...>`: checks scene files against the schema and builds them; lists every problem. */
import type { Command } from 'commander';
import { PbdError } from '../../src/core/errors.js';
import { SceneError } from '../../src/io/scene/common.js';
import type { SceneLimits } from '../../src/io/scene/limits.js';
import { loadSceneFile, resolveScenePath } from '../../src/node/files.js';
import { type CliContext, ExitCode } from '../context.js';
import { addLimitOptions, limitsFromFlags } from '../limits.js';

export interface ValidationReport {
  file: string;
  valid: boolean;
  /** Every problem: the JSON path (or element) inside the file, what is wrong and how to fix it. */
  issues: { code: string; path: string; message: string; hint?: string }[];
  bodies?: number;
  particles?: number;
  colliders?: number;
}

/** Validates one scene: the schema (every problem at once), then building it (meshes, masses, pins). */
export function validateScene(file: string, limits: Partial<SceneLimits> = {}): ValidationReport {
  try {
    const s = loadSceneFile(file, { limits });
    return {
      file,
      valid: true,
      issues: [],
      bodies: s.bodies.length,
      particles: s.bodies.reduce((n, b) => n + b.activeCount, 0),
      colliders: s.colliders.length,
    };
  } catch (e) {
    if (e instanceof SceneError) {
      return {
        file,
        valid: false,
        issues: e.issues.map((i) => ({ code: e.code, path: i.path || '(root)', message: i.message })),
      };
    }
    if (e instanceof PbdError) {
      // builder errors are located as "<file>: <JSON path>: <element>"
      const path = e.where.startsWith(`${file}: `) ? e.where.slice(file.length + 2) : e.where;
      return {
        file,
        valid: false,
        issues: [{ code: e.code, path, message: e.detail, ...(e.hint ? { hint: e.hint } : {}) }],
      };
    }
    throw e;
  }
}

export function registerValidate(program: Command, ctx: CliContext): void {
  const command = program
    .command('validate')
    .description('check scene files: schema, meshes, masses, pins; print every problem with its JSON path')
    .argument('<scenes...>', 'scene files (or names of built-in scenes)')
    .option('--json', 'print the reports as JSON');
  addLimitOptions(command)
    .addHelpText(
      'after',
      '\nExit code 0 when every scene is valid, 2 otherwise.\n\nExamples:\n  pbdkit validate my-scene.json\n  pbdkit validate scenes/*.json --json',
    )
    .action((scenes: string[], flags: { json?: boolean } & Partial<SceneLimits>) => {
      const reports = scenes.map((s) => validateScene(resolveScenePath(s), limitsFromFlags(flags)));
      if (flags.json) {
        ctx.out(`${JSON.stringify(reports, null, 2)}\n`);
      } else {
        for (const r of reports) {
          if (r.valid) {
            ctx.out(
              `ok ${r.file}: ${r.bodies} bod${r.bodies === 1 ? 'y' : 'ies'}, ${r.particles} particles, ${r.colliders} collider${r.colliders === 1 ? '' : 's'}\n`,
            );
            continue;
          }
          ctx.out(`invalid ${r.file}: ${r.issues.length} problem${r.issues.length === 1 ? '' : 's'}\n`);
          for (const i of r.issues)
            ctx.out(`  ${i.path}: ${i.message}${i.hint ? `\n    fix: ${i.hint}` : ''}\n`);
        }
      }
      ctx.exitCode = reports.every((r) => r.valid) ? ExitCode.ok : ExitCode.input;
    });
}
