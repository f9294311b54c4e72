/**
 * The JavaScript kernel of a definition: a loop over the constraints
 * [from, to) of a coloured set (forward, or backward for the second half of
 * a symmetric sweep; a colour batch's range for projectColorRange; deferring kernels also over a list of constraints, with particle
 * indices shifted by `base` for a kernel's particle window) around the
 * definition's body, kept as written — comments included — with the
 * accesses rewritten to typed arrays: `a.x` → `p[a3]`, `a.w` → `w[a]`, the
 * per-constraint scalar `rest` → `rest[c]`, a record `B[k]` → `B[oB + k]`,
 * `return` → `continue`. The code V8 gets is the hand-written kernel's.
 */
import type * as T from '@babel/types';
import { emitGlue, glueImports } from './emit-glue.js';
import { fail, type Helper, isDeferDirective, type KernelDef } from './parse.js';
import { type Edit, FIELDS, hoistedPrefix, isReference, splice, walk } from './walk.js';

/** Names the generated loop uses; a definition may not use them for anything else. */
function loopNames(def: KernelDef): {
  c: string;
  it: string;
  q: string;
  off: Map<string, string>;
  rec: string;
} {
  const index = def.params.find((p) => p.kind === 'index');
  const used = new Set<string>();
  walk(def.body, (n) => {
    if (n.type === 'Identifier') used.add(n.name);
    return undefined;
  });
  for (const p of def.params) if (p.kind !== 'index') used.add(p.name);
  const names = {
    c: index ? index.name : (['c', 't', 'k', 'e'].find((n) => !used.has(n)) ?? '_c'),
    it: 'it',
    q: 'ix',
    off: new Map(
      def.particles.map((p) => [
        p.name,
        /\d$/.test(p.name) || used.has(`${p.name}3`) ? `${p.name}_3` : `${p.name}3`,
      ]),
    ),
    rec: `o${def.params.find((p) => p.kind === 'record')?.name ?? ''}`,
  };
  for (const n of [
    names.it,
    names.q,
    names.rec,
    ...names.off.values(),
    'step',
    'end',
    'base',
    'list',
    'from',
    'to',
    'reverse',
    'set',
    'idx',
  ]) {
    if (used.has(n))
      fail(def, def.body, `the name '${n}' is the generated loop's; rename it in the definition`);
  }
  return names;
}

