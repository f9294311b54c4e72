/**
 * Pair-loop pieces of a row-kernel definition (`*.rows.ts`, the language of
 * src/kernels/rows.ts) written once and pasted where they are called:
 * a function of the definition with a `Vec` parameter or result (a list of
 * names, `[dx, dy, dz]`) is a macro, expanded by the kernel language's
 * per-arity expansion (expand.ts: `const [dx, dy, dz] = pairOffset(…)`
 * declares the caller's names, a statement macro's assignments to a
 * parameter assign the caller's name, `L[k]` is the caller's k-th name)
 * in every other function of the file, and then left out of it. What
 * parseRows and the emitters read is the definition as it would be written
 * out by hand, so the JavaScript and the WebAssembly twin compute what the
 * written-out passes computed, operation for operation. A file without
 * macros is returned as it is.
 */
import { parse } from '@babel/parser';
import type * as T from '@babel/types';
import { expandKernel, isMacro } from './expand.js';
import type { Helper } from './parse.js';

/** The function declarations of a module (exported or not). */
function functions(ast: T.File): { fn: T.FunctionDeclaration; st: T.Statement }[] {
  const out: { fn: T.FunctionDeclaration; st: T.Statement }[] = [];
  for (const st of ast.program.body) {
    const d = st.type === 'ExportNamedDeclaration' ? st.declaration : st;
    if (d?.type === 'FunctionDeclaration' && d.id) out.push({ fn: d, st });
  }
  return out;
}

const parseTs = (source: string) =>
  parse(source, { sourceType: 'module', plugins: ['typescript'], attachComment: true });

/** The definition's source with its macros expanded where they are called, and their declarations gone. */
export function expandRows(file: string, source: string): string {
  const macros = new Map<string, Helper>();
  for (const { fn } of functions(parseTs(source))) {
    if (!isMacro(fn)) continue;
    const params = fn.params.map((p) => ({ name: p.type === 'Identifier' ? p.name : '?', particle: false }));
    const only = fn.body.body.length === 1 ? fn.body.body[0] : null;
    const expr = only?.type === 'ReturnStatement' && only.argument ? only.argument : null;
    macros.set(fn.id!.name, { file, source, name: fn.id!.name, params, expr, body: fn.body, macro: true });
  }
  if (macros.size === 0) return source;
  // each function's calls expanded in turn (the source is parsed again after each: its offsets move)
  let text = source;
  const names = functions(parseTs(source))
    .map(({ fn }) => fn.id!.name)
    .filter((n) => !macros.has(n));
  for (const name of names) {
    const fn = functions(parseTs(text)).find(({ fn }) => fn.id!.name === name)!.fn;
    text = expandKernel(file, text, fn, macros);
  }
  // the macros themselves, with their doc comments, are not part of the generated passes
  const cut = functions(parseTs(text))
    .filter(({ fn }) => macros.has(fn.id!.name))
    .map(({ st }) => ({ start: st.leadingComments?.[0]?.start ?? st.start!, end: st.end! }))
    .sort((a, b) => b.start - a.start);
  for (const c of cut) {
    let end = c.end;
    while (text[end] === '\n') end++;
    text = text.slice(0, c.start) + text.slice(end);
  }
  return text;
}
