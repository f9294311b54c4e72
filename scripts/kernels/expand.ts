/**
 * The per-arity helpers of the kernel language (src/kernels/helpers.ts,
 * `Each<T>` and `Vec` lists in src/kernels/dsl.ts): a formula written once
 * over the N particles of a constraint, which the generator unrolls for
 * each call. parseKernel expands every call of such a helper in the
 * definition's source before anything else reads it, so the emitters
 * (emit-js.ts, emit-simd.ts and the lane variants) see the straight-line
 * definition that would have been written by hand, and generate what they
 * generated from it, operation for operation.
 *
 * What a call becomes:
 * - the arguments are names, numbers, particle fields (`d.x`) or list
 *   literals of those (`[a, b, c]`, `[[g0x, g0y, g0z], …]`), so that
 *   pasting them where the parameters stand computes nothing twice;
 * - in the helper, `L[i]` (L a list parameter, i the index of an enclosing
 *   `sum`, `each` or `map` over a list of the same length, or a number) is
 *   the caller's element; `sum(L, (i) => t)` is the flat left-to-right sum
 *   t(0) + t(1) + … (a term that is itself a sum continues the chain, as
 *   when written out), `each(L, (i) => …)` the statements for every i in
 *   order, `map(L, (i) => e)` the list e(0), e(1), …;
 * - an expression helper (one `return` of a number) is its expression,
 *   in parentheses; a statement helper is its statements in place of the
 *   call (its `return;` skips the constraint, as in the definition; its
 *   assignments to a parameter assign the caller's name, the multiplier
 *   λ for one); `const [n0, n1, …] = helper(…)` declares the caller's names
 *   from the helper's `return [e0, e1, …]` or `return map(…)`: a returned
 *   local of the helper is renamed to the caller's name, another value
 *   gives a declarator `n = e`, one `const` per (inner) pattern, so that
 *   `const [[d0x, d0y, d0z], [d1x, …]] = …` gives one statement a vector
 *   (a hole declares nothing: `[[c00, c01], [, c11]]` for a symmetric
 *   matrix); `[[P0, P1], …] = helper(…)` assigns the caller's `let` names,
 *   one statement `P0 = e0;` a name; a `map` inside a returned `map` is a
 *   list literal, so that a helper returns a matrix by rows (matMul);
 *   Other locals of the helper keep their names, and may not be names of
 *   the definition.
 */
import { parse } from '@babel/parser';
import type * as T from '@babel/types';
import type { Helper } from './parse.js';
import { type Edit, fail, isReference, splice, walk } from './walk.js';

/** What a name of a helper stands for: the caller's text, or a list of bindings. */
type Bound = { text: string } | { list: Bound[] } | { index: number; length: number };

const ORDER: Record<string, number> = { '||': 1, '&&': 2, '==': 3, '!=': 3, '===': 3, '!==': 3 };

interface Ctx {
  file: string;
  macros: Map<string, Helper>;
  /** Names the definition uses: a helper's own locals may not be among them. */
  used: Set<string>;
}

/** Whether `h` is a per-arity helper (expanded here) rather than one the emitters inline. */
export function isMacro(fn: T.FunctionDeclaration): boolean {
  const listType = (t: T.TSType | undefined): boolean =>
    t !== undefined &&
    ((t.type === 'TSTypeReference' &&
      t.typeName.type === 'Identifier' &&
      ['Each', 'Vec'].includes(t.typeName.name)) ||
      t.type === 'TSTupleType' ||
      t.type === 'TSArrayType' ||
      (t.type === 'TSTypeOperator' && listType(t.typeAnnotation)));
  const ann = (a: unknown) => (a as T.TSTypeAnnotation | null | undefined)?.typeAnnotation;
  return (
    fn.params.some((p) => 'typeAnnotation' in p && listType(ann(p.typeAnnotation))) ||
    listType(ann(fn.returnType))
  );
}

/**
 * The definition's source with every call of a per-arity helper in the
 * body of `fn` expanded (unchanged when there is none).
 */
export function expandKernel(
  file: string,
  source: string,
  fn: T.FunctionDeclaration,
  helpers: Map<string, Helper>,
): string {
  const macros = new Map([...helpers].filter(([, h]) => h.macro));
  const used = new Set<string>();
  walk(fn, (n) => {
    if (n.type === 'Identifier') used.add(n.name);
    return undefined;
  });
  const ctx: Ctx = { file, macros, used };
  const edits = rewrite(ctx, fn.body, source, new Map(), false);
  if (edits.length === 0) return source;
  return splice(source, 0, source.length, edits);
}

