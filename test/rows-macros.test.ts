/**
 * Macros of the row-kernel language (src/kernels/rows.ts Vec,
 * scripts/kernels/rows-macros.ts): a pass written with them generates the
 * JavaScript and the AssemblyScript that the same pass written out by hand
 * generates, the macros themselves are not emitted, and a file without
 * macros is left as it is.
 */
import { describe, expect, it } from 'vitest';
import { emitRowsAs, emitRowsJs, parseRows } from '../scripts/kernels/emit-rows.js';
import { expandRows } from '../scripts/kernels/rows-macros.js';

const head = [
  "import type { I32, Vec } from '../kernels/rows.js';",
  "export const wasmExports = ['toyPass'] as const;",
].join('\n');

const signature =
  'export function toyPass(n: I32, start: Int32Array, nbr: Int32Array, h: number, acc: Float64Array): void {';

/** The toy pass, with the lines that the macros write marked by `%name`. */
const pass = (lines: Record<string, string>) =>
  [
    signature,
    '%cutoffs',
    '  for (let a = 0; a < n; a++) {',
    '    const oi = a << 3;',
    '%position',
    '%sums',
    '    for (let k = start[a]; k < start[a + 1]; k++) {',
    '      const o = nbr[k] << 3;',
    '%offset',
    '      let r2 = dx * dx + dy * dy + dz * dz;',
    '      if (r2 >= h2) continue;',
    '      let r = Math.sqrt(r2);',
    '      if (r < rMin) {',
    '%separate',
    '      }',
    '      sx += dx / r;',
    '      sy += dy / r;',
    '      sz += dz * r2;',
    '    }',
    '    acc[oi] += sx + sy + sz;',
    '  }',
    '}',
  ]
    .map((l) => (l.startsWith('%') ? lines[l.slice(1)] : l))
    .join('\n');

const byHand = [
  head,
  pass({
    cutoffs: 'const h2 = h * h, rMin = 1e-6 * h;',
    position: 'const px = acc[oi | 5], py = acc[oi | 6], pz = acc[oi | 7];',
    sums: 'let sx = 0, sy = 0, sz = 0;',
    offset: 'let dx = px - acc[o | 5], dy = py - acc[o | 6], dz = pz - acc[o | 7];',
    separate: 'dx = rMin; dy = 0; dz = 0; r = rMin; r2 = rMin * rMin;',
  }),
].join('\n');

const withMacros = [
  head,
  'function cutoffs(h: number): Vec {',
  '  return [h * h, 1e-6 * h];',
  '}',
  'function recordPosition(rec: Float64Array, o: I32): Vec {',
  '  return [rec[o | 5], rec[o | 6], rec[o | 7]];',
  '}',
  '/** doc comment of a macro: left out with it */',
  'function offsetFrom(p: Vec, rec: Float64Array, o: I32): Vec {',
  '  return [p[0] - rec[o | 5], p[1] - rec[o | 6], p[2] - rec[o | 7]];',
  '}',
  'function zeroSums(): Vec {',
  '  return [0, 0, 0];',
  '}',
  'function separated(rMin: number, axis: Vec): Vec {',
  '  return [axis[0], axis[1], axis[2], rMin, rMin * rMin];',
  '}',
  pass({
    cutoffs: 'const [h2, rMin] = cutoffs(h);',
    position: 'const [px, py, pz] = recordPosition(acc, oi);',
    sums: 'let [sx, sy, sz] = zeroSums();',
    offset: 'let [dx, dy, dz] = offsetFrom([px, py, pz], acc, o);',
    separate: '[dx, dy, dz, r, r2] = separated(rMin, [rMin, 0, 0]);',
  }),
].join('\n');

const file = 'src/fluids/toy.rows.ts';
const squash = (s: string) => s.replace(/[\s()]+/g, '');

describe('row-kernel macros', () => {
  it('generate what the pass written out by hand generates (JavaScript and AssemblyScript)', () => {
    const hand = parseRows(file, expandRows(file, byHand));
    const folded = parseRows(file, expandRows(file, withMacros));
    expect(squash(emitRowsJs(folded, ''))).toBe(squash(emitRowsJs(hand, '')));
    expect(squash(emitRowsAs(folded, ''))).toBe(squash(emitRowsAs(hand, '')));
    const js = emitRowsJs(folded, '');
    for (const m of ['cutoffs', 'recordPosition', 'offsetFrom', 'zeroSums', 'separated', 'doc comment'])
      expect(js).not.toContain(m);
  });

  it('leave a definition without macros as it is', () => {
    expect(expandRows(file, byHand)).toBe(byHand);
  });

  it('a changed macro changes the generated pass', () => {
    const other = withMacros.replace('[axis[0], axis[1], axis[2], rMin', '[axis[1], axis[0], axis[2], rMin');
    const hand = parseRows(file, expandRows(file, byHand));
    const changed = parseRows(file, expandRows(file, other));
    expect(squash(emitRowsAs(changed, ''))).not.toBe(squash(emitRowsAs(hand, '')));
  });
});
