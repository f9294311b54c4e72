import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadShippedScene, sceneFiles } from '../scripts/shipped-scenes.js';
import {
  EnergyWatch,
  loadScene,
  type PbdError,
  parseSceneText,
  SceneError,
  sceneJsonSchema,
} from '../src/index.js';

const files = sceneFiles();

describe('scene files', () => {
  it('the published JSON Schema is up to date (npm run schema)', () => {
    const onDisk = JSON.parse(readFileSync(new URL('../schema/scene.schema.json', import.meta.url), 'utf8'));
    expect(onDisk).toEqual({ title: 'pbdkit scene', ...JSON.parse(JSON.stringify(sceneJsonSchema())) });
  });

  for (const f of files) {
    it(`${f} builds and runs a second without NaN or clamping`, () => {
      const inst = loadShippedScene(f);
      const w = inst.world;
      const watch = new EnergyWatch(w);
      for (let k = 0; k < Math.round(1 / w.dt); k++) {
        w.step();
        watch.observe();
      }
      const x = w.store.x;
      for (let i = 0; i < 3 * w.store.count; i++) expect(Number.isFinite(x[i])).toBe(true);
      expect(w.stats.recoveries).toBe(0);
      expect(w.stats.speedClamps).toBe(0);
      // and no body gains kinetic energy from nowhere
      expect(watch.first && EnergyWatch.describe(watch.first)).toBeNull();
    });
  }
});

describe('scene validation errors name the JSON path and the fix', () => {
  const base = {
    title: 't',
    family: 'cloth',
    bodies: [{ type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: 4, rows: 4 } } }],
  };
  const issues = (scene: unknown) => {
    try {
      parseSceneText(JSON.stringify(scene), 'bad.json');
    } catch (e) {
      expect(e).toBeInstanceOf(SceneError);
      return (e as SceneError).issues;
    }
    throw new Error('expected a SceneError');
  };

  it('an unknown option', () => {
    const i = issues({ ...base, world: { substep: 4 } });
    expect(i).toEqual([{ path: 'world', message: expect.stringMatching(/unknown option "substep"/) }]);
  });

  it('a misspelt value inside a union names the field and what it allows', () => {
    const cloth = base.bodies[0];
    // bend is an object or false: the object branch's own problem is reported, at its field
    expect(issues({ ...base, bodies: [{ ...cloth, bend: { model: 'distanse' } }] })).toEqual([
      {
        path: 'bodies[0].bend.model',
        message: expect.stringMatching(/"dihedral"\|"distance".*got "distanse"/),
      },
    ]);
    expect(issues({ ...base, bodies: [{ ...cloth, bend: { stifness: 1 } }] })).toEqual([
      { path: 'bodies[0].bend', message: expect.stringMatching(/unknown option "stifness"/) },
    ]);
    // a value of neither form: the forms are listed
    expect(issues({ ...base, bodies: [{ ...cloth, bend: true }] })).toEqual([
      { path: 'bodies[0].bend', message: 'expected object or false (got true)' },
    ]);
  });

  it('a wrong type and a bad range, both reported', () => {
    const i = issues({
      ...base,
      bodies: [{ type: 'cloth', density: 0, mesh: { grid: { width: 1, height: 1, cols: 1.5, rows: 4 } } }],
    });
    expect(i.map((x) => x.path).sort()).toEqual(['bodies[0].density', 'bodies[0].mesh'].sort());
  });

  it('an unknown body type', () => {
    const i = issues({ ...base, bodies: [{ type: 'jelly' }] });
    expect(i[0].path).toBe('bodies[0].type');
    expect(i[0].message).toMatch(/cloth/);
  });

  it('NaN cannot hide in JSON: syntax errors give line and column', () => {
    expect(() => parseSceneText('{\n  "title": NaN\n}', 'nan.json')).toThrow(/nan\.json:2:12/);
  });

  it('a zero-mass cloth and a non-manifold mesh are rejected when building', () => {
    const text = JSON.stringify({ ...base, bodies: [{ type: 'cloth', mesh: { file: 'm.obj' } }] });
    const obj = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 2 3\nf 1 2 4\nf 1 2 5\n';
    expect(() => loadScene(text, { file: 'nm.json', readFile: () => obj })).toThrow(
      /nm\.json: bodies\[0\]\.mesh: edge \(0, 1\).*non-manifold|more than two triangles/,
    );
    try {
      loadScene(text, { file: 'nm.json', readFile: () => obj });
    } catch (e) {
      expect((e as PbdError).code).toBe('mesh/non-manifold-edge');
    }
  });
});