/** The text of `node` (from `src`) with the names of `env` substituted and helper calls expanded. */
function render(ctx: Ctx, node: T.Node, src: string, env: Map<string, Bound>): string {
  return splice(src, node.start!, node.end!, rewrite(ctx, node, src, env, true));
}

function macroCall(ctx: Ctx, e: T.Node | null | undefined): Helper | undefined {
  if (e?.type !== 'CallExpression' || e.callee.type !== 'Identifier') return undefined;
  return ctx.macros.get(e.callee.name);
}

/** The edits that substitute `env` in `node` (a helper's when `helper`) and expand the helper calls below it. */
function rewrite(ctx: Ctx, node: T.Node, src: string, env: Map<string, Bound>, helper: boolean): Edit[] {
  const edits: Edit[] = [];
  walk(node, (n, parent) => {
    if (
      n.type === 'ExpressionStatement' &&
      n.expression.type === 'CallExpression' &&
      n.expression.callee.type === 'Identifier' &&
      n.expression.callee.name === 'each'
    ) {
      const f = n.expression.arguments[1];
      const block = f?.type === 'ArrowFunctionExpression' && f.body.type === 'BlockStatement';
      const parts = unroll(ctx, n.expression, src, env);
      edits.push({ start: n.start!, end: n.end!, text: parts.map((t) => (block ? t : `${t};`)).join('\n') });
      return false;
    }
    if (n.type === 'ExpressionStatement' && macroCall(ctx, n.expression)) {
      const call = n.expression as T.CallExpression;
      edits.push({ start: n.start!, end: n.end!, text: statements(ctx, call, src, env, null) });
      return false;
    }
    if (
      n.type === 'ExpressionStatement' &&
      n.expression.type === 'AssignmentExpression' &&
      n.expression.operator === '=' &&
      n.expression.left.type === 'ArrayPattern' &&
      macroCall(ctx, n.expression.right)
    ) {
      // `[[P0, P1], …] = helper(…)`: the caller's `let` names assigned, one statement a name
      const call = n.expression.right as T.CallExpression;
      const pattern = n.expression.left;
      edits.push({
        start: n.start!,
        end: n.end!,
        text: statements(ctx, call, src, env, { pattern, kind: '' }),
      });
      return false;
    }
    const unpacked = helper ? null : unpack(ctx, n, env);
    if (unpacked !== null) {
      edits.push({ start: n.start!, end: n.end!, text: unpacked });
      return false;
    }
    if (n.type === 'VariableDeclaration' && n.declarations.length === 1) {
      const d = n.declarations[0];
      const list = d.init?.type === 'TSAsExpression' ? d.init.expression : d.init;
      if (d.id.type === 'Identifier' && list?.type === 'ArrayExpression' && n.kind === 'const') {
        // a list of the definition (`const G = [[g0x, g0y, g0z], …] as const`): a name for the helpers' arguments,
        // not a statement (its line goes with it)
        env.set(d.id.name, { list: list.elements.map((e) => listItem(ctx, e, src, env)) });
        let start = n.start!;
        while (start > 0 && (src[start - 1] === ' ' || src[start - 1] === '\t')) start--;
        if (start > 0 && src[start - 1] === '\n') start--;
        edits.push({ start, end: n.end!, text: '' });
        return false;
      }
      if (d.id.type === 'ArrayPattern' && macroCall(ctx, d.init)) {
        const call = d.init as T.CallExpression;
        edits.push({
          start: n.start!,
          end: n.end!,
          text: statements(ctx, call, src, env, { pattern: d.id, kind: n.kind }),
        });
        return false;
      }
    }
    if (n.type === 'CallExpression' && n.callee.type === 'Identifier') {
      const name = n.callee.name;
      if (name === 'sum') {
        edits.push({ start: n.start!, end: n.end!, text: `(${unroll(ctx, n, src, env).join(' + ')})` });
        return false;
      }
      if (name === 'map' && helper) {
        // a list inside a returned list (a matrix by rows): the list literal [e(0), e(1), …]
        edits.push({ start: n.start!, end: n.end!, text: `[${unroll(ctx, n, src, env).join(', ')}]` });
        return false;
      }
      if (name === 'each' || name === 'map') fail(ctx, n, `${name} stands as a statement or is returned`);
      const h = ctx.macros.get(name);
      if (h) {
        const list =
          h.expr?.type === 'ArrayExpression' ||
          (h.expr?.type === 'CallExpression' &&
            h.expr.callee.type === 'Identifier' &&
            h.expr.callee.name === 'map');
        if (!h.expr || list) fail(ctx, n, `${name} is not an expression helper (one return of a number)`);
        const inner = bind(ctx, h, n, src, env);
        edits.push({ start: n.start!, end: n.end!, text: `(${render(ctx, h.expr, h.source, inner)})` });
        return false;
      }
    }
    if (n.type === 'MemberExpression' && n.computed) {
      const b = resolve(ctx, n, env);
      if (b) {
        edits.push({ start: n.start!, end: n.end!, text: textOf(ctx, n, b) });
        return false;
      }
    }
    if (n.type === 'Identifier' && isReference(n, parent) && env.has(n.name)) {
      const b = env.get(n.name)!;
      // a declaration of a returned local names the caller's variable
      edits.push({ start: n.start!, end: n.end!, text: textOf(ctx, n, b) });
    }
    if (n.type === 'VariableDeclarator' && n.id.type === 'Identifier') {
      const b = env.get(n.id.name);
      if (b && 'text' in b) edits.push({ start: n.id.start!, end: n.id.end!, text: b.text });
      else if (helper && ctx.used.has(n.id.name) && !b)
        fail(ctx, n, `a helper's local '${n.id.name}' is also a name of the definition: rename one`);
    }
    return undefined;
  });
  return edits;
}

