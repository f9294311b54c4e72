/**
 * Row kernels (the language of src/kernels/rows.ts): from one `*.rows.ts`
 * definition, the JavaScript module (`*.generated.ts` beside it) and the
 * AssemblyScript source of its WebAssembly twin.
 *
 * - JavaScript: the definition as written (comments included), less what is
 *   the twin's: `WasmOnly` parameters, `if (WASM)` blocks (an `else` block is
 *   spliced into its place), the row language's imports, `wasmExports`,
 *   `wasmInline` and `variants`; each variant (a function with a `VARIANT.FLAG` on) follows
 *   the function it is made from, its flag tests and `If`/`Unless`
 *   parameters resolved the same way; a variant declared in the definition
 *   (`declare const NAME: typeof f`, so that another function calls it,
 *   typed) goes. The code V8 gets is the hand-written pass's. After the functions, the interface
 *   `NAMEExports` (NAME from the file's name: pair-passes.rows.ts → PairPassesExports) of the
 *   twin's exports as JavaScript calls them, printed from the same parameter lists as the twin, so
 *   that a caller of the instance (src/fluids/wasm.ts FluidWasmExports) is checked against them.
 * - AssemblyScript: the same statements printed from the syntax tree with
 *   every operation parenthesised as parsed (so the operations and their
 *   order are the definition's), `Math.min` / `Math.max` of two integers as
 *   `min<i32>` / `max<i32>`, `JsOnly` parameters left out, `if (WASM)`
 *   blocks spliced in, numbers typed (f64; I32 and loop counters i32), and
 *   array elements turned into loads and stores at byte addresses:
 *   `a[i]` → `load<T>(a + (i << s))`, a record field `a[o | k]` →
 *   `load<f64>(a + (o << 3), 8k)` (a constant offset), `a[i] op= v` →
 *   `store<T>(addr, load<T>(addr) op (v))`.
 */
import { parse } from '@babel/parser';
import type * as T from '@babel/types';

export interface RowsDef {
  /** The definition's file (relative to the repository root). */
  file: string;
  source: string;
  ast: T.File;
  /** The functions the WebAssembly module exports (`export const wasmExports`). */
  exports: string[];
  /** The functions the twin declares `@inline` (`export const wasmInline`): a helper called in a pair loop. */
  inline: string[];
  /** JavaScript functions made from another with a flag on (`export const variants`), with their doc comments. */
  variants: { name: string; of: string; flag: string; doc: string }[];
}

const LANGUAGE = '../kernels/rows.js';

/** The lists of function names a definition declares for the twin (left out of the JavaScript). */
const LISTS = ['wasmExports', 'wasmInline'];

function fail(def: RowsDef, node: T.Node | null | undefined, message: string): never {
  const line = node?.loc?.start.line ?? 0;
  throw new Error(`${def.file}:${line}: ${message}`);
}

/** Parses a row-kernel definition. */
export function parseRows(file: string, source: string): RowsDef {
  const ast = parse(source, { sourceType: 'module', plugins: ['typescript'] });
  const def: RowsDef = { file, source, ast, exports: [], inline: [], variants: [] };
  for (const st of ast.program.body) {
    const d = st.type === 'ExportNamedDeclaration' ? st.declaration : null;
    if (d?.type !== 'VariableDeclaration') continue;
    for (const v of d.declarations) {
      if (v.id.type === 'Identifier' && v.id.name === 'variants') parseVariants(def, v);
      if (v.id.type !== 'Identifier' || !LISTS.includes(v.id.name)) continue;
      const list = v.id.name === 'wasmExports' ? def.exports : def.inline;
      let init = v.init;
      if (init?.type === 'TSAsExpression') init = init.expression;
      if (init?.type !== 'ArrayExpression') fail(def, v, `${v.id.name} must be an array of function names`);
      for (const e of init.elements) {
        if (e?.type !== 'StringLiteral') fail(def, v, `${v.id.name} must be an array of function names`);
        list.push(e.value);
      }
    }
  }
  return def;
}

