import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MAX_CANDIDATES_PER_PARTICLE,
  MAX_CONTACTS_PER_PARTICLE,
} from '../src/collision/particle-contacts.js';
import { MAX_CANDIDATES_PER_SEGMENT } from '../src/collision/segment-contacts.js';
import { DEGENERATE_PAIRS_PER_TRIANGLE } from '../src/collision/surface-broad-phase.js';
import { PbdError } from '../src/core/errors.js';
import { collisionSystemOf, ParticleContacts } from '../src/index.js';
import { jsonErrorOffset, lineColumn } from '../src/io/json-position.js';
import type { SceneError } from '../src/io/scene/common.js';
import { MAX_SCENE_DEPTH } from '../src/io/scene/guard.js';
import { Budget, defaultSceneLimits } from '../src/io/scene/limits.js';
import { estimateScene, loadScene, parseScene, parseSceneText } from '../src/io/scene/scene.js';
import { ELEMENT_WEIGHT } from '../src/io/scene/work.js';
import { thrown } from './helpers.js';

const base = {
  title: 't',
  family: 'cloth',
  bodies: [{ type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: 4, rows: 4 } } }],
};

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

  it('more bodies than the limit are refused before the schema looks at each', () => {
    const scene = { ...base, bodies: Array.from({ length: 20_000 }, () => ({ type: 'jelly' })) };
    const e = thrown(() => parseScene(scene, 'many.json'));
    expect(e.where).toBe('many.json: bodies');
    expect(e.detail).toMatch(/20,000 bodies, more than the limit of 1,000/);
  });

  it('physical quantities past their range (ranges.ts) are refused up front with the path, the value and the range', () => {
    const jelly = () => ({
      title: 't',
      family: 'f',
      world: { dt: 1 / 60 },
      bodies: [
        {
          type: 'softbody',
          tetMesh: { box: { size: [0.3, 0.3, 0.3], resolution: [3, 3, 3] } },
          transform: { translate: [0, 0.5, 0], scale: 1 },
          material: { model: 'neo-hookean', youngsModulus: 30000, poissonRatio: 0.4 },
          density: 1000,
        },
      ],
      collision: { thickness: 0.01 },
    });
    expect(parseScene(jelly()).bodies).toHaveLength(1);
    const cases: [(s: ReturnType<typeof jelly>) => void, string, RegExp][] = [
      [
        (s) => {
          s.bodies[0].material.youngsModulus = 1e-5;
        },
        'bodies[0].material.youngsModulus',
        /0\.00001 is out of range for an elastic modulus: magnitudes from 0\.001 to 1000000000000 Pa/,
      ],
      [
        (s) => {
          s.bodies[0].transform.scale = 1e6;
        },
        'bodies[0].transform.scale',
        /1000000 is out of range for a scale factor: magnitudes from 0\.0001 to 10000/,
      ],
      [
        (s) => {
          s.bodies[0].density = 1e-9;
        },
        'bodies[0].density',
        /1e-9 is out of range for a density/,
      ],
      // a body moved 10⁵ times away: grids and bounds sized by the scene's extent
      [
        (s) => {
          s.bodies[0].transform.translate[0] = 5e4;
        },
        'bodies[0].transform.translate[0]',
        /50000 is out of range for a position: magnitudes up to 10000 m/,
      ],
      [
        (s) => {
          s.collision.thickness = 5e5;
        },
        'collision.thickness',
        /out of range for a length: magnitudes from 0\.000001 to 1000 m/,
      ],
      [
        (s) => {
          s.world.dt = 1e-9;
        },
        'world.dt',
        /1e-9 is out of range for a time step/,
      ],
    ];
    for (const [mutate, path, message] of cases) {
      const s = jelly();
      mutate(s);
      const e = thrown(() => parseScene(s, 'jelly.json')) as SceneError;
      expect(
        e.issues.map((i) => i.path),
        path,
      ).toEqual([path]);
      expect(e.issues[0].message).toMatch(message);
    }
  });

  it('a huge array of bad values lists a bounded number of problems', () => {
    const scene = { ...base, bodies: Array.from({ length: 20_000 }, () => ({ type: 'jelly' })) };
    const e = thrown(() => parseScene(scene, 'many.json', { maxBodies: 100_000 })) as SceneError;
    expect(e.issues.length).toBeLessThanOrEqual(51);
    expect(e.issues[0].path).toBe('bodies[0].type');
  });
});

