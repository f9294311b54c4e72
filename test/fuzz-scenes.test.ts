/**
 * Hostile scene files (issue 21): seeded mutations of the shipped scenes and
 * of mesh files (test/fuzz/scene-fuzz.ts). Each input must be rejected with a
 * PbdError that locates the problem in the scene (a JSON path, or the file's
 * line and column for a syntax error), or be accepted within the limits and
 * step without NaN. scripts/fuzz-scenes.ts runs more of them and prints the
 * classes.
 */
import { describe, expect, it } from 'vitest';
import { loadScene } from '../src/io/scene/scene.js';
import { fuzzInputs, runInput } from './fuzz/scene-fuzz.js';

/** Limits small enough that an accepted input steps quickly; the shipped scenes fit. */
const limits = {
  maxParticles: 60_000,
  maxElements: 300_000,
  maxCells: 300_000,
  maxBodies: 100,
  maxColliders: 100,
  maxStepWork: 5_000_000,
};

describe('fuzzed scenes: rejected with a path, or accepted within the limits and finite', () => {
  const inputs = fuzzInputs(21, 200);
  for (const input of inputs) {
    it(`#${input.id} ${input.base} ${input.kind}: ${input.what}`, () => {
      const out = runInput(input, loadScene, { limits }, 1);
      if (out.cls === 'accepted') {
        expect(out.particles).toBeLessThanOrEqual(limits.maxParticles);
        return;
      }
      expect(`${out.cls}: ${out.code} ${out.message}`).toMatch(/^rejected with a path: /);
    });
  }

  it('the inputs cover every mutation and both outcomes', () => {
    const kinds = new Set(inputs.map((i) => i.kind));
    expect(kinds.size).toBeGreaterThanOrEqual(10);
  });
});