/** `export const variants = { NAME: { of: 'function', flag: 'FLAG' }, … }`, each with its doc comment. */
function parseVariants(def: RowsDef, v: T.VariableDeclarator): void {
  let init = v.init;
  if (init?.type === 'TSAsExpression') init = init.expression;
  if (init?.type !== 'ObjectExpression') fail(def, v, 'variants must be an object');
  for (const p of init.properties) {
    if (p.type !== 'ObjectProperty' || p.key.type !== 'Identifier' || p.value.type !== 'ObjectExpression')
      fail(def, p, 'a variant is NAME: { of: function, flag: FLAG }');
    const field = (k: string): string => {
      for (const q of (p.value as T.ObjectExpression).properties)
        if (
          q.type === 'ObjectProperty' &&
          q.key.type === 'Identifier' &&
          q.key.name === k &&
          q.value.type === 'StringLiteral'
        )
          return q.value.value;
      return fail(def, p, `the variant has no ${k}`);
    };
    const doc = p.leadingComments?.at(-1);
    def.variants.push({
      name: p.key.name,
      of: field('of'),
      flag: field('flag'),
      doc: doc ? def.source.slice(doc.start!, doc.end!).replace(/\n\s+\*/g, '\n *') : '',
    });
  }
}

/** The type name of a parameter's annotation (`JsOnly<number>` → JsOnly, number → number). */
function typeOf(node: T.Node | null | undefined): { name: string; arg: T.TSType | null } {
  let t: T.Node | null | undefined = node;
  if (t?.type === 'TSTypeAnnotation') t = t.typeAnnotation;
  if (!t) return { name: '', arg: null };
  if (t.type === 'TSNumberKeyword') return { name: 'number', arg: null };
  if (t.type === 'TSBooleanKeyword') return { name: 'boolean', arg: null };
  if (t.type === 'TSVoidKeyword') return { name: 'void', arg: null };
  if (t.type === 'TSTypeReference' && t.typeName.type === 'Identifier')
    return { name: t.typeName.name, arg: t.typeParameters?.params[0] ?? null };
  return { name: '?', arg: null };
}

/** The statements of a block (or the statement itself). */
function inner(st: T.Statement | null | undefined): T.Statement[] {
  if (!st) return [];
  return st.type === 'BlockStatement' ? st.body : [st];
}

// ── JavaScript ──────────────────────────────────────────────────────────────

/** The JavaScript module of a definition (before formatting). */
export function emitRowsJs(def: RowsDef, banner: string): string {
  const src = def.source;
  const none = new Set<string>();
  const out: string[] = [];
  let at = 0;
  for (const st of def.ast.program.body) {
    const d = st.type === 'ExportNamedDeclaration' ? st.declaration : st;
    const lang = st.type === 'ImportDeclaration' && st.source.value === LANGUAGE;
    const own =
      d?.type === 'VariableDeclaration' &&
      d.declarations.some((v) => v.id.type === 'Identifier' && [...LISTS, 'variants'].includes(v.id.name));
    // a variant declared (`declare const NAME: typeof f`) so that the definition's functions may call it
    const declared = d?.type === 'VariableDeclaration' && d.declare === true;
    if (!lang && !own && !declared) continue;
    // the row language's imports and declarations go, with their doc comments
    const doc = st.leadingComments?.at(-1);
    out.push(src.slice(at, doc ? doc.start! : st.start!));
    at = st.end!;
  }
  out.push(src.slice(at));
  let text = out.join('');
  // every function with the flags off
  for (const st of def.ast.program.body) {
    const d = st.type === 'ExportNamedDeclaration' ? st.declaration : st;
    if (d?.type !== 'FunctionDeclaration') continue;
    text = text.replace(src.slice(d.start!, d.end!), renderJs(def, d, none));
  }
  // the variants, each after the function it specialises
  for (const v of def.variants) {
    const fn = functionNamed(def, v.of);
    const body = renderJs(def, fn, new Set([v.flag])).replace(`function ${v.of}(`, `function ${v.name}(`);
    const base = renderJs(def, fn, none);
    const here = text.indexOf(base);
    if (here < 0) fail(def, fn, `cannot place the variant ${v.name}`);
    text = `${text.slice(0, here + base.length)}\n\n${v.doc}\nexport ${body}${text.slice(here + base.length)}`;
  }
  return `${banner}\n${text}${emitExportsInterface(def)}`;
}