/**
 * A definition's `const [B0, B1, …] = B;` (a record) or `[P0, P1, …] = ps;`
 * (a JsOnly array, in a 'defer' block) written out at constant indices:
 * `const B0 = B[0], B1 = B[1], …;`, `P0 = ps[0]; P1 = ps[1]; …`; null for
 * another statement.
 */
function unpack(ctx: Ctx, n: T.Node, env: Map<string, Bound>): string | null {
  const names = (p: T.ArrayPattern) =>
    p.elements.map((e) => (e?.type === 'Identifier' ? e.name : fail(ctx, p, 'unpack into names')));
  if (n.type === 'VariableDeclaration' && n.declarations.length === 1) {
    const d = n.declarations[0];
    if (d.id.type !== 'ArrayPattern' || d.init?.type !== 'Identifier' || env.has(d.init.name)) return null;
    const r = d.init.name;
    return `${n.kind} ${names(d.id)
      .map((x, k) => `${x} = ${r}[${k}]`)
      .join(', ')};`;
  }
  if (n.type !== 'ExpressionStatement' || n.expression.type !== 'AssignmentExpression') return null;
  const e = n.expression;
  if (e.operator !== '=' || e.left.type !== 'ArrayPattern' || e.right.type !== 'Identifier') return null;
  if (env.has(e.right.name))
    return fail(ctx, n, 'a list of the definition is passed to helpers, not unpacked');
  const r = e.right.name;
  return names(e.left)
    .map((x, k) => `${x} = ${r}[${k}];`)
    .join('\n');
}

function textOf(ctx: Ctx, n: T.Node, b: Bound): string {
  if ('text' in b) return /^[\w$.]+$/.test(b.text) ? b.text : `(${b.text})`;
  if ('index' in b) return String(b.index);
  return fail(ctx, n, 'a list is read by index, or passed on to a helper');
}

/** The binding of `X[k]…` (X a list of `env`), or undefined when X is not one. */
function resolve(ctx: Ctx, n: T.Node, env: Map<string, Bound>): Bound | undefined {
  if (n.type === 'Identifier') return env.get(n.name);
  if (n.type !== 'MemberExpression' || !n.computed) return undefined;
  const list = resolve(ctx, n.object, env);
  if (!list) return undefined;
  if ('index' in list) return fail(ctx, n, 'only a list or an array is indexed');
  let k: number;
  const p = n.property;
  // the caller's array at a computed index (a record field `rec[o | 5]` of a row macro): its names substituted
  const atIndex = p.type === 'Identifier' && 'index' in (env.get(p.name) ?? {});
  if ('text' in list && p.type !== 'NumericLiteral' && !atIndex) return undefined;
  if (p.type === 'NumericLiteral') k = p.value;
  else if (p.type === 'Identifier' && env.get(p.name) && 'index' in env.get(p.name)!) {
    const i = env.get(p.name) as { index: number; length: number };
    if ('list' in list && list.list.length !== i.length)
      fail(
        ctx,
        n,
        `a list of ${list.list.length} indexed over a list of ${i.length}: one length per constraint`,
      );
    k = i.index;
  } else return fail(ctx, n, 'a list is indexed by a number or the index of sum, each or map');
  if (!('list' in list)) return { text: `${textOf(ctx, n, list)}[${k}]` }; // the caller's array, at a constant index
  if (!(k >= 0 && k < list.list.length)) fail(ctx, n, `index ${k} of a list of ${list.list.length}`);
  return list.list[k];
}