/** A scene of one body (and colliders), as text. */
const scene = (bodies: unknown[], colliders: unknown[] = []) =>
  JSON.stringify({ title: 't', family: 'f', bodies, colliders });

describe('limits: what a scene would allocate is refused before it is allocated', () => {
  const grid = (cols: number, rows: number) => ({
    type: 'cloth',
    mesh: { grid: { width: 1, height: 1, cols, rows } },
  });

  it('a 4096 × 4096 cloth: the field, the amount and the limit', () => {
    const e = thrown(() => loadScene(scene([grid(4096, 4096)]), { file: 'big.json' }));
    expect(e.code).toBe('scene/too-large');
    expect(e.where).toBe('big.json: bodies[0].mesh.grid');
    expect(e.detail).toMatch(/16,777,216 particles, more than the limit of 2,000,000/);
    expect(e.hint).toMatch(/--max-particles/);
  });

  it('the limits option raises or lowers the limit', () => {
    const e = thrown(() => loadScene(scene([grid(40, 40)]), { limits: { maxParticles: 1000 } }));
    expect(e.detail).toMatch(/1,600 particles, more than the limit of 1,000/);
    const inst = loadScene(scene([grid(40, 40)]), { limits: { maxParticles: 1600 } });
    expect(inst.world.store.count).toBe(1600);
  });

  it('the running total over bodies is limited, not only each body', () => {
    const e = thrown(() =>
      loadScene(scene([grid(30, 30), grid(30, 30)]), { limits: { maxParticles: 1500 } }),
    );
    expect(e.where).toMatch(/bodies\[1\]\.mesh\.grid$/);
    expect(e.detail).toMatch(/brings the scene to 1,800 particles/);
  });

  it('every body type counts: fluid blocks, granular boxes, tet boxes, hair, lattices', () => {
    const cases: [unknown, RegExp][] = [
      [
        { type: 'fluid', spacing: 1e-4, blocks: [{ min: [0, 0, 0], max: [1, 1, 1] }] },
        /bodies\[0\]\.blocks\[0\]/,
      ],
      [{ type: 'granular', spacing: 1e-3, box: { min: [0, 0, 0], max: [1, 1, 1] } }, /bodies\[0\]\.spacing/],
      [
        { type: 'softbody', tetMesh: { box: { size: [1, 1, 1], resolution: [1000, 1000, 1000] } } },
        /bodies\[0\]\.tetMesh\.box\.resolution/,
      ],
      [
        {
          type: 'strands',
          hair: { center: [0, 0, 0], radius: 0.1, count: 200000, segments: 1000, length: 0.3 },
        },
        /bodies\[0\]\.hair/,
      ],
      [
        { type: 'lattice-shape', mesh: { icosphere: { radius: 1, subdivisions: 2 } }, spacing: 1e-3 },
        /bodies\[0\]\.spacing/,
      ],
      [{ type: 'fluid', spacing: 0.01, capacity: 3e9, blocks: [] }, /bodies\[0\]\.capacity/],
    ];
    for (const [body, where] of cases) {
      const e = thrown(() => loadScene(scene([body]), { file: 's.json' }));
      expect(e.code).toBe('scene/too-large');
      expect(e.where).toMatch(where);
    }
  });

  it('distance-field cells of a mesh collider, and the count of bodies', () => {
    const ball = { type: 'mesh', mesh: { icosphere: { radius: 0.3, subdivisions: 1 } }, resolution: 512 };
    const e = thrown(() => loadScene(scene([grid(4, 4)], [ball]), { file: 'c.json' }));
    expect(e.where).toBe('c.json: colliders[0].resolution');
    expect(e.detail).toMatch(/cells, more than the limit of 33,554,432/);
    const many = Array.from({ length: defaultSceneLimits.maxBodies + 1 }, () => grid(2, 2));
    expect(thrown(() => loadScene(scene(many), { file: 'm.json' })).where).toBe('m.json: bodies');
  });

  it('a mesh file larger than the limit is refused once read, at the body', () => {
    let obj = '';
    for (let i = 0; i < 40; i++) obj += `v ${i} 0 0\nv ${i} 1 0\nv ${i} 0 1\n`;
    for (let i = 0; i < 40; i++) obj += `f ${3 * i + 1} ${3 * i + 2} ${3 * i + 3}\n`;
    const text = scene([{ type: 'cloth', mesh: { file: 'm.obj' } }]);
    const e = thrown(() => loadScene(text, { readFile: () => obj, limits: { maxParticles: 100 } }));
    expect(e.where).toBe('scene.json: bodies[0]');
    expect(e.detail).toMatch(/120 particles, more than the limit of 100/);
  });

  it('pins count: rows of a grid expand to their vertices; more than 1,024 pin groups are refused by the schema', () => {
    const cloth = { ...grid(60, 60), pins: [{ rows: Array.from({ length: 200_000 }, () => 0) }] };
    const e = thrown(() => loadScene(scene([cloth])));
    expect(e.where).toBe('scene.json: bodies[0].pins');
    expect(e.detail).toMatch(
      /pins that select 12,000,000 vertices: 12,000,000 elements, more than the limit of 8,000,000/,
    );
    const groups = { ...grid(4, 4), pins: Array.from({ length: 2000 }, () => ({ vertices: [0] })) };
    const g = thrown(() => loadScene(scene([groups])));
    expect(g.code).toBe('scene/invalid');
    expect(g.message).toMatch(/bodies\[0\]\.pins: at most 1024 pin groups/);
    // a scene's own pins are within both
    const ok = loadScene(scene([{ ...grid(60, 60), pins: [{ rows: [0, 1] }, { vertices: [3599] }] }]));
    expect(ok.world.attachments.count).toBe(121);
  });

  it('rigid bodies count against maxBodies on their own', () => {
    const box = { shape: { type: 'sphere', radius: 0.1 } };
    const text = JSON.stringify({
      title: 't',
      family: 'f',
      bodies: [grid(4, 4)],
      rigidBodies: Array.from({ length: 3 }, () => box),
    });
    const e = thrown(() => loadScene(text, { limits: { maxBodies: 2 } }));
    expect(e.where).toBe('scene.json: rigidBodies');
    expect(e.detail).toMatch(/3 bodies, more than the limit of 2/);
  });

  it('bad limits are refused with the field', () => {
    const e = thrown(() => loadScene(scene([grid(4, 4)]), { limits: { maxParticles: -1 } }));
    expect(e.where).toBe('scene.json: limits.maxParticles');
  });
});