/** `pair-passes.rows.ts` → `PairPassesExports`: the name of a definition's exports interface. */
export function exportsInterfaceName(def: RowsDef): string {
  const stem = def.file.replace(/^.*\//, '').replace(/\.rows\.ts$/, '');
  return `${stem.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase())}Exports`;
}

/**
 * The functions the twin exports (`wasmExports`) as JavaScript calls them on the instance's
 * exports, printed from the same parameter lists as the twin (emitFunction): `JsOnly` parameters
 * left out, arrays as byte addresses (number), I32 and f64 as number, booleans as boolean.
 */
function emitExportsInterface(def: RowsDef): string {
  if (def.exports.length === 0) return '';
  const methods = def.exports.map((name) => {
    const fn = functionNamed(def, name);
    const params: string[] = [];
    for (const p of fn.params) {
      const id = p as T.Identifier;
      if (paramDropped(typeOf(id.typeAnnotation), (f) => f === 'WASM')) continue;
      const k = AS_TYPE[typeOf(carried(id.typeAnnotation)).name];
      if (!k) fail(def, p, 'parameter type is not of the row language');
      params.push(`${id.name}: ${k === 'bool' ? 'boolean' : 'number'}`);
    }
    const ret = typeOf(fn.returnType).name === 'void' ? 'void' : 'number';
    return `  ${name}(${params.join(', ')}): ${ret};`;
  });
  return [
    '',
    '',
    `/** The exports of the WebAssembly twin (${def.file}'s wasmExports), as JavaScript calls them: arrays are byte addresses in the module's memory. */`,
    `export interface ${exportsInterfaceName(def)} {`,
    ...methods,
    '}',
    '',
  ].join('\n');
}

/** The function with name `name`. */
function functionNamed(def: RowsDef, name: string): T.FunctionDeclaration {
  for (const st of def.ast.program.body) {
    const d = st.type === 'ExportNamedDeclaration' ? st.declaration : st;
    if (d?.type === 'FunctionDeclaration' && d.id?.name === name) return d;
  }
  return fail(def, null, `no function ${name}`);
}

/**
 * The flag a test names — `WASM`, or `VARIANT.NAME` — or null; its value for JavaScript with the
 * variant flags `flags` (WASM is false there) or for the twin (`wasm`: WASM true, no variant).
 */
function flagOf(e: T.Node): string | null {
  if (e.type === 'Identifier' && e.name === 'WASM') return 'WASM';
  if (
    e.type === 'MemberExpression' &&
    e.object.type === 'Identifier' &&
    e.object.name === 'VARIANT' &&
    e.property.type === 'Identifier'
  )
    return e.property.name;
  return null;
}

/** Whether a parameter is left out under `on` (the flags that hold). */
function paramDropped(t: { name: string; arg: T.TSType | null }, on: (flag: string) => boolean): boolean {
  if (t.name === 'WasmOnly') return !on('WASM');
  if (t.name === 'JsOnly') return on('WASM');
  if (t.name === 'If' || t.name === 'Unless') {
    const a = t.arg;
    const f = a?.type === 'TSLiteralType' && a.literal.type === 'StringLiteral' ? a.literal.value : '';
    return t.name === 'If' ? !on(f) : on(f);
  }
  return false;
}

const WRAPPERS = ['If', 'Unless', 'JsOnly', 'WasmOnly'];

/** The type a parameter's annotation carries inside its wrapper (`If<'F', number>` → number). */
function carried(node: T.Node | null | undefined): T.TSType | null {
  let t: T.Node | null | undefined = node;
  if (t?.type === 'TSTypeAnnotation') t = t.typeAnnotation;
  if (t?.type === 'TSTypeReference' && t.typeName.type === 'Identifier' && WRAPPERS.includes(t.typeName.name))
    return t.typeParameters?.params.at(-1) ?? null;
  return (t as T.TSType) ?? null;
}

/** A function of the definition as JavaScript with the variant flags `flags`. */
function renderJs(def: RowsDef, fn: T.FunctionDeclaration, flags: Set<string>): string {
  const src = def.source;
  const on = (f: string) => f !== 'WASM' && flags.has(f);
  const edits: { start: number; end: number; text: string }[] = [];
  const cut = (n: T.Node, text = '') => edits.push({ start: n.start!, end: n.end!, text });
  const render = (from: number, to: number, nodes: T.Node[]): string => {
    const before = edits.length;
    for (const n of nodes) visit(n, null);
    const mine = edits.splice(before).sort((a, b) => a.start - b.start);
    let out = '';
    let at = from;
    for (const e of mine) {
      if (e.start < at) continue;
      out += src.slice(at, e.start) + e.text;
      at = e.end;
    }
    return out + src.slice(at, to);
  };
  const visit = (node: T.Node, parent: T.Node | null): void => {
    if (node.type === 'FunctionDeclaration') {
      for (const p of node.params) {
        const t = typeOf((p as T.Identifier).typeAnnotation);
        if (paramDropped(t, on)) {
          // the parameter and its comma
          const end = src[p.end!] === ',' ? p.end! + 1 : p.end!;
          edits.push({ start: p.start!, end, text: '' });
        } else if (WRAPPERS.includes(t.name) || t.name === 'I32') {
          // the carried type, as JavaScript sees it
          const ann = (p as T.Identifier).typeAnnotation as T.TSTypeAnnotation;
          const c = carried(ann)!;
          const text = typeOf(c).name === 'I32' ? ': number' : `: ${src.slice(c.start!, c.end!)}`;
          edits.push({ start: ann.start!, end: ann.end!, text });
        }
      }
      if (typeOf(node.returnType).name === 'I32') cut(node.returnType!, ': number');
    }
    if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && node.id.typeAnnotation) {
      if (typeOf(node.id.typeAnnotation).name === 'I32') cut(node.id.typeAnnotation, '');
    }
    if (node.type === 'IfStatement') {
      const f = flagOf(node.test);
      if (f !== null) {
        // the chosen block, spliced in place (its braces dropped)
        const body = inner(on(f) ? node.consequent : node.alternate);
        cut(node, body.length ? render(body[0].start!, body.at(-1)!.end!, body) : '');
        return;
      }
    }
    if (node.type === 'ConditionalExpression') {
      const f = flagOf(node.test);
      if (f !== null) {
        const ok =
          parent?.type === 'VariableDeclarator' ||
          (parent?.type === 'AssignmentExpression' && parent.right === node);
        if (!ok) fail(def, node, 'a flag test ? : stands as a value or the right side of an assignment');
        const e = on(f) ? node.consequent : node.alternate;
        cut(node, render(e.start!, e.end!, [e]));
        return;
      }
    }
    for (const key of Object.keys(node)) {
      if (key === 'loc' || key.endsWith('Comments') || key === 'extra') continue;
      const v = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof (c as T.Node).type === 'string') visit(c as T.Node, node);
      } else if (v && typeof v === 'object' && typeof (v as T.Node).type === 'string')
        visit(v as T.Node, node);
    }
  };
  return render(fn.start!, fn.end!, [fn]);
}

