/**
 * Hostile scene files: seeded mutations of the shipped scenes and of mesh
 * files (OBJ, TetGen, Gmsh) in the ways real files go wrong — deep nesting,
 * huge or negative counts, enormous numbers, wrong types, truncated or random
 * bytes, broken meshes — and the classification of what the loader does with
 * each. Used by test/fuzz-scenes.test.ts (a few hundred inputs, in-process)
 * and scripts/fuzz-scenes.ts (more, each in a worker with a time limit).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatGmsh } from '../../src/io/gmsh.js';
import { formatObj } from '../../src/io/obj.js';
import { formatTetGen } from '../../src/io/tetgen.js';
import { gridMesh, icosphere } from '../../src/mesh/generators.js';
import { tetBox } from '../../src/softbody/tet-mesh.js';
import { rng } from '../helpers.js';

/** One input: a scene's text and the files it may read. */
export interface FuzzInput {
  id: number;
  /** The scene it was made from. */
  base: string;
  /** The kind of mutation (deep-nesting, huge-count, …). */
  kind: string;
  /** What was changed, for reports. */
  what: string;
  file: string;
  text: string;
  files: Record<string, string>;
}

interface Base {
  name: string;
  text: string;
  files: Record<string, string>;
}

const scenesDir = fileURLToPath(new URL('../../scenes/', import.meta.url));

/** The shipped scenes, plus small scenes that read mesh files (none of the shipped ones does). */
export function baseScenes(): Base[] {
  const out: Base[] = readdirSync(scenesDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), text: readFileSync(scenesDir + f, 'utf8'), files: {} }));
  const grid = gridMesh({ width: 1, height: 1, cols: 8, rows: 8 });
  const ball = icosphere(0.3, 1);
  const box = tetBox({ size: [0.4, 0.4, 0.4], resolution: [3, 3, 3], origin: [-0.2, 0.5, -0.2] });
  const tg = formatTetGen(box);
  const files = {
    'sail.obj': formatObj(grid.positions, grid.triangles),
    'ball.obj': formatObj(ball.positions, ball.triangles),
    'cube.node': tg.node,
    'cube.ele': tg.ele,
    'cube.msh': formatGmsh(box, '4.1'),
    'cube2.msh': formatGmsh(box, '2.2'),
  };
  const scene = (title: string, bodies: unknown[], colliders: unknown[] = [{ type: 'plane' }]) =>
    JSON.stringify({ title, family: 'fuzz', world: { substeps: 4 }, bodies, colliders }, null, 2);
  out.push(
    {
      name: 'file-cloth',
      text: scene('cloth from an OBJ', [
        {
          type: 'cloth',
          name: 'sail',
          mesh: { file: 'sail.obj' },
          transform: { translate: [0, 1, 0] },
          pins: [{ vertices: [0, 7] }],
        },
      ]),
      files,
    },
    {
      name: 'file-tetgen',
      text: scene('soft body from TetGen', [
        { type: 'softbody', tetMesh: { tetgen: { node: 'cube.node', ele: 'cube.ele' } } },
      ]),
      files,
    },
    {
      name: 'file-gmsh',
      text: scene('soft bodies from Gmsh', [
        { type: 'softbody', tetMesh: { gmsh: 'cube.msh' } },
        { type: 'softbody', tetMesh: { gmsh: 'cube2.msh' }, transform: { translate: [1, 0, 0] } },
      ]),
      files,
    },
    {
      name: 'file-collider',
      text: scene(
        'cloth on an OBJ collider',
        [
          {
            type: 'cloth',
            mesh: { grid: { width: 1, height: 1, cols: 6, rows: 6 } },
            transform: { translate: [0, 0.8, 0] },
          },
        ],
        [{ type: 'mesh', mesh: { file: 'ball.obj' }, resolution: 16, position: [0, 0.3, 0] }],
      ),
      files,
    },
  );
  return out;
}

// ---- paths into a JSON value -------------------------------------------------

type Key = string | number;

/** Every path of a JSON value (iteratively: no recursion). */
function paths(root: unknown): Key[][] {
  const out: Key[][] = [];
  const stack: [unknown, Key[]][] = [[root, []]];
  while (stack.length) {
    const [v, p] = stack.pop()!;
    out.push(p);
    if (Array.isArray(v)) for (let k = 0; k < v.length; k++) stack.push([v[k], [...p, k]]);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push([x, [...p, k]]);
  }
  return out;
}

