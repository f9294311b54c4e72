/** Small helpers over @babel/types nodes shared by the emitters. */
import type * as T from '@babel/types';
import type { KernelDef, Param } from './parse.js';

export class KernelError extends Error {}

/** Throws a KernelError that names the file and line of `node`. */
export function fail(def: { file: string }, node: T.Node | null | undefined, message: string): never {
  const line = node?.loc ? `:${node.loc.start.line}` : '';
  throw new KernelError(`${def.file}${line}: ${message}`);
}

/** A replacement of the source text [start, end). */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The text of `source` from `from` to `to` with the edits inside that range applied. */
export function splice(source: string, from: number, to: number, edits: Edit[]): string {
  let out = '';
  let at = from;
  for (const e of edits.filter((e) => e.start >= from && e.end <= to).sort((a, b) => a.start - b.start)) {
    out += source.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + source.slice(at, to);
}

/** Calls `visit` on every node below `node` (depth first, parents first) with its parent. */
export function walk(node: T.Node, visit: (n: T.Node, parent: T.Node | null) => boolean | undefined): void {
  const go = (n: T.Node, parent: T.Node | null): void => {
    if (visit(n, parent) === false) return;
    for (const key of Object.keys(n)) {
      if (key === 'loc' || key.endsWith('Comments') || key === 'typeAnnotation' || key === 'extra') continue;
      const v = (n as unknown as Record<string, unknown>)[key];
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof (c as T.Node).type === 'string') go(c as T.Node, n);
      } else if (v && typeof v === 'object' && typeof (v as T.Node).type === 'string') go(v as T.Node, n);
    }
  };
  go(node, null);
}

/** Whether the identifier `id` under `parent` is a reference to a variable (not a property name or a declaration). */
export function isReference(id: T.Identifier, parent: T.Node | null): boolean {
  if (!parent) return true;
  if (parent.type === 'MemberExpression' && parent.property === id && !parent.computed) return false;
  if (parent.type === 'ObjectProperty' && parent.key === id && !parent.computed) return false;
  if (parent.type === 'VariableDeclarator' && parent.id === id) return false;
  return true;
}

/** The parameter named `name`, or undefined. */
export function param(def: KernelDef, name: string): Param | undefined {
  return def.params.find((p) => p.name === name);
}

/** Particle field accessors: `a.x` → its component (0, 1, 2) of p, w, or of x (x0 …). */
export const FIELDS: Record<string, { array: 'p' | 'x' | 'w'; k: number }> = {
  x: { array: 'p', k: 0 },
  y: { array: 'p', k: 1 },
  z: { array: 'p', k: 2 },
  w: { array: 'w', k: 0 },
  x0: { array: 'x', k: 0 },
  y0: { array: 'x', k: 1 },
  z0: { array: 'x', k: 2 },
};

/**
 * The leading `const` statements of the body whose values are the same for
 * every constraint (they read only uniforms, literals and earlier such
 * constants): both emitters compute them once before the loop.
 */
export function hoistedPrefix(def: KernelDef): { count: number; names: Set<string> } {
  const names = new Set(
    def.params.filter((p) => ['uniform', 'flag', 'int', 'jsonly'].includes(p.kind)).map((p) => p.name),
  );
  const hoisted = new Set<string>();
  let count = 0;
  for (const st of def.body.body) {
    if (st.type !== 'VariableDeclaration' || st.kind !== 'const') break;
    let uniform = true;
    for (const d of st.declarations) {
      if (!d.init) uniform = false;
      else
        walk(d.init, (n, parent) => {
          if (n.type === 'Identifier' && isReference(n, parent) && !names.has(n.name) && n.name !== 'Math')
            uniform = false;
          if (n.type === 'MemberExpression' && n.object.type === 'Identifier' && n.object.name !== 'Math')
            uniform = false;
          return undefined;
        });
    }
    if (!uniform) break;
    for (const d of st.declarations) {
      names.add((d.id as T.Identifier).name);
      hoisted.add((d.id as T.Identifier).name);
    }
    count++;
  }
  return { count, names: hoisted };
}