// ── AssemblyScript ─────────────────────────────────────────────────────────

type Kind = 'f64' | 'i32' | 'bool' | 'i32[]' | 'f64[]';

const AS_TYPE: Record<string, Kind> = {
  number: 'f64',
  I32: 'i32',
  boolean: 'bool',
  Int32Array: 'i32[]',
  Float64Array: 'f64[]',
};

function asType(k: Kind): string {
  return k === 'i32[]' || k === 'f64[]' ? 'usize' : k;
}

/** The mark of an `@inline` function before formatting (the formatter does not take decorators on functions). */
const INLINE = '// @inline';

/** The twin's source once formatted: each marked function gets its `@inline` decorator back. */
export function restoreInline(as: string): string {
  return as.replace(/^\/\/ @inline\n/gm, '@inline\n');
}

/** The AssemblyScript source of a definition's functions and constants (format it, then restoreInline). */
export function emitRowsAs(def: RowsDef, banner: string): string {
  const out: string[] = [banner, ''];
  const constants = new Map<string, Kind>();
  for (const st of def.ast.program.body) {
    const exported = st.type === 'ExportNamedDeclaration';
    const d = exported ? st.declaration : st;
    if (!d) continue;
    if (d.type === 'VariableDeclaration') {
      if (d.declare) continue;
      for (const v of d.declarations) {
        const name = (v.id as T.Identifier).name;
        if (LISTS.includes(name) || name === 'variants') continue;
        if (v.init?.type !== 'NumericLiteral')
          fail(def, v, 'a constant of a row definition must be a number');
        constants.set(name, 'f64');
        out.push(`const ${name}: f64 = ${v.init.extra?.raw ?? v.init.value};`, '');
      }
    } else if (d.type === 'FunctionDeclaration') {
      out.push(emitFunction(def, d, constants), '');
    } else if (d.type !== 'ImportDeclaration') fail(def, d, `unexpected ${d.type} in a row definition`);
  }
  return out.join('\n');
}

