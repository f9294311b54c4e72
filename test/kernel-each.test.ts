/**
 * The per-arity helpers of the kernel language (src/kernels/helpers.ts,
 * scripts/kernels/expand.ts): a definition written with them generates the
 * JavaScript kernel and the SIMD twin that the same definition written out
 * by hand generates, for three and for four particles; lists of the wrong
 * length and a helper's local that is also the definition's name are
 * refused; and the helpers, run as plain TypeScript, compute what their
 * unrolled text computes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emitJs } from '../scripts/kernels/emit-js.js';
import { emitSimd } from '../scripts/kernels/emit-simd.js';
import { KernelError, parseHelpers, parseKernel } from '../scripts/kernels/parse.js';
import type { Particle } from '../src/kernels/dsl.js';
import {
  dampingSum,
  edgesFrom,
  gram,
  inverseMasses,
  matMul,
  matMulT,
  weightedNorm2,
  xpbdUpdate,
} from '../src/kernels/helpers.js';

const helpers = parseHelpers('src/kernels/helpers.ts', readFileSync('src/kernels/helpers.ts', 'utf8'));

/** A kernel definition over the particles `ps` with the body `body`. */
function definition(ps: string[], body: string): string {
  return [
    "import type { Multiplier, Particle, PerConstraint, Uniform } from '../kernels/dsl.js';",
    "import { edgesFrom, inverseMasses, move, norm2, position, xpbdUpdate } from '../kernels/helpers.js';",
    'export const simd = { gamma: 0 };',
    `export function projectToy(${ps.map((p) => `${p}: Particle`).join(', ')}, rest: PerConstraint, lam: Multiplier, kp: Uniform, at: Uniform, gamma: Uniform): void {`,
    body,
    '}',
  ].join('\n');
}

/** The generated JavaScript kernel and f64x2 kernel of a definition. */
function generated(source: string): { js: string; simd: string } {
  const def = parseKernel('src/constraints/toy.kernel.ts', source, helpers);
  return { js: emitJs(def, '// toy'), simd: emitSimd(def).code };
}

// A toy energy constraint: C = s (|x_1 − x_0|² − rest), gradients from the edges, the XPBD tail.
const byHand = (ps: string[]) => {
  const n = ps.length;
  const idx = ps.map((_, k) => k);
  const last = ps[n - 1];
  return [
    `const ${idx.map((k) => `w${k} = ${ps[k]}.w`).join(', ')};`,
    `if (${idx.map((k) => `w${k}`).join(' + ')} === 0) return;`,
    `const px = ${last}.x, py = ${last}.y, pz = ${last}.z;`,
    ...idx
      .slice(0, -1)
      .map((k) => `const d${k}x = ${ps[k]}.x - px, d${k}y = ${ps[k]}.y - py, d${k}z = ${ps[k]}.z - pz;`),
    ...idx.slice(0, -1).map((k) => `const g${k}x = d${k}x * 2, g${k}y = d${k}y * 2, g${k}z = d${k}z * 2;`),
    `const g${n - 1}x = -g0x, g${n - 1}y = -g0y, g${n - 1}z = -g0z;`,
    'const C = norm2(d0x, d0y, d0z) - rest;',
    'const s = 0.5;',
    `const wG = s * s * (${idx.map((k) => `w${k} * norm2(g${k}x, g${k}y, g${k}z)`).join(' + ')});`,
    'let damp = 0;',
    'if (gamma !== 0) {',
    `  damp = gamma * s * (${idx.map((k) => ['x', 'y', 'z'].map((c) => `g${k}${c} * (${ps[k]}.${c} - ${ps[k]}.${c}0)`).join(' + ')).join(' + ')});`,
    '}',
    'const denom = (1 + gamma) * wG + at;',
    'if (!(denom > 1e-300)) return;',
    'const dl = (kp * (-C - at * lam - damp)) / denom;',
    'lam += dl;',
    'const sd = s * dl;',
    ...idx.map((k) => `move(${ps[k]}, g${k}x, g${k}y, g${k}z, w${k} * sd);`),
  ].join('\n');
};