function get(root: unknown, p: Key[]): unknown {
  let v = root as Record<Key, unknown>;
  for (const k of p) v = v[k] as Record<Key, unknown>;
  return v;
}

/** Replaces the value at p (the root when p is empty) and returns the new root. */
function set(root: unknown, p: Key[], value: unknown): unknown {
  if (p.length === 0) return value;
  (get(root, p.slice(0, -1)) as Record<Key, unknown>)[p[p.length - 1]] = value;
  return root;
}

const show = (p: Key[]) => p.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('') || '(root)';

// ---- mutations ---------------------------------------------------------------

const hugeCounts = [-1, -7, 0, 2 ** 31, 2 ** 32 + 3, 1e6, 3e7, 1e9, 2 ** 53, 1e12, 1e21];
const enormous = [1e300, -1e300, 1.7e308, -1.7e308, 1e15, -1e15, 1e-300, 5e-324, 1e30, 1e100];
const wrongTypes: unknown[] = ['x', '', null, true, false, [], {}, [1, 2], { a: 1 }, 0, -1, 0.5];

/** A deeply nested value: `levels` arrays or objects around `inner`, as text. */
function nested(levels: number, r: () => number, close = true): string {
  const asObject = r() < 0.5;
  const open = asObject ? '{"a":' : '[';
  const end = asObject ? '}' : ']';
  return open.repeat(levels) + (close ? `1${end.repeat(levels)}` : '1');
}

function mutateJson(base: Base, r: () => number, kind: string): { text: string; what: string } {
  const json = JSON.parse(base.text);
  const all = paths(json);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const numbers = all.filter((p) => typeof get(json, p) === 'number');
  const ints = numbers.filter((p) => Number.isInteger(get(json, p)));
  const arrays = all.filter((p) => Array.isArray(get(json, p)) && (get(json, p) as unknown[]).length > 0);
  switch (kind) {
    case 'deep-nesting': {
      const p = pick(all);
      const levels = pick([5000, 20000, 100000]);
      const marker = '"__deep__"';
      const text = JSON.stringify(set(json, p, '__deep__'));
      return {
        text: text.replace(marker, nested(levels, r, r() < 0.8)),
        what: `${show(p)} ← ${levels} levels`,
      };
    }
    case 'huge-count': {
      const p = pick(ints.length ? ints : all);
      const v = pick(hugeCounts);
      return { text: JSON.stringify(set(json, p, v)), what: `${show(p)} ← ${v}` };
    }
    case 'enormous-number': {
      const p = pick(numbers.length ? numbers : all);
      const v = pick(enormous);
      return { text: JSON.stringify(set(json, p, v)), what: `${show(p)} ← ${v}` };
    }
    case 'scaled-number': {
      // a plausible number made 10^3…10^8 times larger (or smaller)
      const p = pick(numbers.length ? numbers : all);
      const f = 10 ** ((r() < 0.7 ? 1 : -1) * (3 + Math.floor(r() * 6)));
      const v = (get(json, p) as number) * f || f;
      return { text: JSON.stringify(set(json, p, v)), what: `${show(p)} × ${f}` };
    }
    case 'wrong-type': {
      const p = pick(all);
      const v = pick(wrongTypes);
      return { text: JSON.stringify(set(json, p, v)), what: `${show(p)} ← ${JSON.stringify(v)}` };
    }
    case 'huge-array': {
      const p = pick(arrays.length ? arrays : all);
      const a = get(json, p);
      const n = pick([1000, 20000, 200000]);
      const v = Array.isArray(a) ? Array.from({ length: n }, (_, k) => a[k % a.length]) : a;
      return { text: JSON.stringify(set(json, p, v)), what: `${show(p)} repeated to ${n}` };
    }
    case 'truncated': {
      const at = Math.floor(r() * base.text.length);
      return { text: base.text.slice(0, at), what: `cut at ${at}` };
    }
    case 'random-bytes': {
      const chars = base.text.split('');
      const n = 1 + Math.floor(r() * 8);
      for (let k = 0; k < n; k++)
        chars[Math.floor(r() * chars.length)] = String.fromCharCode(Math.floor(r() * 256));
      return { text: chars.join(''), what: `${n} bytes replaced` };
    }
    default: {
      // noise: random printable text
      const n = Math.floor(r() * 400);
      let s = '';
      for (let k = 0; k < n; k++) s += String.fromCharCode(32 + Math.floor(r() * 95));
      return { text: s, what: `${n} random characters` };
    }
  }
}

