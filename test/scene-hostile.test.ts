import { describe, expect, it } from 'vitest';
import { PbdError } from '../src/core/errors.js';
import { jsonErrorOffset, lineColumn } from '../src/io/json-position.js';
import { SceneError } from '../src/io/scene/common.js';
import { MAX_SCENE_DEPTH } from '../src/io/scene/guard.js';
import { parseScene, parseSceneText } from '../src/io/scene/scene.js';

const base = {
  title: 't',
  family: 'cloth',
  bodies: [{ type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: 4, rows: 4 } } }],
};

/** The error a call throws (fails the test when it throws nothing or something other than a PbdError). */
function thrown(f: () => unknown): PbdError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PbdError);
    return e as PbdError;
  }
  throw new Error('expected a PbdError');
}

describe('hostile JSON: deep nesting and enormous numbers', () => {
  for (const levels of [5_000, 100_000]) {
    it(`${levels} levels of nesting inside a scene: a path, no stack overflow`, () => {
      const deep = `${'['.repeat(levels)}1${']'.repeat(levels)}`;
      const text = JSON.stringify({ ...base, description: '__deep__' }).replace('"__deep__"', deep);
      const e = thrown(() => parseSceneText(text, 'deep.json')) as SceneError;
      expect(e.code).toBe('scene/invalid');
      expect(e.issues[0].path.startsWith('description[0][0]')).toBe(true);
      expect(e.issues[0].message).toMatch(new RegExp(`nested more than ${MAX_SCENE_DEPTH} levels`));
    });

    it(`${levels} unclosed levels: a syntax error with line and column`, () => {
      const text = `{"title": ${'{"a":'.repeat(levels)}`;
      expect(jsonErrorOffset(text)).toBe(text.length);
      const e = thrown(() => parseSceneText(text, 'open.json'));
      expect(e.where).toBe(`open.json:1:${text.length + 1}`);
    });
  }

  it('the syntax scanner agrees with JSON.parse on valid and broken text', () => {
    const good = JSON.stringify({ a: [1, -2.5e3, 'x\\"y', true, false, null, {}, []], b: { c: '' } });
    expect(jsonErrorOffset(good)).toBe(-1);
    expect(jsonErrorOffset('{"a": [1, 2,]}')).toBe(12);
    expect(jsonErrorOffset('{"a" 1}')).toBe(5);
    expect(jsonErrorOffset('[1] x')).toBe(4);
    expect(lineColumn('ab\ncd\nef', 7)).toEqual({ line: 3, column: 2 });
  });

  it('enormous and tiny magnitudes are refused with their path before the schema', () => {
    const scene = structuredClone(base) as Record<string, unknown>;
    (scene.bodies as Record<string, unknown>[])[0].density = 1e300;
    scene.world = { gravity: [0, -9.81, 1e-310] };
    const e = thrown(() => parseScene(scene, 'big.json')) as SceneError;
    expect(e.issues.map((i) => i.path).sort()).toEqual(['bodies[0].density', 'world.gravity[2]']);
    expect(e.issues.find((i) => i.path === 'bodies[0].density')!.message).toMatch(/too large/);
  });

  it('a huge array of bad values lists a bounded number of problems', () => {
    const scene = { ...base, bodies: Array.from({ length: 20_000 }, () => ({ type: 'jelly' })) };
    const e = thrown(() => parseScene(scene, 'many.json')) as SceneError;
    expect(e.issues.length).toBeLessThanOrEqual(51);
    expect(e.issues[0].path).toBe('bodies[0].type');
  });
});
