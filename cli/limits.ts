/**
 * The scene-limit flags (`--max-particles`, `--max-elements`, `--max-cells`,
 * `--max-bodies`, `--max-colliders`) of every command that loads a scene:
 * one flag per field of SceneLimits, named by limitFlag(), so that the hint
 * of a `scene/too-large` error names a flag that the command has.
 */
import type { Command } from 'commander';
import { defaultSceneLimits, limitFlag, type SceneLimits } from '../src/io/scene/limits.js';
import { wholeNumber } from './format.js';

const described: Record<keyof SceneLimits, string> = {
  maxParticles: 'most particles the scene may allocate, all bodies together',
  maxElements: 'most mesh elements (triangles, tets, segments)',
  maxCells: 'most grid cells (distance fields, lattices)',
  maxBodies: 'most bodies in the scene',
  maxColliders: 'most colliders in the scene',
  maxFieldCells:
    "most cells of the mesh colliders' distance fields, computed at load time (about 3.5 µs each)",
  maxStepWork:
    'most estimated work per step (about 10 ns of CPU per unit; raise it for a bake that may run for hours)',
};

/** Adds the limit flags to a command. */
export function addLimitOptions(command: Command): Command {
  for (const key of Object.keys(defaultSceneLimits) as (keyof SceneLimits)[]) {
    command.option(
      `${limitFlag(key)} <n>`,
      `${described[key]} (default ${defaultSceneLimits[key]})`,
      wholeNumber(1),
    );
  }
  return command;
}

/** The limits a command's parsed flags ask for (undefined: the default). */
export function limitsFromFlags(flags: Partial<SceneLimits>): Partial<SceneLimits> {
  const out: Partial<SceneLimits> = {};
  for (const key of Object.keys(defaultSceneLimits) as (keyof SceneLimits)[])
    if (flags[key] !== undefined) out[key] = flags[key];
  return out;
}