/** Breaks a mesh file in one of the ways real files break. */
function mutateMesh(name: string, text: string, r: () => number): { text: string; what: string } {
  const lines = text.split('\n');
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const numbered = lines.map((l, k) => [l, k] as const).filter(([l]) => /\d/.test(l));
  const k = numbered.length ? pick(numbered)[1] : 0;
  const tokens = (lines[k] ?? '').split(' ');
  const j = Math.floor(r() * tokens.length);
  const mode = pick([
    'nan',
    'huge',
    'negative',
    'index',
    'truncate',
    'bytes',
    'duplicate-face',
    'degenerate',
    'drop-token',
    'header-count',
  ]);
  switch (mode) {
    case 'nan':
      tokens[j] = pick(['NaN', 'nan', 'inf', '-Infinity', '1e999', 'x']);
      break;
    case 'huge':
      tokens[j] = pick(['1e300', '-1e300', '1e30', '99999999999', '4294967296']);
      break;
    case 'negative':
      tokens[j] = pick(['-1', '-99999', '-0']);
      break;
    case 'index':
      tokens[j] = String(Math.floor(r() * 10000) + 1);
      break;
    case 'truncate': {
      const at = Math.floor(r() * text.length);
      return { text: text.slice(0, at), what: `${name} cut at ${at}` };
    }
    case 'bytes': {
      const chars = text.split('');
      for (let m = 0; m < 4; m++)
        chars[Math.floor(r() * chars.length)] = String.fromCharCode(Math.floor(r() * 256));
      return { text: chars.join(''), what: `${name}: 4 bytes replaced` };
    }
    case 'duplicate-face': {
      const faces = lines.filter((l) => /^f /.test(l));
      if (faces.length)
        return { text: `${text}${pick(faces)}\n${pick(faces)}\n`, what: `${name}: faces repeated` };
      tokens[j] = '0';
      break;
    }
    case 'degenerate': {
      const faces = lines.map((l, m) => [l, m] as const).filter(([l]) => /^f /.test(l));
      if (faces.length) {
        const [l, m] = pick(faces);
        const t = l.split(' ');
        t[3] = t[1];
        lines[m] = t.join(' ');
        return { text: lines.join('\n'), what: `${name}:${m + 1} a face repeats a vertex` };
      }
      tokens[j] = tokens[0];
      break;
    }
    case 'drop-token':
      tokens.splice(j, 1);
      break;
    default: {
      // the first line with a count says there are far more elements than listed
      const h = lines.findIndex((l) => /^\d+( |$)/.test(l));
      if (h >= 0) {
        const t = lines[h].split(' ');
        t[0] = pick(['1000000000', '2147483648', '-5', '0', '9007199254740993']);
        lines[h] = t.join(' ');
        return { text: lines.join('\n'), what: `${name}:${h + 1} count ← ${t[0]}` };
      }
      tokens[j] = '1e9';
    }
  }
  lines[k] = tokens.join(' ');
  return { text: lines.join('\n'), what: `${name}:${k + 1} (${mode})` };
}

const jsonKinds = [
  'deep-nesting',
  'huge-count',
  'huge-count',
  'enormous-number',
  'enormous-number',
  'scaled-number',
  'wrong-type',
  'wrong-type',
  'huge-array',
  'truncated',
  'random-bytes',
  'noise',
] as const;

