/**
 * What the row-kernel language gained for the fluids' neighbour search
 * (src/fluids/pair-search.rows.ts; src/kernels/rows.ts): a variant declared
 * (`declare const fSorted: typeof f`) so that another variant calls it, a
 * helper the twin declares `@inline` (`wasmInline`), `Math.min` / `Math.max`
 * of integers as AssemblyScript's `min<i32>` / `max<i32>`, and `a[i + k]`
 * read at a constant offset in the twin. Each is checked on a toy
 * definition, and the search itself against a brute-force walk.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emitRowsAs, emitRowsJs, parseRows, restoreInline } from '../scripts/kernels/emit-rows.js';
import { buildForwardPairRows, buildForwardPairRowsSorted } from '../src/fluids/pair-search.generated.js';
import { fluidWasmModule } from '../src/fluids/wasm.js';
import { NeighbourGrid } from '../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const toy = [
  "import type { I32 } from '../kernels/rows.js';",
  "import { VARIANT } from '../kernels/rows.js';",
  "export const wasmExports = ['outer'] as const;",
  "export const wasmInline = ['inner'] as const;",
  'export const variants = {',
  "  innerSorted: { of: 'inner', flag: 'SORTED' },",
  "  outerSorted: { of: 'outer', flag: 'SORTED' },",
  '} as const;',
  'declare const innerSorted: typeof inner;',
  'export function outer(x: Float64Array, s: Int32Array, n: I32, k: I32): I32 {',
  '  const m: I32 = Math.max(n - 2, 0);',
  '  k = VARIANT.SORTED ? innerSorted(x, s, m, k) : inner(x, s, m, k);',
  '  return k;',
  '}',
  'export function inner(x: Float64Array, s: Int32Array, m: I32, k: I32): I32 {',
  '  for (let b = 0; b < m; b++) {',
  '    const j: I32 = VARIANT.SORTED ? s[b] : b;',
  '    k += +(x[j + 1] < x[j]);',
  '  }',
  '  return k;',
  '}',
].join('\n');

describe('row-kernel variants that call variants', () => {
  it('JavaScript: the declaration goes, each variant calls the variant, the base calls the base', () => {
    const js = emitRowsJs(parseRows('toy.rows.ts', toy), '// toy');
    expect(js).not.toContain('declare const');
    expect(js).not.toContain('wasmInline');
    expect(js).toMatch(/function outer\([^)]*\)[^{]*\{[^}]*= inner\(x, s, m, k\)/);
    expect(js).toMatch(/function outerSorted\([^)]*\)[^{]*\{[^}]*= innerSorted\(x, s, m, k\)/);
    expect(js).toMatch(/function innerSorted[\s\S]*const j = s\[b\]/);
  });

  it('AssemblyScript: @inline helper, min/max of integers, a[i + k] at a constant offset, no variant', () => {
    const as = restoreInline(emitRowsAs(parseRows('toy.rows.ts', toy), '// toy'));
    expect(as).toContain('@inline\nfunction inner(');
    expect(as).toContain('export function outer(');
    expect(as).toContain('max<i32>(n - 2, 0)');
    expect(as).toContain('load<f64>(x + ((<usize>j) << 3), 8)');
    expect(as).not.toContain('Sorted');
    expect(as).not.toContain('declare');
  });
});

describe("the twin's exports interface (NAMEExports, printed into the JavaScript module)", () => {
  it('the toy: the exported function with its twin parameter list, typed as JavaScript calls it; no helper', () => {
    const js = emitRowsJs(parseRows('src/toy.rows.ts', toy), '// toy');
    expect(js).toContain('export interface ToyExports {');
    expect(js).toContain('  outer(x: number, s: number, n: number, k: number): number;');
    expect(js).not.toMatch(/ToyExports[^}]*inner\(/);
  });

  it("the fluids' module: every method of PairPassesExports and PairSearchExports is an export with as many parameters", () => {
    const module = fluidWasmModule() as WebAssembly.Module;
    const x = new WebAssembly.Instance(module, { env: { memory: new WebAssembly.Memory({ initial: 1 }) } })
      .exports as Record<string, unknown>;
    let methods = 0;
    for (const file of ['src/fluids/pair-passes.generated.ts', 'src/fluids/pair-search.generated.ts']) {
      const text = readFileSync(join(root, file), 'utf8');
      const body = /export interface \w+Exports \{([\s\S]*?)\n\}/.exec(text)?.[1] ?? '';
      for (const m of body.matchAll(/^ {2}(\w+)\(([^)]*)\)/gm)) {
        const f = x[m[1]] as ((...a: number[]) => unknown) | undefined;
        expect(typeof f, m[1]).toBe('function');
        expect(f?.length, m[1]).toBe(m[2].split(',').filter((a) => a.trim() !== '').length);
        methods++;
      }
    }
    expect(methods).toBe(5);
  });
});

describe('the generated neighbour search (pair-search.rows.ts)', () => {
  it('finds every pair closer than r once, in cell order and through grid.sorted alike, as a brute-force walk', () => {
    let seed = 5;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296;
    const n = 700,
      r = 0.1;
    const pos = new Float64Array(3 * n).map(() => 0.6 * rnd());
    const items = new Int32Array(n).map((_, i) => i);
    const grid = new NeighbourGrid(2);
    grid.setGeometry(0, 0, 0, 0.6, 0.6, 0.6, r, 4096);
    grid.insert(pos, items, n);
    const cell = new Float64Array(3 * n);
    for (let a = 0; a < n; a++) for (let c = 0; c < 3; c++) cell[3 * a + c] = pos[3 * grid.sorted[a] + c];
    const ranges = new Int32Array(50);
    const lists: string[][] = [];
    for (const sorted of [false, true]) {
      const start = new Int32Array(n + 1),
        nbr = new Int32Array(60 * n);
      const walk = sorted ? buildForwardPairRowsSorted : buildForwardPairRows;
      const { nx, ny, nz, reach } = grid;
      const k = walk(
        sorted ? pos : cell,
        0,
        grid.sorted,
        grid.cellStart,
        nx,
        ny,
        nz,
        reach,
        r * r,
        0,
        n,
        start,
        nbr,
        nbr.length,
        ranges,
      );
      const pairs: string[] = [];
      for (let a = 0; a < n; a++)
        for (let q = start[a]; q < start[a + 1]; q++) {
          // as store indices (the cell-order walk writes slots)
          const i = grid.sorted[a],
            j = sorted ? nbr[q] : grid.sorted[nbr[q]];
          pairs.push(i < j ? `${i},${j}` : `${j},${i}`);
        }
      expect(pairs.length).toBe(k);
      lists.push(pairs);
    }
    const brute: string[] = [];
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const dx = pos[3 * i] - pos[3 * j],
          dy = pos[3 * i + 1] - pos[3 * j + 1],
          dz = pos[3 * i + 2] - pos[3 * j + 2];
        if (dx * dx + dy * dy + dz * dz < r * r) brute.push(`${i},${j}`);
      }
    expect(brute.length).toBeGreaterThan(5 * n);
    expect(lists[1]).toEqual(lists[0]);
    expect([...lists[0]].sort()).toEqual(brute.sort());
  });
});
