/**
 * Checks of a parsed scene that come before the schema: nesting depth, the
 * magnitude of every number, and the range of each physical quantity
 * (ranges.ts). Both walk the JSON value iteratively (an
 * explicit stack), so no input — 100,000 levels of nesting included — can
 * overflow the call stack, and every problem names its JSON path.
 */
import type { SceneIssue } from './common.js';
import { describeOutOfRange, inRange, rangeOf } from './ranges.js';

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
 * magnitude. Empty when there are none. With `sceneKeys` (the scene's
 * top-level keys), values under other top-level keys are not looked at.
 */
export function guardSceneJson(json: unknown, sceneKeys?: readonly string[]): SceneIssue[] {
  const issues: SceneIssue[] = [];
  let more = 0;
  // a node of the walk: its value, its key in its parent and its parent node (paths are built only for problems)
  interface Node {
    v: unknown;
    key: Key;
    parent: Node | null;
    depth: number;
  }
  const pathOf = (n: Node): Key[] => {
    const out: Key[] = [];
    for (let m: Node | null = n; m?.parent; m = m.parent) out.push(m.key);
    return out.reverse();
  };
  const stack: Node[] = [{ v: json, key: '', parent: null, depth: 0 }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.v;
    // an unknown top-level key is the schema's to report ("unknown option"), whatever it holds
    if (sceneKeys && node.depth === 1 && !sceneKeys.includes(node.key as string)) continue;
    if (typeof v === 'number') {
      const a = Math.abs(v);
      let message = '';
      if (a > MAX_SCENE_NUMBER || (a > 0 && a < MIN_SCENE_NUMBER))
        message = `${v} is ${a > 1 ? 'too large' : 'too small'} to simulate (magnitudes from ${MIN_SCENE_NUMBER} to ${MAX_SCENE_NUMBER}, or 0)`;
      else {
        // the quantity: the number's key, or the key of the array (of arrays) that holds it
        let named: Node | null = node;
        while (named && typeof named.key === 'number') named = named.parent;
        const range = named && named.depth > 1 ? rangeOf(named.key as string) : undefined;
        if (range && !inRange(v, range)) message = describeOutOfRange(v, range);
      }
      if (message) {
        if (issues.length >= MAX_ISSUES) more++;
        else issues.push({ path: formatKeys(pathOf(node)), message });
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (node.depth >= MAX_SCENE_DEPTH) {
      return [
        {
          path: formatKeys(pathOf(node)),
          message: `is nested more than ${MAX_SCENE_DEPTH} levels deep (a scene needs fewer than 10)`,
        },
      ];
    }
    const depth = node.depth + 1;
    if (Array.isArray(v)) {
      for (let k = v.length - 1; k >= 0; k--) stack.push({ v: v[k], key: k, parent: node, depth });
    } else {
      const keys = Object.keys(v);
      for (let k = keys.length - 1; k >= 0; k--)
        stack.push({ v: (v as Record<string, unknown>)[keys[k]], key: keys[k], parent: node, depth });
    }
  }
  if (more > 0) issues.push({ path: '', message: `and ${more} more numbers out of range` });
  return issues;
}