/** The generated module for one definition (before formatting). */
export function emitJs(def: KernelDef, header: string): string {
  const names = loopNames(def);
  const src = def.source;
  const kinds = new Map(def.params.map((p) => [p.name, p]));
  const edits: Edit[] = [];
  /** The edits of `return` (skip the constraint): `continue` in the loop, `return invalid` in the geometry function. */
  const skips: Edit[] = [];
  let usesX = false;
  const rec = def.params.find((p) => p.kind === 'record');
  let bound = 0;
  /** The JavaScript text of a helper's argument that is a name or a number. */
  const argText = (arg: T.Node): string | null => {
    if (arg.type === 'NumericLiteral') return src.slice(arg.start!, arg.end!);
    if (arg.type !== 'Identifier') return null;
    const p = kinds.get(arg.name);
    if (p && (p.kind === 'scalar' || p.kind === 'multiplier')) return `${arg.name}[${names.c}]`;
    return arg.name;
  };
  /** The helper's `node` with its parameters replaced (numbers by text, particles by the caller's). */
  const inline = (h: Helper, node: T.Node, numbers: Map<string, string>, particles: Map<string, string>) => {
    const inner: Edit[] = [];
    walk(node, (m, parent) => {
      if (m.type === 'MemberExpression' && m.object.type === 'Identifier' && particles.has(m.object.name)) {
        const f = m.property.type === 'Identifier' ? FIELDS[m.property.name] : undefined;
        if (!f || m.computed) fail(def, m, 'a particle has x, y, z, w, x0, y0, z0');
        if (f.array === 'x') usesX = true;
        const name = particles.get(m.object.name)!;
        const off = names.off.get(name)!;
        const text = f.array === 'w' ? `w[${name}]` : `${f.array}[${off}${f.k ? ` + ${f.k}` : ''}]`;
        inner.push({ start: m.start!, end: m.end!, text });
        return false;
      }
      if (m.type === 'Identifier' && isReference(m, parent) && numbers.has(m.name))
        inner.push({ start: m.start!, end: m.end!, text: numbers.get(m.name)! });
      return undefined;
    });
    return splice(h.source, node.start!, node.end!, inner);
  };
  const visit = (n: T.Node, parent: T.Node | null): boolean | undefined => {
    if (n.type === 'CallExpression' && n.callee.type === 'Identifier') {
      const h = def.helpers.get(n.callee.name);
      // any other function belongs to a 'defer' block (JavaScript only; the SIMD emitter checks)
      if (!h) return undefined;
      const call = n.callee.name;
      if (h.expr === null) fail(def, n, `${call} is a statement: call it on its own`);
      const numbers = new Map<string, string>();
      h.params.forEach((p, k) => {
        const t = argText(n.arguments[k]);
        if (p.particle || t === null) fail(def, n, `${call} takes names or numbers`);
        numbers.set(p.name, t);
      });
      edits.push({ start: n.start!, end: n.end!, text: `(${inline(h, h.expr, numbers, new Map())})` });
      return false;
    }
    if (
      n.type === 'ExpressionStatement' &&
      n.expression.type === 'CallExpression' &&
      n.expression.callee.type === 'Identifier'
    ) {
      const e = n.expression;
      const call = (e.callee as T.Identifier).name;
      const h = def.helpers.get(call);
      if (!h) return undefined;
      if (h.expr !== null) fail(def, n, `${call} is an expression`);
      const numbers = new Map<string, string>();
      const particles = new Map<string, string>();
      const lets: string[] = [];
      h.params.forEach((p, k) => {
        const arg = e.arguments[k];
        if (p.particle) {
          if (arg.type !== 'Identifier' || kinds.get(arg.name)?.kind !== 'particle')
            fail(def, arg, `${call}: argument ${p.name} is a particle`);
          particles.set(p.name, arg.name);
          return;
        }
        const t = argText(arg);
        if (t !== null) numbers.set(p.name, t);
        else {
          // computed once, as a statement of its own would be
          const v = `${p.name}_${bound++}`;
          walk(arg, visit);
          lets.push(`const ${v} = ${splice(src, arg.start!, arg.end!, edits)};`);
          numbers.set(p.name, v);
        }
      });
      const b = h.body;
      const body = inline(h, b, numbers, particles);
      edits.push({ start: n.start!, end: n.end!, text: `{ ${lets.join(' ')} ${body.slice(1, -1)} }` });
      return false;
    }
    if (n.type === 'MemberExpression' && n.object.type === 'Identifier') {
      const p = kinds.get(n.object.name);
      if (p?.kind === 'particle') {
        if (n.computed || n.property.type !== 'Identifier' || !FIELDS[n.property.name])
          fail(def, n, `a particle has x, y, z, w, x0, y0, z0`);
        const f = FIELDS[n.property.name];
        if (f.array === 'x') usesX = true;
        const off = names.off.get(p.name)!;
        const text = f.array === 'w' ? `w[${p.name}]` : `${f.array}[${off}${f.k ? ` + ${f.k}` : ''}]`;
        edits.push({ start: n.start!, end: n.end!, text });
        return false;
      }
      if (p?.kind === 'record') {
        if (!n.computed || n.property.type !== 'NumericLiteral')
          fail(def, n, 'a record is read as R[constant]');
        const k = n.property.value;
        edits.push({ start: n.start!, end: n.end!, text: `${p.name}[${names.rec}${k ? ` + ${k}` : ''}]` });
        return false;
      }
    }
    if (n.type === 'Identifier' && isReference(n, parent)) {
      const p = kinds.get(n.name);
      if (p && (p.kind === 'scalar' || p.kind === 'multiplier'))
        edits.push({ start: n.start!, end: n.end!, text: `${n.name}[${names.c}]` });
      if (p && (p.kind === 'particle' || p.kind === 'record'))
        fail(def, n, `${n.name} is read through its fields`);
    }
    if (n.type === 'ReturnStatement') {
      if (n.argument) fail(def, n, 'return takes no value (it skips the constraint)');
      const skip = { start: n.start!, end: n.end!, text: 'continue;' };
      edits.push(skip);
      skips.push(skip);
    }
    if (n.type === 'ExpressionStatement' && isDeferDirective(n as T.Statement))
      edits.push({ start: n.start!, end: n.end!, text: '' });
    return undefined;
  };
  walk(def.body, visit);
  const body = def.body.body;
  const hoist = hoistedPrefix(def).count;
  const hoisted = hoist > 0 ? splice(src, body[0].start!, body[hoist - 1].end!, edits) : '';
  const loopBody = hoist < body.length ? splice(src, body[hoist].start!, def.body.end! - 1, edits) : '';

  const arity = def.particles.length;
  // the set gives indices (sorted by colour) and multipliers; the definition's records and scalars come by name
  const args: string[] = ['p: Float64Array'];
  if (usesX) args.push('x: Float64Array');
  args.push('w: Float64Array', 'set: KernelSet');
  for (const p of def.params) {
    if (p.kind === 'scalar' || p.kind === 'record') args.push(`${p.name}: Float64Array`);
  }
  if (def.defers) args.push('base: number', 'list: Int32Array | null');
  args.push('from: number', 'to: number', 'reverse: boolean');
  for (const p of def.params) {
    if (p.kind === 'uniform' || p.kind === 'int') args.push(`${p.name}: number`);
    if (p.kind === 'flag') args.push(`${p.name}: boolean`);
    if (p.kind === 'jsonly') args.push(`${p.name}: ${p.tsType}`);
  }
  const c = names.c;
  const lines: string[] = [];
  const dsl = `${'../'.repeat(def.file.split('/').length - 2) || './'}kernels/dsl.js`; // src/<family>/NAME.kernel.ts
  lines.push(
    header,
    '',
    `import type { KernelSet } from '${dsl}';`,
    ...glueImports(def),
    ...def.imports,
    '',
    def.doc,
  );
  lines.push(`export function ${def.name}(${args.join(', ')}): void {`);
  const mult = def.params.find((p) => p.kind === 'multiplier');
  if (!mult) fail(def, def.body, 'a kernel has one Multiplier parameter');
  lines.push(`const idx = set.indices, ${mult.name} = set.lambda;`);
  if (hoisted) lines.push(hoisted);
  lines.push('const step = reverse ? -1 : 1;', 'const end = reverse ? from - 1 : to;');
  const shift = def.defers ? ' - base' : '';
  if (def.defers) {
    lines.push(`for (let ${names.it} = reverse ? to - 1 : from; ${names.it} !== end; ${names.it} += step) {`);
    lines.push(`const ${c} = list === null ? ${names.it} : list[${names.it}];`);
  } else {
    lines.push(`for (let ${c} = reverse ? to - 1 : from; ${c} !== end; ${c} += step) {`);
  }
  lines.push(`const ${names.q} = ${arity} * ${c};`);
  lines.push(
    `const ${def.particles.map((p, k) => `${p.name} = idx[${names.q}${k ? ` + ${k}` : ''}]${shift}`).join(', ')};`,
  );
  lines.push(`const ${def.particles.map((p) => `${names.off.get(p.name)} = 3 * ${p.name}`).join(', ')};`);
  if (rec) lines.push(`const ${names.rec} = ${rec.stride} * ${c};`);
  lines.push(loopBody, '}', '}', '', emitGlue(def, args));
  if (def.geometry) {
    for (const e of skips) e.text = `return ${def.geometry.invalid};`;
    lines.push(emitGeometry(def, names.off, edits));
  }
  return lines.join('\n');
}

