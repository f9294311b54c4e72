/**
 * Reads a kernel definition (`src/**\/*.kernel.ts`, the language of
 * src/kernels/dsl.ts): the exported function, its parameters classified by
 * their declared types, the SIMD specialisations (`export const simd`), the
 * file's other imports (for the JavaScript output). Parsing is @babel/parser
 * with its TypeScript plugin (TypeScript 7's own API is an unstable client
 * of the native compiler, which this small language does not need).
 */
import { parse } from '@babel/parser';
import type * as T from '@babel/types';
import { expandKernel, isMacro } from './expand.js';
import { fail } from './walk.js';

export { fail, KernelError } from './walk.js';

export type ParamKind =
  | 'particle'
  | 'multiplier'
  | 'scalar'
  | 'record'
  | 'uniform'
  | 'flag'
  | 'int'
  | 'index'
  | 'jsonly';

export interface Param {
  name: string;
  kind: ParamKind;
  /** Record length (record). */
  stride: number;
  /** TypeScript type of a JsOnly parameter, as written. */
  tsType: string;
}

export type Literal = number | boolean | string | null;

/** A helper of the kernel language (src/kernels/helpers.ts), inlined where it is called. */
export interface Helper {
  file: string;
  source: string;
  name: string;
  params: { name: string; particle: boolean }[];
  /** The returned expression of an expression helper; null for a statement helper. */
  expr: T.Expression | null;
  body: T.BlockStatement;
  /**
   * A per-arity helper (a parameter or the result is a list: `Each<T>`,
   * `Vec`), expanded in the definition's source before it is read
   * (scripts/kernels/expand.ts); the others the emitters inline.
   */
  macro: boolean;
}

export interface KernelDef {
  /** The definition's file (relative to the repository root). */
  file: string;
  source: string;
  name: string;
  /** The JSDoc comment of the function, as written. */
  doc: string;
  params: Param[];
  particles: Param[];
  body: T.BlockStatement;
  /** Uniform parameters fixed in the SIMD kernel (export const simd = { … }); null: no SIMD kernel. */
  simd: Map<string, Literal> | null;
  /** Whether the body has a 'defer' block (the SIMD kernel lists elements for the JavaScript kernel). */
  defers: boolean;
  /** The file's imports other than the kernel language's, as written. */
  imports: string[];
  /** The helpers the definition may call, by name. */
  helpers: Map<string, Helper>;
  /** The definition's geometry function (export const geometry = { … }), or null. */
  geometry: Geometry | null;
  /**
   * Whether the definition has an f32 mode (`export const f32 = true`): an
   * f32x4 kernel on blocked lanes and its JavaScript twin (JS_F32), with
   * the `simd` specialisations of the f64x2 kernel.
   */
  f32: boolean;
  /**
   * Uniforms fixed in the f32 mode's kernels only (F32X4_MODE, JS_F32), over the `simd` ones (`export
   * const f32 = { name: literal }`, which also means f32 = true; each name
   * must be fixed by `simd` as well, so that the f64x2 kernel folds it too
   * and the kernels' parameter lists stay the same): a branch of the
   * definition that only the f32 mode takes (dihedral bending's rotation
   * by the rest angle).
   */
  f32Fixed: Map<string, Literal>;
  /**
   * Groups of four per iteration of the fused f32x4 loop (`export const
   * interleave = 2`; 1 without it): their statements interleaved
   * (scripts/kernels/interleave.ts), the same bits.
   */
  interleave: number;
}

/**
 * A function generated from the geometric part of a definition (`export
 * const geometry = { name, out, value, invalid }`): the statements of the
 * body up to the declaration of `value` that read particle positions only
 * (not inverse masses, per-constraint data, multipliers or uniforms), as
 * `name(p, a, b, …, g)` over positions p and particle indices, which writes
 * the names `out` to g[0 …] (a name may be negated: '-h2x') and returns `value`, or `invalid` where a guard
 * of those statements skips the constraint. What the projection computes
 * from the positions is thus also a function that tests and tools call
 * (dihedral bending's angle and gradients), from the same source.
 */