function emitFunction(def: RowsDef, fn: T.FunctionDeclaration, constants: Map<string, Kind>): string {
  const scope = new Map<string, Kind>(constants);
  const params: string[] = [];
  for (const p of fn.params) {
    if (p.type !== 'Identifier') fail(def, p, 'parameters are plain names');
    let t = typeOf(p.typeAnnotation);
    if (paramDropped(t, (f) => f === 'WASM')) continue;
    t = typeOf(carried(p.typeAnnotation));
    const k = AS_TYPE[t.name];
    if (!k) fail(def, p, `parameter type ${t.name} is not of the row language`);
    scope.set(p.name, k);
    params.push(`${p.name}: ${asType(k)}`);
  }
  const rt = typeOf(fn.returnType).name;
  const ret = rt === 'void' ? 'void' : asType(AS_TYPE[rt] ?? fail(def, fn, `return type ${rt}`));
  const name = fn.id!.name;
  const head = `${def.inline.includes(name) ? `${INLINE}\n` : ''}${def.exports.includes(name) ? 'export ' : ''}function ${name}(${params.join(', ')}): ${ret}`;
  const e = new AsEmitter(def, scope);
  return `${head} {\n${e.block(fn.body.body, 1)}}`;
}

class AsEmitter {
  constructor(
    private readonly def: RowsDef,
    private readonly scope: Map<string, Kind>,
  ) {}

  block(body: T.Statement[], depth: number): string {
    let s = '';
    for (const st of body) s += this.statement(st, depth);
    return s;
  }

  statement(st: T.Statement, depth: number): string {
    const pad = '  '.repeat(depth);
    switch (st.type) {
      case 'VariableDeclaration':
        return `${pad}${this.declaration(st, false)};\n`;
      case 'ExpressionStatement':
        return `${pad}${this.expr(st.expression, true)};\n`;
      case 'IfStatement': {
        const f = flagOf(st.test);
        if (f !== null) return this.block(inner(f === 'WASM' ? st.consequent : st.alternate), depth);
        let s = `${pad}if (${this.expr(st.test, true)}) {\n${this.block(inner(st.consequent), depth + 1)}${pad}}`;
        if (st.alternate) s += ` else {\n${this.block(inner(st.alternate), depth + 1)}${pad}}`;
        return `${s}\n`;
      }
      case 'ForStatement': {
        const init =
          st.init?.type === 'VariableDeclaration'
            ? this.declaration(st.init, true)
            : st.init
              ? this.expr(st.init)
              : '';
        const test = st.test ? this.expr(st.test, true) : '';
        const update = st.update ? this.expr(st.update, true) : '';
        return `${pad}for (${init}; ${test}; ${update}) {\n${this.block(inner(st.body), depth + 1)}${pad}}\n`;
      }
      case 'WhileStatement':
        return `${pad}while (${this.expr(st.test, true)}) {\n${this.block(inner(st.body), depth + 1)}${pad}}\n`;
      case 'BlockStatement':
        return `${pad}{\n${this.block(st.body, depth + 1)}${pad}}\n`;
      case 'ContinueStatement':
        return `${pad}continue;\n`;
      case 'BreakStatement':
        return `${pad}break;\n`;
      case 'ReturnStatement':
        return `${pad}return${st.argument ? ` ${this.expr(st.argument, true)}` : ''};\n`;
      default:
        return fail(this.def, st, `statement ${st.type} is not of the row language`);
    }
  }