describe('limits: what a step would cost is refused before anything is built', () => {
  const grid = (cols: number, rows: number) => ({
    type: 'cloth',
    mesh: { grid: { width: 1, height: 1, cols, rows } },
  });
  // work.ts: 10 substeps × (particles + ELEMENT_WEIGHT × triangles) for a cloth without contacts
  const clothWork = (cols: number, rows: number, substeps = 10) =>
    substeps * (cols * rows + ELEMENT_WEIGHT * 2 * (cols - 1) * (rows - 1));

  it('one body: the field that drives it, the estimate, the limit and the flag; the limits option raises it', () => {
    const work = clothWork(100, 100);
    const e = thrown(() =>
      loadScene(scene([grid(100, 100)]), { file: 'w.json', limits: { maxStepWork: work - 1 } }),
    );
    expect(e.code).toBe('scene/too-slow');
    expect(e.where).toBe('w.json: bodies[0].mesh.grid');
    expect(e.detail).toContain(`an estimated ${work.toLocaleString('en-US')} work units per step`);
    expect(e.detail).toContain(`more than the limit of ${(work - 1).toLocaleString('en-US')}`);
    expect(e.hint).toMatch(/limits\.maxStepWork \(pbdkit --max-step-work \d+\)/);
    const inst = loadScene(scene([grid(100, 100)]), { limits: { maxStepWork: work } });
    expect(inst.world.store.count).toBe(10_000);
  });

  it('many bodies together: `bodies`, with their count', () => {
    const bodies = Array.from({ length: 12 }, () => grid(20, 20));
    const e = thrown(() => loadScene(scene(bodies), { limits: { maxStepWork: 11 * clothWork(20, 20) } }));
    expect(e.where).toBe('scene.json: bodies');
    expect(e.detail).toMatch(/^12 bodies, 4,800 particles/);
  });

  it('substeps and iterations multiply it: a modest cloth at 1,000 × 50 names world.substeps', () => {
    const text = JSON.stringify({
      title: 't',
      family: 'f',
      world: { substeps: 1000, iterations: 50 },
      bodies: [grid(60, 60)],
    });
    const e = thrown(() => loadScene(text));
    expect(e.code).toBe('scene/too-slow');
    expect(e.where).toBe('scene.json: world.substeps');
  });

  it("collision-barrel's cloth 1,000 times (the fuzz's #286): refused from the counts, before any mesh is built", () => {
    const barrel = JSON.parse(
      readFileSync(new URL('../scenes/collision-barrel.json', import.meta.url), 'utf8'),
    );
    const text = JSON.stringify({ ...barrel, bodies: Array.from({ length: 1000 }, () => barrel.bodies[0]) });
    const e = thrown(() => loadScene(text, { file: 'barrels.json' }));
    expect(e.code).toBe('scene/too-slow');
    expect(e.where).toBe('barrels.json: bodies');
    expect(e.detail).toMatch(/^1,000 bodies, 1,364,000 particles/);
    expect(e.detail).toContain(`limit of ${defaultSceneLimits.maxStepWork.toLocaleString('en-US')}`);
  });

  it('a body whose size only the builder knows (a lattice in a mesh) is checked once built', () => {
    const body = {
      type: 'lattice-shape',
      mesh: { icosphere: { radius: 1, subdivisions: 2 } },
      spacing: 0.1,
    };
    const inst = loadScene(scene([body]));
    const n = inst.world.store.count;
    const e = thrown(() => loadScene(scene([body]), { limits: { maxStepWork: 10 * n - 1 } }));
    expect(e.code).toBe('scene/too-slow');
    expect(e.where).toMatch(/^scene\.json: bodies\[0\]/);
  });

  it('a generated strand counts its points: a helix of 10⁹ turns is refused at its shape', () => {
    const helix = { type: 'helix', radius: 0.01, pitch: 0.01, turns: 1e9, segment: 0.001 };
    const e = thrown(() => loadScene(scene([{ type: 'strands', shape: helix }])));
    expect(e.code).toBe('scene/too-large');
    expect(e.where).toBe('scene.json: bodies[0].shape');
  });

  it("mesh colliders' distance fields are computed at load time: their cells are bounded (the fuzz's #544)", () => {
    const ball = { type: 'mesh', mesh: { icosphere: { radius: 0.3, subdivisions: 1 } }, resolution: 16 };
    const many = Array.from({ length: 1000 }, () => ball);
    const e = thrown(() => loadScene(scene([grid(4, 4)], many), { file: 'c.json' }));
    expect(e.code).toBe('scene/too-slow');
    expect(e.where).toBe('c.json: colliders');
    expect(e.detail).toMatch(
      /6,859 cells to compute at load time, 1,502,121 with the scene's other distance fields/,
    );
    expect(e.hint).toMatch(/--max-field-cells 1652334/);
    const one = thrown(() =>
      loadScene(scene([grid(4, 4)], [{ ...ball, resolution: 200 }]), { file: 'c.json' }),
    );
    expect(one.where).toBe('c.json: colliders[0].resolution');
    expect(one.detail).toMatch(/8,365,427 cells to compute at load time .*more than the limit of 1,500,000/);
    // raised, the same scene loads
    const ok = loadScene(scene([grid(4, 4)], many.slice(0, 3)), { limits: { maxFieldCells: 3 * 19 ** 3 } });
    expect(ok.colliders.length).toBe(3);
  });

  it('every shipped scene is within the default with a margin of 20', () => {
    const dir = new URL('../scenes/', import.meta.url);
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
      const budget = new Budget();
      estimateScene(parseSceneText(readFileSync(new URL(f, dir), 'utf8'), f), budget);
      expect(budget.work, f).toBeLessThan(defaultSceneLimits.maxStepWork / 20);
      expect(budget.fieldCells, f).toBeLessThan(defaultSceneLimits.maxFieldCells / 4);
    }
  });
});

