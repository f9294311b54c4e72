/**
 * `pbdkit info`, `pbdkit validate`, and the documented errors and exit codes
 * for bad scenes and bad usage: messages name the file, the JSON path and
 * the fix, with no stack trace.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScene } from '../src/index.js';
import { cli, fixtures, pbdkit, root, scenes, stackLines, tempDir } from './cli-helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const grid = { width: 1, height: 1, cols: 4, rows: 4 };
/** Writes a scene (object or raw text) into the temporary folder and returns its path. */
function scene(name: string, content: unknown): string {
  const file = join(tmp.dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}
const base = (body: object = {}) => ({
  title: 't',
  family: 'cloth',
  bodies: [{ type: 'cloth', mesh: { grid }, ...body }],
});

describe('pbdkit info', () => {
  it('counts particles, constraints by kind with colours, colliders and bodies (a 5 × 3 grid)', async () => {
    const r = await cli(['info', join(fixtures, 'freefall.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^particles: 15$/m);
    // 5 × 3 vertices: 4·3 + 5·2 edges along the axes + 4·2 diagonals = 30; 30 − 12 boundary = 18 interior
    expect(r.stdout).toMatch(/^ {2}stretch +30 +\d+$/m);
    expect(r.stdout).toMatch(/^ {2}dihedral-bending +18 +\d+$/m);
    expect(r.stdout).toMatch(/^ {2}0 +square +cloth +15 +0 +16 +0\.1 +0$/m);
    expect(r.stdout).toMatch(/colliders\n {2}none/);
    expect(r.stdout).toMatch(/bake: 10 frames × 2 steps = 0\.3 s simulated/);
  });

  it('--json reports what the engine built: colour counts and kinds as World.constraintSummary()', async () => {
    const r = await cli(['info', 'cloth-flag', '--json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    const file = join(scenes, 'cloth-flag.json');
    const inst = loadScene(readFileSync(file, 'utf8'), { file });
    expect(info.constraints).toEqual(inst.world.constraintSummary().filter((c) => c.count > 0));
    expect(info.particles).toBe(inst.world.store.count);
    expect(info.bodies[0]).toMatchObject({ name: 'flag', type: 'cloth', vertices: 792, pinned: 2 });
    expect(info.colliders.map((c: { type: string }) => c.type)).toEqual(inst.colliders.map((c) => c.type));
    // a colouring never needs fewer colours than the largest number of constraints at one particle
    for (const c of info.constraints) expect(c.colors).toBeGreaterThanOrEqual(1);
    expect(
      info.constraints.find((c: { kind: string }) => c.kind === 'stretch').colors,
    ).toBeGreaterThanOrEqual(6);
  });

  it('shows kinematic colliders and spare vertices of a tearing cloth (bin/pbdkit.js)', () => {
    const r = pbdkit(['info', join(fixtures, 'resume.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}0 +sheet +cloth +957 +400 /m);
    expect(r.stdout).toMatch(/^ {2}1 +ribbon +cloth +39 +0 /m);
    expect(r.stdout).toMatch(/^ {2}0 +ball +sphere +kinematic/m);
    expect(r.stdout).toMatch(/^ {2}1 +ground +plane +static/m);
  });
});

describe('pbdkit validate', () => {
  it('accepts every scene that ships with pbdkit (exit 0)', async () => {
    const r = await cli([
      'validate',
      ...['bag', 'balloon', 'drape', 'flag', 'tear'].map((s) => `scenes/cloth-${s}.json`),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(5);
    expect(r.stdout).toMatch(/^ok scenes\/cloth-flag\.json: 1 body, 792 particles, 2 colliders$/m);
  });

  it('prints every problem of a scene with its JSON path (exit 2), and goes on to the next file', async () => {
    const bad = scene('many.json', {
      title: '',
      family: 'cloth',
      world: { substep: 4, dt: -1 },
      bodies: [{ type: 'cloth', density: 0, mesh: { grid } }],
    });
    const r = await cli(['validate', bad, join(fixtures, 'freefall.json')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^invalid \S*many\.json: 4 problems$/m);
    expect(r.stdout).toMatch(/^ {2}title: .*(>=1|at least 1|too small)/im);
    expect(r.stdout).toMatch(/^ {2}world: unknown option "substep"/m);
    expect(r.stdout).toMatch(/^ {2}world\.dt: .*got -1/m);
    expect(r.stdout).toMatch(/^ {2}bodies\[0\]\.density: .*got 0/m);
    expect(r.stdout).toMatch(/^ok .*freefall\.json/m);
    expect(r.stderr).toBe('');
  });

  it('--json gives code, path and message of each problem', async () => {
    const bad = scene('pin.json', base({ pins: [{ rows: [9] }] }));
    const r = await cli(['validate', bad, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        file: bad,
        valid: false,
        issues: [
          {
            code: 'scene/bad-pin',
            path: 'bodies[0].pins[0].rows',
            message: 'row 9 is outside the 4-row grid',
          },
        ],
      },
    ]);
  });
});

describe('scene limits on every command that loads a scene', () => {
  // a 4 × 4 grid cloth: 16 particles, 18 triangles
  // validate, info and simulate refuse the scene with the flag at `over`, naming the field and the flag
  // to raise; at `at` they accept it
  const limits = [
    {
      name: 'validate, info and simulate refuse a scene past --max-particles, naming the field and the flag; a raised limit accepts it',
      file: 'limits.json',
      flag: '--max-particles',
      over: '15',
      at: '16',
      messages: [
        /bodies\[0\]\.mesh\.grid: a 4 × 4 grid has 16 vertices: 16 particles, more than the limit of 15/,
        /pbdkit --max-particles/,
      ],
    },
    {
      name: '--max-step-work: the estimated work of a step (10 substeps × (16 particles + 4 × 18 triangles) = 880)',
      file: 'limits3.json',
      flag: '--max-step-work',
      over: '879',
      at: '880',
      messages: [
        /bodies\[0\]\.mesh\.grid: 16 particles and 18 elements at 10 substeps × 1 iteration: an estimated 880 work units per step .*more than the limit of 879/,
        /pbdkit --max-step-work 968/,
      ],
    },
  ];
  for (const { name, file: fileName, flag, over, at, messages } of limits) {
    it(name, async () => {
      const file = scene(fileName, base());
      for (const command of [['validate'], ['info'], ['simulate', '--frames', '2']]) {
        const r = await cli([...command, file, flag, over]);
        expect(r.code, command[0]).toBe(2);
        for (const m of messages) expect(r.stdout + r.stderr).toMatch(m);
        expect((await cli([...command, file, flag, at])).code, command[0]).toBe(0);
      }
    });
  }

  it('--max-elements, --max-bodies and --max-colliders are there too', async () => {
    const file = scene('limits2.json', { ...base(), colliders: [{ type: 'plane' }, { type: 'plane' }] });
    const elements = await cli(['validate', file, '--max-elements', '17']);
    expect(elements.stdout).toMatch(/bodies\[0\]\.mesh\.grid: .*18 elements, more than the limit of 17/);
    const colliders = await cli(['info', file, '--max-colliders', '1']);
    expect(colliders.code).toBe(2);
    expect(colliders.stderr).toMatch(/colliders: 2 colliders, more than the limit of 1.*\n.*--max-colliders/);
    const bodies = await cli(['validate', file, '--max-bodies', '1']);
    expect(bodies.code).toBe(0);
  });
});

describe('bad scenes: documented errors, exit code 2, no stack trace', () => {
  const cases: { name: string; file: () => string; message: RegExp }[] = [
    {
      name: 'an unknown option',
      file: () => scene('unknown.json', { ...base(), world: { substep: 4 } }),
      message:
        /^pbdkit: \S*unknown\.json: invalid scene:\n {2}world: unknown option "substep" \(check the spelling.*\n {2}fix: /,
    },
    {
      name: 'NaN (invalid JSON), with line and column',
      file: () => scene('nan.json', '{\n  "title": "t",\n  "world": { "dt": NaN }\n}\n'),
      message:
        /^pbdkit: \S*nan\.json:3:20: is not valid JSON near "NaN }".*\n {2}fix: JSON has no NaN, Infinity/,
    },
    {
      name: 'a trailing comma',
      file: () => scene('comma.json', '{ "title": "t", }'),
      message: /^pbdkit: \S*comma\.json:1:17: is not valid JSON/,
    },
    {
      name: 'zero density (a cloth without mass)',
      file: () => scene('zero.json', base({ density: 0 })),
      message: /^pbdkit: \S*zero\.json: invalid scene:\n {2}bodies\[0\]\.density: .*>0.*got 0/,
    },
    {
      name: 'a non-manifold OBJ mesh, naming the OBJ file and the edge',
      file: () => {
        mkdirSync(join(tmp.dir, 'meshes'), { recursive: true });
        writeFileSync(
          join(tmp.dir, 'meshes', 'fin.obj'),
          'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 2 3\nf 1 2 4\nf 1 2 5\n',
        );
        return scene('fin.json', base({ mesh: { file: 'meshes/fin.obj' } }));
      },
      message:
        /^pbdkit: \S*fin\.json: bodies\[0\]\.mesh \(meshes\/fin\.obj\): edge \(0, 1\): is shared by more than two triangles.*manifold\n {2}fix: /,
    },
    {
      name: 'a degenerate triangle in an OBJ mesh',
      file: () => {
        writeFileSync(join(tmp.dir, 'flat.obj'), 'v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n');
        return scene('flat.json', base({ mesh: { file: 'flat.obj' } }));
      },
      message: /^pbdkit: \S*flat\.json: bodies\[0\]\.mesh \(flat\.obj\): triangle 0: has zero area/,
    },
    {
      name: 'a missing mesh file, relative to the scene',
      file: () => scene('nomesh.json', base({ mesh: { file: 'gone.obj' } })),
      message:
        /^pbdkit: \S*nomesh\.json: bodies\[0\]\.mesh\.file: cannot read 'gone\.obj': ENOENT.*\n {2}fix: paths are relative to the scene file/,
    },
    {
      name: 'a missing scene file',
      file: () => join(tmp.dir, 'nowhere.json'),
      message: /^pbdkit: \S*nowhere\.json: scene file not found\n {2}fix: check the path/,
    },
    {
      name: 'a pin outside the grid',
      file: () => scene('pin2.json', base({ pins: [{ grid: [[0, 7]] }] })),
      message: /^pbdkit: \S*pin2\.json: bodies\[0\]\.pins\[0\]\.grid: \[0, 7\] is outside the 4 × 4 grid/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const file = c.file();
      for (const args of [
        ['simulate', file, '--frames', '2', '--out', join(tmp.dir, 'x.glb')],
        ['info', file],
      ]) {
        const r = await cli(args);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(c.message);
        expect(stackLines(r.stderr)).toEqual([]);
        expect(r.stdout).toBe('');
      }
      const v = await cli(['validate', file]);
      expect(v.code).toBe(2);
      expect(v.stdout).toMatch(/^invalid /);
    });
  }

  it('the installed command exits with code 2 too (bin/pbdkit.js, a real process)', () => {
    const r = pbdkit(['simulate', 'zero.json', '--frames', '2'], tmp.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^pbdkit: \S*zero\.json: invalid scene:\n {2}bodies\[0\]\.density: /);
    expect(stackLines(r.stderr)).toEqual([]);
  });
});

describe('bad usage: exit code 2 with a hint', () => {
  const usage: [string, string[], RegExp][] = [
    [
      'an unknown option',
      ['simulate', 'cloth-flag', '--frame', '3'],
      /unknown option '--frame'\n\(Did you mean --frames\?\)/,
    ],
    [
      'a bad number',
      ['simulate', 'cloth-flag', '--frames', '0'],
      /--frames <n>' argument '0' is invalid\. expected a whole number ≥ 1/,
    ],
    [
      'a fraction',
      ['simulate', 'cloth-flag', '--steps-per-frame', '1.5'],
      /expected a whole number ≥ 1, got "1\.5"/,
    ],
    [
      'an output that is neither .glb nor a folder',
      ['simulate', 'cloth-flag', '--out', 'x.gltf'],
      /--out \S*x\.gltf: is neither a \.glb file nor a folder\n {2}fix: /,
    ],
    [
      '--resume with --restart',
      ['simulate', 'cloth-flag', '--out', 'x.glb', '--resume', '--restart'],
      /cannot be used with option '--restart'/,
    ],
    [
      '--resume without a checkpoint',
      ['simulate', 'cloth-flag', '--out', 'y.glb', '--resume'],
      /\S*y\.glb\.checkpoint: holds no checkpoint to resume from/,
    ],
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['a missing argument', ['info'], /missing required argument 'scene'/],
  ];
  for (const [name, args, message] of usage) {
    it(name, async () => {
      const r = await cli(args.map((a) => (/^[xy]\.(glb|gltf)$/.test(a) ? join(tmp.dir, a) : a)));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(stackLines(r.stderr)).toEqual([]);
    });
  }

  it('--help and --version exit 0 (bin/pbdkit.js)', () => {
    const h = pbdkit(['--help']);
    expect(h.code).toBe(0);
    for (const cmd of ['simulate', 'info', 'validate', 'scenes'])
      expect(h.stdout).toMatch(new RegExp(`^ {2}${cmd} `, 'm'));
    expect(h.stdout).toMatch(/Exit codes: 0 ok, 1 simulation or output failure, 2 invalid input or usage/);
    const v = pbdkit(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  });

  it('an output that cannot be written is a runtime failure (exit 1) that names the file', () => {
    mkdirSync(join(tmp.dir, 'taken.csv'), { recursive: true });
    const args = ['simulate', join(fixtures, 'freefall.json'), '--frames', '2', '--stats', 'taken.csv', '-q'];
    const r = pbdkit(args, tmp.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^pbdkit: taken\.csv: cannot write the file: a folder has that name \(EISDIR\)\n {2}fix: /,
    );
    expect(stackLines(r.stderr)).toEqual([]);
  });

  it('pbdkit scenes lists the shipped scenes, usable by name', async () => {
    const r = await cli(['scenes', '--json']);
    expect(r.code).toBe(0);
    const names = JSON.parse(r.stdout).map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining(['cloth-bag', 'cloth-flag', 'cloth-tear']));
  });
});