export interface Geometry {
  name: string;
  out: string[];
  value: string;
  invalid: number;
  /** The JSDoc comment of the declaration, as written. */
  doc: string;
  node: T.Node;
}

/** The helpers of a helper file (src/kernels/helpers.ts): every exported function. */
export function parseHelpers(file: string, source: string): Map<string, Helper> {
  const ast = parse(source, { sourceType: 'module', plugins: ['typescript'] });
  const where = { file };
  const out = new Map<string, Helper>();
  for (const st of ast.program.body) {
    if (st.type !== 'ExportNamedDeclaration' || st.declaration?.type !== 'FunctionDeclaration') continue;
    const fn = st.declaration;
    if (!fn.id) continue;
    const params = fn.params.map((p) => {
      if (p.type !== 'Identifier') fail(where, p, 'helper parameters are names');
      const t = p.typeAnnotation?.type === 'TSTypeAnnotation' ? p.typeAnnotation.typeAnnotation : null;
      const particle =
        t?.type === 'TSTypeReference' && t.typeName.type === 'Identifier' && t.typeName.name === 'Particle';
      return { name: p.name, particle };
    });
    const only = fn.body.body.length === 1 ? fn.body.body[0] : null;
    const expr = only?.type === 'ReturnStatement' && only.argument ? only.argument : null;
    const macro = isMacro(fn);
    if (!macro) walkHelper(where, fn.body, expr !== null);
    out.set(fn.id.name, { file, source, name: fn.id.name, params, expr, body: fn.body, macro });
  }
  return out;
}

/** A statement helper only assigns (no declarations, tests or returns: the caller's names stay its own). */
function walkHelper(where: { file: string }, body: T.BlockStatement, isExpr: boolean): void {
  if (isExpr) return;
  for (const st of body.body) {
    if (st.type !== 'ExpressionStatement' || st.expression.type !== 'AssignmentExpression')
      fail(where, st, 'a statement helper is a list of assignments');
  }
}

const KINDS: Record<string, ParamKind> = {
  Particle: 'particle',
  Multiplier: 'multiplier',
  PerConstraint: 'scalar',
  Rec: 'record',
  Uniform: 'uniform',
  Flag: 'flag',
  Int: 'int',
  Index: 'index',
  JsOnly: 'jsonly',
};

/** Whether `s` is the statement `'defer';`. */
export function isDeferDirective(s: T.Statement): boolean {
  return (
    s.type === 'ExpressionStatement' &&
    s.expression.type === 'StringLiteral' &&
    s.expression.value === 'defer'
  );
}

function literalOf(def: { file: string }, e: T.Expression): Literal {
  if (e.type === 'NumericLiteral') return e.value;
  if (e.type === 'BooleanLiteral') return e.value;
  if (e.type === 'StringLiteral') return e.value;
  if (e.type === 'NullLiteral') return null;
  if (e.type === 'UnaryExpression' && e.operator === '-' && e.argument.type === 'NumericLiteral')
    return -e.argument.value;
  return fail(def, e, 'simd specialisations must be literals');
}