  declaration(d: T.VariableDeclaration, loop: boolean): string {
    const parts = d.declarations.map((v) => {
      const id = v.id as T.Identifier;
      let k: Kind | null = null;
      if (id.typeAnnotation) {
        const t = typeOf(id.typeAnnotation).name;
        k = AS_TYPE[t] ?? fail(this.def, v, `type ${t} is not of the row language`);
      } else if (v.init) {
        k = this.kind(v.init);
        if (this.isLiteral(v.init)) k = loop ? 'i32' : 'f64';
      } else fail(this.def, v, 'a declaration without a type or a value');
      this.scope.set(id.name, k);
      const typed = id.typeAnnotation || (v.init && this.isLiteral(v.init));
      return `${id.name}${typed ? `: ${asType(k)}` : ''}${v.init ? ` = ${this.expr(v.init, true)}` : ''}`;
    });
    return `${d.kind} ${parts.join(', ')}`;
  }

  isLiteral(e: T.Expression): boolean {
    return (
      e.type === 'NumericLiteral' ||
      (e.type === 'UnaryExpression' && e.operator === '-' && e.argument.type === 'NumericLiteral')
    );
  }

  /** The kind of an expression's value, as far as the declarations need it. */
  kind(e: T.Expression): Kind {
    switch (e.type) {
      case 'Identifier':
        return this.scope.get(e.name) ?? fail(this.def, e, `unknown name ${e.name}`);
      case 'NumericLiteral':
        return Number.isInteger(e.value) && !e.extra?.raw?.toString().includes('.') ? 'i32' : 'f64';
      case 'MemberExpression': {
        const a = this.kind(e.object as T.Expression);
        return a === 'i32[]' ? 'i32' : 'f64';
      }
      case 'BinaryExpression':
        if (['<', '>', '<=', '>=', '===', '!==', '==', '!='].includes(e.operator)) return 'bool';
        if (['<<', '>>', '>>>', '|', '&', '^'].includes(e.operator)) return 'i32';
        return this.kind(e.left as T.Expression) === 'i32' && this.kind(e.right) === 'i32' ? 'i32' : 'f64';
      case 'LogicalExpression':
        return 'bool';
      case 'UnaryExpression':
        return e.operator === '!' ? 'bool' : e.operator === '+' ? 'i32' : this.kind(e.argument);
      case 'AssignmentExpression':
        return this.kind(e.right);
      case 'ConditionalExpression':
        if (flagOf(e.test) !== null) return this.kind(flagOf(e.test) === 'WASM' ? e.consequent : e.alternate);
        return this.kind(e.consequent);
      case 'CallExpression':
        if (this.intMinMax(e)) return 'i32';
        if (e.callee.type === 'MemberExpression') return 'f64';
        return this.calleeKind(e);
      default:
        return 'f64';
    }
  }

  /** `Math.min(a, b)` / `Math.max(a, b)` of two integers: AssemblyScript's `min<i32>` / `max<i32>`, or null. */
  intMinMax(e: T.CallExpression): string | null {
    const c = e.callee;
    if (c.type !== 'MemberExpression' || c.object.type !== 'Identifier' || c.object.name !== 'Math')
      return null;
    const f = c.property.type === 'Identifier' ? c.property.name : '';
    if ((f !== 'min' && f !== 'max') || e.arguments.length !== 2) return null;
    if (e.arguments.some((a) => this.kind(a as T.Expression) !== 'i32')) return null;
    return f;
  }

  calleeKind(e: T.CallExpression): Kind {
    const name = (e.callee as T.Identifier).name;
    for (const st of this.def.ast.program.body) {
      const d = st.type === 'ExportNamedDeclaration' ? st.declaration : st;
      if (d?.type === 'FunctionDeclaration' && d.id?.name === name) {
        const rt = typeOf(d.returnType).name;
        return AS_TYPE[rt] ?? fail(this.def, e, `call of ${name}`);
      }
    }
    return fail(this.def, e, `call of an unknown function ${name}`);
  }

