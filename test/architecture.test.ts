/**
 * The shape of the code (docs/architecture.md, "Layout"): parses the imports
 * of every src/**\/*.ts — type-only imports included, since a cycle of types
 * is still a cycle a reader must hold in mind — and asserts
 *
 * - no import cycle between files (the cycle is printed when there is one);
 * - src/core/ and src/math/ import nothing outside themselves: the core knows
 *   no method family, families plug into it;
 * - no file in src/ is longer than 800 lines, but generated ones (`*.generated.ts`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'src');

/**
 * Known exceptions, to be removed as the branches that break them land
 * (issue 14; none left). A cycle passes when all its files are in one of
 * these sets.
 */
const knownCycles: readonly (readonly string[])[] = [];
const knownLongFiles: readonly string[] = [];

const MAX_LINES = 800;

/** Source without comments (string and template literals kept, so that `//` inside them survives). */
function stripComments(text: string): string {
  return text.replace(
    /("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g,
    (_m, str: string | undefined) => str ?? '',
  );
}

/**
 * The module specifiers a TypeScript source imports or re-exports:
 * `import … from`, `import type … from`, `export … from`, side-effect
 * `import '…'`, and `import('…')` (dynamic imports and import types).
 */
function importSpecifiers(text: string): string[] {
  const code = stripComments(text);
  const out: string[] = [];
  const patterns = [
    /(?:^|[\n;}])\s*(?:import|export)\s+(?:type\s+)?(?:[\w*$]+\s*,?\s*)?(?:\*\s+as\s+[\w$]+\s*)?(?:\{[^}]*\}\s*)?from\s*(['"])([^'"\n]+)\1/g,
    /(?:^|[\n;}])\s*import\s*(['"])([^'"\n]+)\1/g,
    /\bimport\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[2]);
  return out;
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listSources(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out.sort();
}

/** The file a relative specifier names (NodeNext: './x.js' is './x.ts'), or null for packages. */
function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const p = resolve(dirname(from), spec);
  return p.endsWith('.js') ? `${p.slice(0, -3)}.ts` : p;
}

/** File → the src/ files it imports (repository-relative paths). */
function importGraph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const file of listSources(srcDir)) {
    const deps = new Set<string>();
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, spec);
      if (target !== null) deps.add(relative(root, target));
    }
    g.set(relative(root, file), [...deps].sort());
  }
  return g;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(g: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (g.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...g.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** One closed path through a component, a → b → … → a, for the failure message. */
function cyclePath(g: Map<string, string[]>, scc: readonly string[]): string[] {
  const inScc = new Set(scc);
  const start = scc[0];
  // breadth-first from start's successors back to start, within the component
  const prev = new Map<string, string>();
  const queue: string[] = [];
  for (const w of g.get(start) ?? []) {
    if (inScc.has(w) && !prev.has(w)) {
      prev.set(w, start);
      queue.push(w);
    }
  }
  while (queue.length > 0 && !prev.has(start)) {
    const v = queue.shift()!;
    for (const w of g.get(v) ?? []) {
      if (inScc.has(w) && !prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  const path = [start];
  for (let v = prev.get(start)!; v !== start; v = prev.get(v)!) path.push(v);
  path.push(start);
  return path.reverse();
}

describe('the import parser', () => {
  it('finds value, type-only, re-exported, side-effect and dynamic imports, and skips comments', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "import {\n  type C,\n  d,\n} from './c.js';",
      "import * as e from './e.js';",
      "import f, { g } from './f.js';",
      "export { h } from './h.js';",
      "export type { I } from './i.js';",
      "export * from './j.js';",
      "import './k.js';",
      "let l: import('./l.js').L;",
      "const m = await import('./m.js');",
      "// import { n } from './n.js';",
      "/* import { o } from './o.js'; */",
      "const s = '// not a comment'; import { p } from './p.js';",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(
      ['./a.js', '../b.js', './c.js', './e.js', './f.js', './h.js', './i.js', './j.js', './k.js']
        .concat(['./l.js', './m.js', './p.js'])
        .sort(),
    );
  });

  it('finds cycles and prints a path through each', () => {
    const g = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(cyclePath(g, ['a', 'b', 'c'])).toEqual(['a', 'b', 'c', 'a']);
    expect(cyclePath(g, ['e'])).toEqual(['e', 'e']);
  });

  it('reads the real sources', () => {
    const g = importGraph();
    expect(g.size).toBeGreaterThan(100);
    expect(g.get('src/core/world.ts')).toContain('src/core/particles.ts');
    // type-only imports count
    expect(g.get('src/core/body.ts')).toContain('src/core/world.ts');
  });
});

describe('the shape of src/', () => {
  const graph = importGraph();

  it('has no import cycle between files', () => {
    const unknown = cycles(graph).filter((scc) => !knownCycles.some((k) => scc.every((f) => k.includes(f))));
    const message = unknown.map((scc) => cyclePath(graph, scc).join(' → ')).join('\n');
    expect(message).toBe('');
  });

  it('keeps src/core and src/math free of method families', () => {
    const bad: string[] = [];
    for (const [file, deps] of graph) {
      if (!file.startsWith('src/core/') && !file.startsWith('src/math/')) continue;
      for (const d of deps) {
        if (!d.startsWith('src/core/') && !d.startsWith('src/math/')) bad.push(`${file} imports ${d}`);
      }
    }
    expect(bad.join('\n')).toBe('');
  });

  it('has no file over 800 lines but generated ones', () => {
    const long: string[] = [];
    for (const file of graph.keys()) {
      if (file.endsWith('.generated.ts') || knownLongFiles.includes(file)) continue;
      const text = readFileSync(join(root, file), 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines > MAX_LINES) long.push(`${file}: ${lines} lines`);
    }
    expect(long.join('\n')).toBe('');
  });
});

describe('the text of the repository', () => {
  it('holds no merge-conflict markers left by a merge (docs, sources, tests, scenes)', () => {
    const marker = /^(<{7}|>{7}) /m;
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'lib' || e.name === 'dist')
          continue;
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|md|json|html|css|mjs|js)$/.test(e.name) && marker.test(readFileSync(p, 'utf8')))
          hits.push(relative(root, p));
      }
    };
    for (const d of ['src', 'docs', 'test', 'bench', 'web', 'scenes', 'cli', 'scripts', 'experiments'])
      walk(join(root, d));
    if (marker.test(readFileSync(join(root, 'README.md'), 'utf8'))) hits.push('README.md');
    expect(hits.join('\n')).toBe('');
  });
});