const withHelpers = (ps: string[]) => {
  const n = ps.length;
  const idx = ps.map((_, k) => k);
  const last = ps[n - 1];
  const vec = (k: number, p: string) => `[${p}${k}x, ${p}${k}y, ${p}${k}z]`;
  return [
    `const [${idx.map((k) => `w${k}`).join(', ')}] = inverseMasses([${ps.join(', ')}]);`,
    `if (${idx.map((k) => `w${k}`).join(' + ')} === 0) return;`,
    `const [px, py, pz] = position(${last});`,
    `const [${idx
      .slice(0, -1)
      .map((k) => vec(k, 'd'))
      .join(', ')}] = edgesFrom([px, py, pz], [${ps.slice(0, -1).join(', ')}]);`,
    ...idx.slice(0, -1).map((k) => `const g${k}x = d${k}x * 2, g${k}y = d${k}y * 2, g${k}z = d${k}z * 2;`),
    `const g${n - 1}x = -g0x, g${n - 1}y = -g0y, g${n - 1}z = -g0z;`,
    'const C = norm2(d0x, d0y, d0z) - rest;',
    'const s = 0.5;',
    `const G = [${idx.map((k) => vec(k, 'g')).join(', ')}];`,
    `xpbdUpdate([${ps.join(', ')}], [${idx.map((k) => `w${k}`).join(', ')}], G, s, C, lam, kp, at, gamma);`,
  ].join('\n');
};