export function parseKernel(file: string, source: string, helpers = new Map<string, Helper>()): KernelDef {
  const ast = parse(source, { sourceType: 'module', plugins: ['typescript'] });
  const where = { file };
  let fn: T.FunctionDeclaration | null = null;
  let doc = '';
  let simd: Map<string, Literal> | null = null;
  let geometry: Geometry | null = null;
  let f32 = false;
  const f32Fixed = new Map<string, Literal>();
  let interleave = 1;
  const imports: string[] = [];
  for (const st of ast.program.body) {
    if (st.type === 'ImportDeclaration') {
      const from = st.source.value;
      if (!from.endsWith('kernels/dsl.js') && !from.endsWith('kernels/helpers.js'))
        imports.push(source.slice(st.start!, st.end!));
      continue;
    }
    if (st.type !== 'ExportNamedDeclaration' || !st.declaration) continue;
    const d = st.declaration;
    if (d.type === 'FunctionDeclaration') {
      if (fn) fail(where, d, 'one kernel function per file');
      fn = d;
      const c = st.leadingComments?.[st.leadingComments.length - 1];
      if (c?.type === 'CommentBlock') doc = `/*${c.value}*/`;
    } else if (d.type === 'VariableDeclaration' && d.declarations[0]?.id.type === 'Identifier') {
      const v = d.declarations[0];
      if ((v.id as T.Identifier).name === 'geometry') {
        geometry = parseGeometry(where, v, st.leadingComments);
        continue;
      }
      if ((v.id as T.Identifier).name === 'f32') {
        if (v.init?.type === 'ObjectExpression') {
          f32 = true;
          for (const p of v.init.properties) {
            if (p.type !== 'ObjectProperty' || p.key.type !== 'Identifier')
              fail(where, p, 'f32: name: literal');
            f32Fixed.set(p.key.name, literalOf(where, p.value as T.Expression));
          }
          continue;
        }
        if (v.init?.type !== 'BooleanLiteral') fail(where, v, 'f32 must be true, false or { name: literal }');
        f32 = v.init.value;
        continue;
      }
      if ((v.id as T.Identifier).name === 'interleave') {
        if (v.init?.type !== 'NumericLiteral' || !Number.isInteger(v.init.value) || v.init.value < 1)
          fail(where, v, 'interleave must be a whole number ≥ 1');
        interleave = v.init.value;
        continue;
      }
      if ((v.id as T.Identifier).name !== 'simd') continue;
      if (v.init?.type !== 'ObjectExpression') fail(where, v, 'simd must be an object literal');
      simd = new Map();
      for (const p of v.init.properties) {
        if (p.type !== 'ObjectProperty' || p.key.type !== 'Identifier') fail(where, p, 'simd: name: literal');
        simd.set(p.key.name, literalOf(where, p.value as T.Expression));
      }
    }
  }
  if (!fn?.id) return fail(where, null, 'no exported kernel function');
  for (const k of f32Fixed.keys())
    if (!simd?.has(k)) fail(where, null, `f32: ${k} must also be fixed by \`export const simd\``);
  // the per-arity helpers' calls, unrolled: what follows reads the definition as written out by hand
  const expanded = expandKernel(file, source, fn, helpers);
  if (expanded !== source) return parseKernel(file, expanded, helpers);
  const params: Param[] = [];
  for (const p of fn.params) {
    const group = paramGroup(where, p);
    if (group) {
      params.push(...group);
      continue;
    }
    if (p.type !== 'Identifier' || p.typeAnnotation?.type !== 'TSTypeAnnotation')
      fail(where, p, 'parameters need a type of the kernel language');
    const t = p.typeAnnotation.typeAnnotation;
    if (t.type !== 'TSTypeReference' || t.typeName.type !== 'Identifier' || !KINDS[t.typeName.name])
      fail(where, p, `parameter ${p.name}: its type must be one of ${Object.keys(KINDS).join(', ')}`);
    const kind = KINDS[t.typeName.name];
    let stride = 0;
    let tsType = '';
    const arg = t.typeParameters?.params[0];
    if (kind === 'record') {
      if (arg?.type !== 'TSLiteralType' || arg.literal.type !== 'NumericLiteral')
        fail(where, p, 'Rec<N> needs a number N');
      stride = arg.literal.value;
    }
    if (kind === 'jsonly') {
      if (!arg) fail(where, p, 'JsOnly<T> needs a type');
      tsType = source.slice(arg.start!, arg.end!);
    }
    params.push({ name: p.name, kind, stride, tsType });
  }
  const count = (k: ParamKind) => params.filter((p) => p.kind === k).length;
  if (count('particle') < 1) fail(where, fn, 'a kernel needs at least one Particle');
  if (count('multiplier') !== 1) fail(where, fn, 'a kernel has one Multiplier');
  if (count('scalar') > 1 || count('record') > 1 || count('index') > 1)
    fail(where, fn, 'at most one PerConstraint, one Rec and one Index (the paired layout holds one of each)');
  let defers = false;
  const scan = (n: T.Node): void => {
    if (n.type === 'BlockStatement' && n.body.length > 0 && isDeferDirective(n.body[0])) defers = true;
    for (const k of Object.keys(n) as (keyof T.Node)[]) {
      const v = n[k] as unknown;
      if (Array.isArray(v)) for (const c of v) if (c && typeof c.type === 'string') scan(c);
      if (v && typeof v === 'object' && typeof (v as T.Node).type === 'string' && k !== 'loc')
        scan(v as T.Node);
    }
  };
  scan(fn.body);
  return {
    file,
    source,
    name: fn.id.name,
    doc,
    params,
    particles: params.filter((p) => p.kind === 'particle'),
    body: fn.body,
    simd,
    defers,
    imports,
    helpers,
    geometry,
    f32,
    f32Fixed,
    interleave,
  };
}