describe('mesh files named in a scene: errors name the scene field, the file, line and column', () => {
  it('OBJ: an index out of range', () => {
    const obj = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2  9\n';
    const text = scene([{ type: 'cloth', mesh: { file: 'm.obj' } }]);
    const e = thrown(() => loadScene(text, { file: 's.json', readFile: () => obj }));
    expect(e.where).toBe('s.json: bodies[0].mesh.file (m.obj:4:8)');
    expect(e.code).toBe('obj/index-out-of-range');
  });

  it('OBJ: a NaN coordinate', () => {
    const obj = 'v 0 0 0\nv 1 NaN 0\nv 0 1 0\nf 1 2 3\n';
    const text = scene([{ type: 'cloth', mesh: { file: 'm.obj' } }]);
    const e = thrown(() => loadScene(text, { file: 's.json', readFile: () => obj }));
    expect(e.where).toBe('s.json: bodies[0].mesh.file (m.obj:2:5)');
  });

  it('TetGen: a bad node index and a non-number, with their columns', () => {
    const node = '4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n';
    const body = { type: 'softbody', tetMesh: { tetgen: { node: 'a.node', ele: 'a.ele' } } };
    const files: Record<string, string> = { 'a.node': node, 'a.ele': '1 4 0\n0 0 1 2 7\n' };
    const e = thrown(() => loadScene(scene([body]), { file: 's.json', readFile: (p) => files[p] }));
    expect(e.where).toBe('s.json: bodies[0].tetMesh.tetgen (a.ele:2:9)');
    files['a.node'] = node.replace('2 0 1 0', '2 0 x 0');
    const f = thrown(() => loadScene(scene([body]), { file: 's.json', readFile: (p) => files[p] }));
    expect(f.where).toBe('s.json: bodies[0].tetMesh.tetgen (a.node:4:5)');
  });

  it('Gmsh: a non-number, with its column', () => {
    const msh = [
      '$MeshFormat',
      '2.2 0 8',
      '$EndMeshFormat',
      '$Nodes',
      '1',
      '1 0 oops 0',
      '$EndNodes',
      '',
    ].join('\n');
    const body = { type: 'softbody', tetMesh: { gmsh: 'a.msh' } };
    const e = thrown(() => loadScene(scene([body]), { file: 's.json', readFile: () => msh }));
    expect(e.where).toBe('s.json: bodies[0].tetMesh.gmsh (a.msh:6:5)');
  });

  it('a degenerate tet from a file is located at the body', () => {
    const node = '4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 1 1 0\n';
    const files: Record<string, string> = { 'a.node': node, 'a.ele': '1 4 0\n0 0 1 2 3\n' };
    const body = { type: 'softbody', tetMesh: { tetgen: { node: 'a.node', ele: 'a.ele' } } };
    const e = thrown(() => loadScene(scene([body]), { file: 's.json', readFile: (p) => files[p] }));
    expect(e.where).toMatch(/^s\.json: bodies\[0\]/);
    expect(e.message).toMatch(/tet 0/);
  });
});

