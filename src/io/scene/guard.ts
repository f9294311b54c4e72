/**
 * Checks of a parsed scene that come before the schema: nesting depth and
 * the magnitude of every number. Both walk the JSON value iteratively (an
 * explicit stack), so no input — 100,000 levels of nesting included — can
 * overflow the call stack, and every problem names its JSON path.
 */
import type { SceneIssue } from './common.js';

/** Deepest nesting of arrays and objects a scene may have (the schema needs 8). */
export const MAX_SCENE_DEPTH = 64;

/**
 * Largest magnitude of a number in a scene. Beyond it nothing pbdkit
 * simulates stays finite: squared lengths, energies and 1/h² terms overflow,
 * and a coordinate of 1e15 m has a resolution of 0.125 m.
 */
export const MAX_SCENE_NUMBER = 1e12;
/** Smallest non-zero magnitude: below it reciprocals (1/dt², 1/spacing³) overflow. */
export const MIN_SCENE_NUMBER = 1e-30;

/** Most issues reported for one scene (a huge array of bad numbers would list thousands). */
const MAX_ISSUES = 20;

type Key = string | number;

/** Formats a path like ['bodies', 0, 'mesh'] as `bodies[0].mesh`, eliding the middle of a long one. */
export function formatKeys(path: readonly PropertyKey[]): string {
  const shown = path.length > 12 ? [...path.slice(0, 6), '…', ...path.slice(-3)] : path;
  let out = '';
  for (const k of shown) {
    if (typeof k === 'number') out += `[${k}]`;
    else out += out ? `.${String(k)}` : String(k);
  }
  return out;
}

/**
 * Problems of a parsed scene that the schema cannot report safely: nesting
 * deeper than MAX_SCENE_DEPTH (the first such place; nothing deeper is
 * looked at) and numbers outside [MIN_SCENE_NUMBER, MAX_SCENE_NUMBER] in
 * magnitude. Empty when there are none.
 */
export function guardSceneJson(json: unknown): SceneIssue[] {
  const issues: SceneIssue[] = [];
  let more = 0;
  const stack: { v: unknown; path: Key[] }[] = [{ v: json, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'number') {
      const a = Math.abs(v);
      if (a > MAX_SCENE_NUMBER || (a > 0 && a < MIN_SCENE_NUMBER)) {
        if (issues.length >= MAX_ISSUES) more++;
        else
          issues.push({
            path: formatKeys(path),
            message: `${v} is ${a > 1 ? 'too large' : 'too small'} to simulate (magnitudes from ${MIN_SCENE_NUMBER} to ${MAX_SCENE_NUMBER}, or 0)`,
          });
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= MAX_SCENE_DEPTH) {
      return [
        {
          path: formatKeys(path),
          message: `is nested more than ${MAX_SCENE_DEPTH} levels deep (a scene needs fewer than 10)`,
        },
      ];
    }
    if (Array.isArray(v)) {
      for (let k = v.length - 1; k >= 0; k--) stack.push({ v: v[k], path: [...path, k] });
    } else {
      const entries = Object.entries(v);
      for (let k = entries.length - 1; k >= 0; k--)
        stack.push({ v: entries[k][1], path: [...path, entries[k][0]] });
    }
  }
  if (more > 0) issues.push({ path: '', message: `and ${more} more numbers out of range` });
  return issues;
}