/**
 * The parameters of a grouped parameter: the particles as a list,
 * `[a, b, c]: Particles` (or `Each<Particle>`), and the projection rule `{ kp, at, gamma }: Rule`
 * (k′, α̃, γ: three uniforms); null for a single parameter.
 */
function paramGroup(where: { file: string }, p: T.FunctionDeclaration['params'][number]): Param[] | null {
  if (p.type !== 'ArrayPattern' && p.type !== 'ObjectPattern') return null;
  const t = p.typeAnnotation?.type === 'TSTypeAnnotation' ? p.typeAnnotation.typeAnnotation : null;
  const name = t?.type === 'TSTypeReference' && t.typeName.type === 'Identifier' ? t.typeName.name : '';
  const one = (n: string, kind: ParamKind): Param => ({ name: n, kind, stride: 0, tsType: '' });
  if (p.type === 'ArrayPattern') {
    const arg = t?.type === 'TSTypeReference' ? t.typeParameters?.params[0] : undefined;
    const each =
      name === 'Each' &&
      arg?.type === 'TSTypeReference' &&
      (arg.typeName as T.Identifier).name === 'Particle';
    if (name !== 'Particles' && !each)
      fail(where, p, 'a list of parameters is the particles: [a, b, …]: Particles');
    return p.elements.map((e) =>
      e?.type === 'Identifier' ? one(e.name, 'particle') : fail(where, e, 'a particle is a name'),
    );
  }
  const keys = p.properties.map((q) =>
    q.type === 'ObjectProperty' && q.shorthand && q.key.type === 'Identifier' ? q.key.name : '',
  );
  if (name !== 'Rule' || keys.join() !== 'kp,at,gamma') fail(where, p, 'the rule is { kp, at, gamma }: Rule');
  return keys.map((k) => one(k, 'uniform'));
}

function parseGeometry(
  where: { file: string },
  v: T.VariableDeclarator,
  comments: T.Comment[] | null | undefined,
): Geometry {
  if (v.init?.type !== 'ObjectExpression') fail(where, v, 'geometry must be an object literal');
  const g: Partial<Geometry> = { node: v };
  for (const p of v.init.properties) {
    if (p.type !== 'ObjectProperty' || p.key.type !== 'Identifier') fail(where, p, 'geometry: name: value');
    const val = p.value;
    if (p.key.name === 'out') {
      if (val.type !== 'ArrayExpression') fail(where, val, 'geometry.out: a list of names');
      g.out = val.elements.map((e) => (e?.type === 'StringLiteral' ? e.value : fail(where, e, 'a name')));
    } else if (p.key.name === 'name' || p.key.name === 'value') {
      if (val.type !== 'StringLiteral') fail(where, val, `geometry.${p.key.name}: a string`);
      g[p.key.name] = val.value;
    } else if (p.key.name === 'invalid') {
      const n = literalOf(where, val as T.Expression);
      if (typeof n !== 'number') fail(where, val, 'geometry.invalid: a number');
      g.invalid = n;
    } else fail(where, p, `geometry has name, out, value and invalid, not ${p.key.name}`);
  }
  if (!g.name || !g.out || !g.value || g.invalid === undefined)
    fail(where, v, 'geometry needs name, out, value and invalid');
  const c = comments?.[comments.length - 1];
  g.doc = c?.type === 'CommentBlock' ? `/*${c.value}*/` : '';
  return g as Geometry;
}