describe('malformed meshes in files: the element, the scene field and the file (issue 21)', () => {
  const quad = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n';
  const cases: [string, string, RegExp, string][] = [
    [
      'non-manifold',
      `${quad}v 0 0 1\nf 1 2 3\nf 2 4 3\nf 2 3 5\n`,
      /edge \(1, 2\)$/,
      'mesh/non-manifold-edge',
    ],
    [
      'degenerate (zero area)',
      'v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n',
      /triangle 0$/,
      'mesh/degenerate-triangle',
    ],
    ['a repeated vertex', `${quad}f 1 2 3\nf 2 4 4\n`, /triangle 1$/, 'mesh/degenerate-triangle'],
    ['an index out of range', `${quad}f 1 2 3\nf 2 4 7\n`, /\(m\.obj:6:7\)$/, 'obj/index-out-of-range'],
    ['a NaN coordinate', 'v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n', /\(m\.obj:2:5\)$/, 'obj/bad-vertex'],
  ];
  const cloth = { type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: 3, rows: 3 } } };
  for (const [what, obj, element, code] of cases) {
    it(`${what}: named in a cloth and in a mesh collider`, () => {
      for (const [spec, field] of [
        [scene([{ type: 'cloth', mesh: { file: 'm.obj' } }]), /^s\.json: bodies\[0\]\.mesh[ .]/],
        [scene([cloth], [{ type: 'mesh', mesh: { file: 'm.obj' } }]), /^s\.json: colliders\[0\]\.mesh[ .]/],
      ] as const) {
        const e = thrown(() => loadScene(spec, { file: 's.json', readFile: () => obj }));
        expect(e.code).toBe(code);
        expect(e.where).toMatch(field);
        expect(e.where).toMatch(/m\.obj/);
        expect(e.where).toMatch(element);
      }
    });
  }

  it('a million-triangle OBJ becomes a cloth with every vertex and triangle, and the mass the density gives', () => {
    // 708 × 708 vertices 1/707 m apart: 999,698 triangles over 1 m²
    const n = 708;
    const lines: string[] = [];
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) lines.push(`v ${i / (n - 1)} 0 ${j / (n - 1)}`);
    for (let j = 0; j + 1 < n; j++)
      for (let i = 0; i + 1 < n; i++) {
        const a = j * n + i + 1;
        lines.push(`f ${a} ${a + n} ${a + 1}`, `f ${a + 1} ${a + n} ${a + n + 1}`);
      }
    const obj = lines.join('\n');
    const inst = loadScene(scene([{ type: 'cloth', mesh: { file: 'big.obj' }, density: 0.2 }]), {
      file: 's.json',
      readFile: () => obj,
    });
    const { store } = inst.world;
    expect(store.count).toBe(n * n);
    let mass = 0;
    for (let i = 0; i < store.count; i++) mass += store.mass[i];
    expect(mass).toBeCloseTo(0.2, 9); // 0.2 kg/m² × 1 m²
    // edges: rows, columns and one diagonal per cell; one bending quad per interior edge
    const edges = 2 * n * (n - 1) + (n - 1) ** 2;
    const counts = Object.fromEntries(inst.world.sets.map((s) => [s.kind, (s as { count?: number }).count]));
    expect(counts.stretch).toBe(edges);
    expect(counts['dihedral-bending']).toBe(edges - 4 * (n - 1));
  });
});