/**
 * The geometry function of a definition (see Geometry in parse.ts): the
 * body's statements before and including the declaration of `value` that
 * read positions only, with the loop's edits (particle i's coordinates at
 * p[3i …], helpers inlined, `return` → `return invalid`).
 */
function emitGeometry(def: KernelDef, off: Map<string, string>, edits: Edit[]): string {
  const geo = def.geometry!;
  const src = def.source;
  const kept = new Set<string>();
  const body: string[] = [];
  let found = false;
  for (const st of def.body.body) {
    let geometric = true;
    walk(st, (n, parent) => {
      if (n.type === 'MemberExpression' && n.object.type === 'Identifier') {
        const p = def.params.find((q) => q.name === (n.object as T.Identifier).name);
        if (p?.kind === 'particle') {
          const f = n.property.type === 'Identifier' ? FIELDS[n.property.name] : undefined;
          if (f?.array !== 'p') geometric = false;
          return false;
        }
      }
      if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && def.helpers.has(n.callee.name)) {
        for (const a of n.arguments) walk(a, (m, mp) => visitName(m, mp));
        return false;
      }
      return visitName(n, parent);
    });
    function visitName(n: T.Node, parent: T.Node | null): boolean | undefined {
      if (n.type === 'Identifier' && isReference(n, parent) && n.name !== 'Math' && !kept.has(n.name))
        geometric = false;
      return undefined;
    }
    if (!geometric) continue;
    if (st.type === 'VariableDeclaration') {
      if (st.kind !== 'const') fail(def, st, 'the geometry function takes const declarations');
      for (const d of st.declarations) kept.add((d.id as T.Identifier).name);
    } else if (!(st.type === 'IfStatement' && st.consequent.type === 'ReturnStatement' && !st.alternate)) {
      fail(def, st, 'the geometry function takes const declarations and guards (if (…) return;)');
    }
    body.push(splice(src, st.start!, st.end!, edits));
    if (st.type === 'VariableDeclaration' && kept.has(geo.value)) {
      found = true;
      break;
    }
  }
  if (!found) fail(def, geo.node, `geometry: ${geo.value} is not computed from positions alone`);
  // an output may be a negated name ('-h2x': the body computes the opposite vector)
  for (const o of geo.out)
    if (!kept.has(o.replace(/^-/, '')))
      fail(def, geo.node, `geometry: ${o} is not computed from positions alone`);
  const ps = def.particles.map((p) => p.name);
  return [
    geo.doc,
    `export function ${geo.name}(p: ArrayLike<number>, ${ps.map((p) => `${p}: number`).join(', ')}, g: Float64Array): number {`,
    `const ${ps.map((p) => `${off.get(p)} = 3 * ${p}`).join(', ')};`,
    ...body,
    ...geo.out.map((o, k) => `g[${k}] = ${o};`),
    `return ${geo.value};`,
    '}',
    '',
  ].join('\n');
}