/** `count` inputs from `seed`: about one in five breaks a mesh file, the rest the scene's JSON. */
export function fuzzInputs(seed: number, count: number, bases = baseScenes()): FuzzInput[] {
  const r = rng(seed);
  const withFiles = bases.filter((b) => Object.keys(b.files).length > 0);
  const out: FuzzInput[] = [];
  for (let id = 0; id < count; id++) {
    if (r() < 0.2) {
      const base = withFiles[Math.floor(r() * withFiles.length)];
      const used = Object.keys(base.files).filter((f) => base.text.includes(`"${f}"`));
      const f = used[Math.floor(r() * used.length)];
      const m = mutateMesh(f, base.files[f], r);
      out.push({
        id,
        base: base.name,
        kind: 'broken-mesh',
        what: m.what,
        file: `${base.name}.json`,
        text: base.text,
        files: { ...base.files, [f]: m.text },
      });
    } else {
      const base = bases[Math.floor(r() * bases.length)];
      const kind = jsonKinds[Math.floor(r() * jsonKinds.length)];
      const m = mutateJson(base, r, kind);
      out.push({ id, base: base.name, kind, file: `${base.name}.json`, ...m, files: base.files });
    }
  }
  return out;
}

// ---- outcomes ----------------------------------------------------------------

/** The top-level keys of a scene (from its JSON schema, so new sections count): a located error's place starts with one of them. */
const sceneKeys: string[] = Object.keys(
  (
    JSON.parse(readFileSync(new URL('../../schema/scene.schema.json', import.meta.url), 'utf8')) as {
      properties: Record<string, unknown>;
    }
  ).properties,
);

/**
 * Whether an error's place (PbdError.where, with the scene file first) is a
 * JSON path in the scene — `bodies[0].mesh…`, `(root)` — or a line and
 * column of the scene file (a JSON syntax error).
 */
export function hasJsonPath(where: string, file: string, issues?: { path: string }[]): boolean {
  if (issues) return issues.length > 0 && issues.every((i) => i.path === '' || located(i.path));
  if (new RegExp(`^${escapeRegExp(file)}:\\d+:\\d+$`).test(where)) return true;
  const rest = where.startsWith(`${file}: `) ? where.slice(file.length + 2) : where;
  return located(rest);
}

function located(path: string): boolean {
  const head = /^[$A-Za-z]+/.exec(path)?.[0];
  return head !== undefined && sceneKeys.includes(head) && /^[$A-Za-z]+($|[[.]| \()/.test(path);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What the loader did with an input. */
export type OutcomeClass =
  | 'rejected with a path'
  | 'rejected without a path'
  | 'accepted'
  | 'accepted, then NaN'
  | 'crash'
  | 'hang';

export interface Outcome {
  cls: OutcomeClass;
  /** PbdError code, or the exception's name. */
  code?: string;
  message?: string;
  /** For accepted scenes: particles and constraints built. */
  particles?: number;
  constraints?: number;
}

/** Loads an input (with `options`, e.g. limits) and steps it `steps` times; classifies the result. */
export function runInput(
  input: FuzzInput,
  load: (
    text: string,
    options: Record<string, unknown>,
  ) => { world: import('../../src/core/world.js').World },
  options: Record<string, unknown> = {},
  steps = 2,
): Outcome {
  let world: import('../../src/core/world.js').World;
  try {
    world = load(input.text, {
      ...options,
      file: input.file,
      readFile: (p: string) => {
        const f = input.files[p];
        if (f === undefined) throw new Error(`no file '${p}'`);
        return f;
      },
    }).world;
  } catch (e) {
    const err = e as Error & { code?: string; where?: string; issues?: { path: string }[] };
    const message = String(err?.message ?? err)
      .split('\n')[0]
      .slice(0, 300);
    if (err?.name !== 'PbdError' || typeof err.where !== 'string')
      return { cls: 'crash', code: err?.name ?? typeof e, message };
    const ok = hasJsonPath(err.where, input.file, err.code === 'scene/invalid' ? err.issues : undefined);
    return { cls: ok ? 'rejected with a path' : 'rejected without a path', code: err.code, message };
  }
  const particles = world.store.count;
  const constraints = world.constraintCount();
  try {
    for (let s = 0; s < steps; s++) world.step();
  } catch (e) {
    const err = e as Error;
    return { cls: 'crash', code: `step: ${err?.name}`, message: String(err?.message).slice(0, 300) };
  }
  const x = world.store.x;
  let finite = true;
  for (let i = 0; i < 3 * world.store.count; i++) if (!Number.isFinite(x[i])) finite = false;
  const nan = !finite || world.stats.recoveries > 0;
  return { cls: nan ? 'accepted, then NaN' : 'accepted', particles, constraints };
}