describe('bakes: a glb larger than the limit is refused before it starts', () => {
  it('200,000 frames of the flag: the frames, the vertices, the size and the limit; nothing written', async () => {
    const { bake } = await import('../src/node/bake.js');
    const { existsSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'pbdkit-hostile-'));
    const out = join(dir, 'flag.glb');
    let started = false;
    const e = await bake(
      { scene: 'scenes/cloth-flag.json', frames: 200_000, out },
      { onStart: () => (started = true) },
    ).catch((x: unknown) => x as PbdError);
    expect(e).toBeInstanceOf(PbdError);
    expect((e as PbdError).code).toBe('bake/too-large');
    // 792 vertices × (position + normal) × 4-byte floats × 200,000 frames
    expect((e as PbdError).detail).toMatch(
      /200000 frames of 792 vertices .* about 3802 MB, more than the limit of 2147 MB/,
    );
    expect(started).toBe(false);
    expect(existsSync(out)).toBe(false);
    const small = await bake({ scene: 'scenes/cloth-flag.json', frames: 3, out, maxOutputBytes: 1e6 });
    expect(small.status).toBe('complete');
  });
});

describe('bodies copied on top of each other: the first step does bounded work (issue 21)', () => {
  /** A shipped scene with its bodies repeated to `copies` (the fuzz's huge-array mutation of `bodies`), at `substeps`. */
  function copied(name: string, copies: number, substeps: number) {
    const json = JSON.parse(readFileSync(new URL(`../scenes/${name}.json`, import.meta.url), 'utf8'));
    json.bodies = Array.from({ length: copies }, (_, k) => json.bodies[k % json.bodies.length]);
    json.world.substeps = substeps;
    return loadScene(JSON.stringify(json), { file: `${name}.json` }).world;
  }
  const finite = (x: Float64Array, n: number) => x.subarray(0, 3 * n).every(Number.isFinite);

  it('100 coincident granular piles: at most MAX_CANDIDATES_PER_PARTICLE candidate pairs and MAX_CONTACTS_PER_PARTICLE contacts per particle', () => {
    // uncapped, every grain meets its 99 copies and theirs of its lattice neighbours: 16,000 particles ×
    // ~700 candidates per substep, nearly all of them contacts (1,000 piles: ~7,000)
    const world = copied('collision-granular-pile', 100, 1);
    const pc = ParticleContacts.find(world)!;
    const n = world.store.count;
    expect(n).toBe(16_000);
    world.step();
    expect(pc.candidates).toBeLessThanOrEqual(MAX_CANDIDATES_PER_PARTICLE * n);
    expect(pc.count).toBeLessThanOrEqual(MAX_CONTACTS_PER_PARTICLE * n);
    expect(pc.capped).toBeGreaterThan(0.9 * n);
    expect(finite(world.store.x, n)).toBe(true);
  });

  it('10 coincident barrel cloths: the surface contacts within the broad phase budgets, and the cloths stay whole', () => {
    // uncapped, the first substep found 10.8 M overlapping triangle pairs, 6.5 M vertex–triangle and 12.5 M
    // edge–edge candidates (~480 per vertex; 1 copy: 536 / 742) and took ~18 s
    const world = copied('collision-barrel', 10, 1);
    const sc = collisionSystemOf(world)!.surfaces;
    world.step();
    const nv = sc.topology.vertexCount,
      ne = sc.topology.edgeCount;
    expect(nv).toBe(10 * 1364);
    // past the step's pair budget every triangle gets DEGENERATE_PAIRS_PER_TRIANGLE pairs at most: a vertex
    // meets the triangles of its owner's pairs, an edge the three edges of each
    expect(sc.stats.overBudget).toBeGreaterThan(0);
    expect(sc.stats.capped).toBeGreaterThan(0);
    expect(sc.stats.vertexTriangleCandidates).toBeLessThanOrEqual(DEGENERATE_PAIRS_PER_TRIANGLE * nv);
    expect(sc.stats.edgeEdgeCandidates).toBeLessThanOrEqual(3 * DEGENERATE_PAIRS_PER_TRIANGLE * ne);
    expect(sc.stats.contacts).toBeGreaterThan(0);
    world.step();
    const n = world.store.count;
    expect(finite(world.store.x, n)).toBe(true);
    // no cloth torn apart or thrown: every particle within the barrel (radius 0.5) and slower than 5 m/s
    const { x, v } = world.store;
    for (let i = 0; i < n; i++) {
      expect(Math.hypot(x[3 * i], x[3 * i + 1], x[3 * i + 2])).toBeLessThan(0.55);
      expect(Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2])).toBeLessThan(5);
    }
  });

  it('150 coincident knots: at most MAX_CANDIDATES_PER_SEGMENT candidate pairs per segment and substep', () => {
    // 1,000 knots' first step took more than 5 minutes (each of 138,000 segments against its 999 copies)
    const world = copied('strands-knot', 150, 1);
    const sc = collisionSystemOf(world)!.segments;
    world.step();
    const segments = 150 * 138;
    expect(sc.candidates).toBeLessThanOrEqual(MAX_CANDIDATES_PER_SEGMENT * segments);
    expect(sc.capped).toBeGreaterThan(0);
    expect(finite(world.store.x, world.store.count)).toBe(true);
  });
});