/** The terms of `sum`, `each` or `map(L, (i) => body)`: the body for each i, rendered. */
function unroll(ctx: Ctx, call: T.CallExpression, src: string, env: Map<string, Bound>): string[] {
  const [l, f] = call.arguments;
  const list = l ? resolve(ctx, l, env) : undefined;
  if (!list || !('list' in list)) return fail(ctx, call, 'the first argument is a list');
  if (f?.type !== 'ArrowFunctionExpression' || f.params.length !== 1 || f.params[0].type !== 'Identifier')
    return fail(ctx, call, 'the second argument is (i) => …');
  const i = f.params[0].name;
  return list.list.map((_, k) => {
    const inner = new Map(env).set(i, { index: k, length: list.list.length });
    if (f.body.type !== 'BlockStatement') {
      const t = render(ctx, f.body, src, inner);
      // a term that binds looser than + keeps its parentheses
      const loose =
        f.body.type === 'ConditionalExpression' ||
        f.body.type === 'LogicalExpression' ||
        (f.body.type === 'BinaryExpression' && ORDER[f.body.operator] !== undefined);
      return loose ? `(${t})` : t;
    }
    return f.body.body.map((s) => render(ctx, s, src, inner)).join('\n');
  });
}

/** An element of a list literal: a name, a number, a field, or a list of them. */
function listItem(ctx: Ctx, e: T.Node | null, src: string, env: Map<string, Bound>): Bound {
  if (e?.type === 'ArrayExpression') return { list: e.elements.map((x) => listItem(ctx, x, src, env)) };
  if (e?.type === 'Identifier' && env.has(e.name)) return env.get(e.name)!;
  const plain =
    e?.type === 'Identifier' ||
    e?.type === 'NumericLiteral' ||
    (e?.type === 'MemberExpression' && !e.computed && e.object.type === 'Identifier') ||
    (e?.type === 'MemberExpression' && resolve(ctx, e, env) !== undefined);
  if (!plain)
    return fail(ctx, e, 'a list holds names, numbers, fields or lists of them (a helper pastes them)');
  return { text: render(ctx, e, src, env) };
}

/** Binds the parameters of `h` to the arguments of `call` (names, numbers, fields or lists of them). */
function bind(
  ctx: Ctx,
  h: Helper,
  call: T.CallExpression,
  src: string,
  env: Map<string, Bound>,
): Map<string, Bound> {
  if (call.arguments.length !== h.params.length)
    fail(ctx, call, `${h.name} takes ${h.params.length} arguments`);
  return new Map(h.params.map((p, k) => [p.name, listItem(ctx, call.arguments[k], src, env)]));
}

/**
 * The statements a call of a statement helper stands for, or those of
 * `const [n0, …] = helper(…)` when `decl` is the pattern.
 */