  /** The byte address and constant offset of an array element `a[i]` / `a[o | k]`. */
  element(m: T.MemberExpression): { type: string; addr: string; offset: number } {
    if (!m.computed || m.object.type !== 'Identifier') fail(this.def, m, 'only array elements a[i]');
    const arr = m.object.name;
    const k = this.scope.get(arr);
    if (k !== 'i32[]' && k !== 'f64[]') fail(this.def, m, `${arr} is not an array`);
    const shift = k === 'i32[]' ? 2 : 3;
    const type = k === 'i32[]' ? 'i32' : 'f64';
    const i = m.property as T.Expression;
    if (
      type === 'f64' &&
      i.type === 'BinaryExpression' &&
      i.operator === '|' &&
      i.right.type === 'NumericLiteral' &&
      i.left.type === 'Identifier'
    ) {
      // a record field: the record's address and the field's offset
      return { type, addr: `${arr} + ((<usize>${i.left.name}) << ${shift})`, offset: i.right.value << shift };
    }
    if (
      i.type === 'BinaryExpression' &&
      i.operator === '+' &&
      i.left.type === 'Identifier' &&
      i.right.type === 'NumericLiteral' &&
      Number.isInteger(i.right.value) &&
      i.right.value > 0
    ) {
      // a[i + k]: the element at i and a constant offset (the same address, folded into the load)
      return { type, addr: `${arr} + ((<usize>${i.left.name}) << ${shift})`, offset: i.right.value << shift };
    }
    return { type, addr: `${arr} + ((<usize>${this.expr(i)}) << ${shift})`, offset: 0 };
  }

  load(m: T.MemberExpression): string {
    const { type, addr, offset } = this.element(m);
    return `load<${type}>(${addr}${offset ? `, ${offset}` : ''})`;
  }

  /** An expression; `top` leaves its outer parentheses off. */
  expr(e: T.Expression | T.Node, top = false): string {
    const wrap = (s: string) => (top ? s : `(${s})`);
    switch (e.type) {
      case 'Identifier':
        return e.name;
      case 'NumericLiteral':
        return String(e.extra?.raw ?? e.value);
      case 'BooleanLiteral':
        return String(e.value);
      case 'MemberExpression':
        if (e.object.type === 'Identifier' && e.object.name === 'Math')
          return `Math.${(e.property as T.Identifier).name}`;
        return this.load(e);
      case 'BinaryExpression':
      case 'LogicalExpression':
        return wrap(`${this.expr(e.left)} ${e.operator} ${this.expr(e.right)}`);
      case 'UnaryExpression':
        if (e.operator === '+') return `i32(${this.expr(e.argument, true)})`;
        if (e.operator === '-' || e.operator === '!') return wrap(`${e.operator}${this.expr(e.argument)}`);
        return fail(this.def, e, `operator ${e.operator}`);
      case 'UpdateExpression':
        return wrap(
          e.prefix ? `${e.operator}${this.expr(e.argument)}` : `${this.expr(e.argument)}${e.operator}`,
        );
      case 'ConditionalExpression':
        if (flagOf(e.test) !== null)
          return this.expr(flagOf(e.test) === 'WASM' ? e.consequent : e.alternate, top);
        return wrap(`${this.expr(e.test)} ? ${this.expr(e.consequent)} : ${this.expr(e.alternate)}`);
      case 'CallExpression': {
        const args = e.arguments.map((a) => this.expr(a, true)).join(', ');
        const mm = this.intMinMax(e);
        return mm ? `${mm}<i32>(${args})` : `${this.expr(e.callee, true)}(${args})`;
      }
      case 'AssignmentExpression': {
        if (e.left.type === 'MemberExpression') {
          const { type, addr, offset } = this.element(e.left);
          const o = offset ? `, ${offset}` : '';
          const value =
            e.operator === '='
              ? this.expr(e.right, true)
              : `load<${type}>(${addr}${o}) ${e.operator.slice(0, -1)} ${this.expr(e.right)}`;
          if (!top) fail(this.def, e, 'an element store is a statement of its own');
          return `store<${type}>(${addr}, ${value}${o})`;
        }
        return wrap(
          `${this.expr(e.left)} ${e.operator} ${this.expr(e.right, e.right.type !== 'AssignmentExpression')}`,
        );
      }
      default:
        return fail(this.def, e, `expression ${e.type} is not of the row language`);
    }
  }
}