describe('per-arity helpers of the kernel language', () => {
  for (const ps of [
    ['a', 'b', 'c'],
    ['a', 'b', 'c', 'd'],
  ]) {
    it(`unroll to the hand-written kernel for ${ps.length} particles (JavaScript and f64x2 output)`, () => {
      const hand = generated(definition(ps, byHand(ps)));
      const folded = generated(definition(ps, withHelpers(ps)));
      // the JavaScript text differs only in layout (the generator formats it afterwards)
      const squash = (s: string) => s.replace(/[\s()]+/g, '');
      expect(squash(folded.js)).toBe(squash(hand.js));
      expect(folded.simd).toBe(hand.simd);
    });
  }

  it('matMul, gram and matMulT (matrices by rows; a hole declares nothing; [[P0, …]] = … assigns) unroll to the hand-written products', () => {
    const def = (body: string) =>
      definition(['a', 'b', 'c', 'd'], body).replace(
        "import { edgesFrom, inverseMasses, move, norm2, position, xpbdUpdate } from '../kernels/helpers.js';",
        "import { gram, matMul, matMulT, move } from '../kernels/helpers.js';",
      );
    const tail = 'move(a, g00, g01, g10, g11);\nmove(b, g10, g11, g00, rest);';
    const hand = [
      'if (a.w + b.w === 0) return;',
      'const f0 = a.x * c.x + a.y * d.x, f1 = a.x * c.y + a.y * d.y;',
      'const f2 = b.x * c.x + b.y * d.x, f3 = b.x * c.y + b.y * d.y;',
      'const c00 = f0 * f0 + f2 * f2, c01 = f0 * f1 + f2 * f3;',
      'const c11 = f1 * f1 + f3 * f3;',
      'let P0 = 0, P1 = 0, P2 = 0, P3 = 0;',
      'if (rest > 0) {',
      '  P0 = f0 * c00 + f1 * c01;',
      '  P1 = f0 * c01 + f1 * c11;',
      '  P2 = f2 * c00 + f3 * c01;',
      '  P3 = f2 * c01 + f3 * c11;',
      '}',
      'const g00 = P0 * c.x + P1 * c.y, g10 = P0 * d.x + P1 * d.y;',
      'const g01 = P2 * c.x + P3 * c.y, g11 = P2 * d.x + P3 * d.y;',
      tail,
    ].join('\n');
    const folded = [
      'if (a.w + b.w === 0) return;',
      'const A = [[a.x, a.y], [b.x, b.y]];',
      'const Bm = [[c.x, c.y], [d.x, d.y]];',
      'const [[f0, f1], [f2, f3]] = matMul(A, Bm);',
      'const F = [[f0, f1], [f2, f3]];',
      'const [[c00, c01], [, c11]] = gram(F);',
      'let P0 = 0, P1 = 0, P2 = 0, P3 = 0;',
      'if (rest > 0) {',
      '  const S = [[c00, c01], [c01, c11]];',
      '  [[P0, P1], [P2, P3]] = matMul(F, S);',
      '}',
      'const P = [[P0, P1], [P2, P3]];',
      'const [[g00, g10], [g01, g11]] = matMulT(P, Bm);',
      tail,
    ].join('\n');
    const squash = (s: string) => s.replace(/[\s()]+/g, '');
    const h = generated(def(hand));
    const f = generated(def(folded));
    expect(squash(f.js)).toBe(squash(h.js));
    expect(f.simd).toBe(h.simd);
    // run as TypeScript, they are the products
    const M = [
      [0.3, -1.2, 0.7],
      [2.1, 0.4, -0.5],
    ];
    const N = [
      [1.5, 0.2],
      [-0.8, 0.9],
      [0.6, -1.1],
    ];
    expect(matMul(M, N)).toEqual([
      [0.3 * 1.5 + -1.2 * -0.8 + 0.7 * 0.6, 0.3 * 0.2 + -1.2 * 0.9 + 0.7 * -1.1],
      [2.1 * 1.5 + 0.4 * -0.8 + -0.5 * 0.6, 2.1 * 0.2 + 0.4 * 0.9 + -0.5 * -1.1],
    ]);
    expect(matMulT(M, M)[0][1]).toBe(0.3 * 2.1 + -1.2 * 0.4 + 0.7 * -0.5);
    expect(gram(N)[0][1]).toBe(1.5 * 0.2 + -0.8 * 0.9 + 0.6 * -1.1);
  });

  it('refuses lists of different lengths', () => {
    const body = withHelpers(['a', 'b', 'c']).replace('[w0, w1, w2], G', '[w0, w1], G');
    expect(() => generated(definition(['a', 'b', 'c'], body))).toThrow(KernelError);
  });

  it("refuses a helper's local that is also a name of the definition", () => {
    const body = `const dl = 1;\n${withHelpers(['a', 'b', 'c'])}`;
    expect(() => generated(definition(['a', 'b', 'c'], body))).toThrow(
      /'dl' is also a name of the definition/,
    );
  });

  it('run as TypeScript, the helpers compute what their unrolled text does', () => {
    const P = (x: number, y: number, z: number, w: number): Particle => ({
      x,
      y,
      z,
      w,
      x0: x - 0.1,
      y0: y + 0.2,
      z0: z - 0.3,
    });
    const ps = [P(0.1, 0.7, -0.3, 1), P(1.3, -0.2, 0.4, 0.5), P(-0.6, 0.9, 1.1, 2)];
    const [w0, w1, w2] = inverseMasses(ps);
    expect([w0, w1, w2]).toEqual([1, 0.5, 2]);
    const [[ux, uy, uz], [vx, vy, vz]] = edgesFrom([ps[2].x, ps[2].y, ps[2].z], [ps[0], ps[1]]);
    expect([ux, uy, uz, vx, vy, vz]).toEqual([
      0.1 - -0.6,
      0.7 - 0.9,
      -0.3 - 1.1,
      1.3 - -0.6,
      -0.2 - 0.9,
      0.4 - 1.1,
    ]);
    const G = [
      [ux, uy, uz],
      [vx, vy, vz],
      [-ux - vx, -uy - vy, -uz - vz],
    ];
    const n2 = (g: number[]) => g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    expect(weightedNorm2([w0, w1, w2], G)).toBe(w0 * n2(G[0]) + w1 * n2(G[1]) + w2 * n2(G[2]));
    const rate = (k: number) =>
      G[k][0] * (ps[k].x - ps[k].x0) + G[k][1] * (ps[k].y - ps[k].y0) + G[k][2] * (ps[k].z - ps[k].z0);
    // the flat left-to-right chain of nine products, as written out
    let flat = 0;
    for (let k = 0; k < 3; k++) {
      const d = [ps[k].x - ps[k].x0, ps[k].y - ps[k].y0, ps[k].z - ps[k].z0];
      for (let c = 0; c < 3; c++) flat = k === 0 && c === 0 ? G[0][0] * d[0] : flat + G[k][c] * d[c];
    }
    expect(dampingSum(ps, G)).toBe(flat);
    expect(Math.abs(dampingSum(ps, G) - (rate(0) + rate(1) + rate(2)))).toBeLessThan(1e-12);
    // one XPBD update moves the particles by w_i s g_i Δλ (the multiplier is the caller's: not returned here)
    const before = ps.map((p) => [p.x, p.y, p.z]);
    xpbdUpdate(ps, [w0, w1, w2], G, 1, 0.25, 0, 1, 0, 0);
    const dl = -0.25 / weightedNorm2([w0, w1, w2], G);
    ps.forEach((p, k) => {
      expect(p.x).toBe(before[k][0] + G[k][0] * ([w0, w1, w2][k] * dl));
    });
  });
});