function statements(
  ctx: Ctx,
  call: T.CallExpression,
  src: string,
  env: Map<string, Bound>,
  decl: { pattern: T.ArrayPattern; kind: string } | null,
): string {
  const h = ctx.macros.get((call.callee as T.Identifier).name)!;
  const inner = bind(ctx, h, call, src, env);
  const body = h.body.body;
  const last = body.at(-1);
  const ret = last?.type === 'ReturnStatement' && last.argument ? last.argument : null;
  if (decl && !ret) fail(ctx, call, `${h.name} returns no list to declare`);
  if (!decl && ret) fail(ctx, call, `${h.name} returns a value: declare it`);
  const pending: { pattern: T.Node; value: string }[] = [];
  if (decl && ret) {
    // the caller's names (mapped through the caller's own bindings when the caller is a helper)
    const callerName = (p: T.Node): string => {
      if (p.type !== 'Identifier') return fail(ctx, p, 'declare names');
      const b = env.get(p.name);
      return b && 'text' in b ? b.text : p.name;
    };
    const values: { node: T.Node; env: Map<string, Bound> }[] =
      ret.type === 'ArrayExpression'
        ? ret.elements.map((e) => ({ node: e!, env: inner }))
        : ret.type === 'CallExpression' && ret.callee.type === 'Identifier' && ret.callee.name === 'map'
          ? mapped(ctx, ret, inner)
          : fail(ctx, ret, 'a list helper returns [e0, e1, …] or map(L, (i) => …)');
    if (values.length !== decl.pattern.elements.length)
      fail(ctx, decl.pattern, `${h.name} gives ${values.length} values`);
    values.forEach((v, k) => {
      const p = decl.pattern.elements[k];
      // a returned local takes the caller's name (a hole leaves it the helper's)
      if (v.node.type === 'Identifier' && declares(body, v.node.name)) {
        if (decl.kind === '')
          fail(ctx, call, `${h.name} declares what it returns: declare it, not assign it`);
        if (p) inner.set(v.node.name, { text: callerName(p) });
        return;
      }
      if (p) pending.push({ pattern: p, value: render(ctx, v.node, h.source, v.env) });
    });
  }
  const out = body.filter((s) => s !== last || !ret).map((s) => render(ctx, s, h.source, inner));
  if (decl && pending.length > 0) out.push(...declarations(ctx, decl.kind, pending, env));
  return out.join('\n');
}

/** The elements of `map(L, (i) => e)`: e for each i, with its bindings. */
function mapped(
  ctx: Ctx,
  call: T.CallExpression,
  env: Map<string, Bound>,
): { node: T.Node; env: Map<string, Bound> }[] {
  const [l, f] = call.arguments;
  const list = l ? resolve(ctx, l, env) : undefined;
  if (!list || !('list' in list)) return fail(ctx, call, 'the first argument is a list');
  if (
    f?.type !== 'ArrowFunctionExpression' ||
    f.params[0]?.type !== 'Identifier' ||
    f.body.type === 'BlockStatement'
  )
    return fail(ctx, call, 'map(L, (i) => expression)');
  const i = f.params[0].name;
  return list.list.map((_, k) => ({
    node: f.body,
    env: new Map(env).set(i, { index: k, length: list.list.length }),
  }));
}

/** `const n0 = e0, n1 = e1, …;` for a flat pattern, one such statement per inner pattern otherwise. */
function declarations(
  ctx: Ctx,
  kind: string,
  items: { pattern: T.Node; value: string }[],
  env: Map<string, Bound>,
): string[] {
  const name = (p: T.Node): string => {
    if (p.type !== 'Identifier') return fail(ctx, p, 'declare names');
    const b = env.get(p.name);
    return b && 'text' in b ? b.text : p.name;
  };
  if (items.every((it) => it.pattern.type === 'Identifier')) {
    // kind '': an assignment to the caller's names, one statement each
    if (kind === '') return items.map((it) => `${name(it.pattern)} = ${it.value};`);
    return [`${kind} ${items.map((it) => `${name(it.pattern)} = ${it.value}`).join(', ')};`];
  }
  return items.flatMap((it) => {
    if (it.pattern.type !== 'ArrayPattern') return fail(ctx, it.pattern, 'declare names, or lists of names');
    // the value of an inner pattern is a list literal: [e0, e1, …]
    const e = parse(`(${it.value})`, { plugins: ['typescript'] }).program.body[0];
    const arr = e?.type === 'ExpressionStatement' ? e.expression : null;
    if (arr?.type !== 'ArrayExpression' || arr.elements.length !== it.pattern.elements.length)
      return fail(ctx, it.pattern, `a list of ${it.pattern.elements.length} names takes a list of as many`);
    const text = `(${it.value})`;
    return declarations(
      ctx,
      kind,
      // a hole leaves that element undeclared (the lower triangle of a symmetric matrix)
      it.pattern.elements.flatMap((p, k) =>
        p ? [{ pattern: p, value: text.slice(arr.elements[k]!.start!, arr.elements[k]!.end!) }] : [],
      ),
      env,
    );
  });
}

/** Whether the statements declare `name` at their top level. */
function declares(body: T.Statement[], name: string): boolean {
  return body.some(
    (s) =>
      s.type === 'VariableDeclaration' &&
      s.declarations.some((d) => d.id.type === 'Identifier' && d.id.name === name),
  );
}
