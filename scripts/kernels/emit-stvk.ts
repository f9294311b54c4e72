/**
 * StVK's stress for plain TypeScript: the module src/continuum/stvk.generated.ts
 * holds `stvkStressInto(f, ε, μ, λ, p)`, P = F S with S = 2μ ε + λ tr(ε) I,
 * where S is the helper `stvkSecondPiola` of src/kernels/helpers.ts (which the
 * tet kernel inlines) expanded by the kernel language's own expansion
 * (expand.ts), and P's entries are summed as the kernel's matMul(F, S) sums
 * them. continuum/energy.ts's stvkStress (the reference energy, and the
 * kernel's deferred plastic path) calls it, so S has one definition for the
 * JavaScript kernel, its WebAssembly twin and the reference, operation for
 * operation. P is a loop here, not matMul written out: written out (nine
 * loads, nine sums) the function is over V8's cumulative inlining budget in
 * tetStress, is called, boxes its double arguments, and the plastic path was
 * 1.1–1.4× slower; as a loop it is inlined (213 bytes of bytecode).
 */
import { parse } from '@babel/parser';
import type * as T from '@babel/types';
import { expandKernel } from './expand.js';
import type { Helper } from './parse.js';

const E = ['e00', 'e11', 'e22', 'e01', 'e02', 'e12'];
const S = ['s00', 's11', 's22', 's01', 's02', 's12'];

/** The module src/continuum/stvk.generated.ts (before formatting). */
export function emitStvk(banner: string, helpers: Map<string, Helper>): string {
  const template = [
    '/**',
    " * StVK's stress P = F S, S = 2μ ε + λ tr(ε) I (002 §3), of F (row-major 3 × 3) and its Green",
    ' * strain ε = (xx, yy, zz, xy, xz, yz) into p[0 … 8]: S as the tet kernel has it',
    " * (stvkSecondPiola, src/kernels/helpers.ts), P's entries as its matMul(F, S) sums them.",
    ' */',
    `export function stvkStressInto(f: ArrayLike<number>, ${E.map((e) => `${e}: number`).join(', ')}, mu: number, lambda: number, p: Float64Array): void {`,
    `const [${S.join(', ')}] = stvkSecondPiola(${E.join(', ')}, mu, lambda);`,
    'for (let r = 0; r < 9; r += 3) {',
    'const f0 = f[r], f1 = f[r + 1], f2 = f[r + 2];',
    'p[r] = f0 * s00 + f1 * s01 + f2 * s02;',
    'p[r + 1] = f0 * s01 + f1 * s11 + f2 * s12;',
    'p[r + 2] = f0 * s02 + f1 * s12 + f2 * s22;',
    '}',
    '}',
    '',
  ].join('\n');
  const ast = parse(template, { sourceType: 'module', plugins: ['typescript'] });
  const st = ast.program.body[0] as T.ExportNamedDeclaration;
  const code = expandKernel(
    'scripts/kernels/emit-stvk.ts',
    template,
    st.declaration as T.FunctionDeclaration,
    helpers,
  );
  if (code.includes('stvkSecondPiola(')) throw new Error('emit-stvk: stvkSecondPiola was not expanded');
  return `${banner}\n\n${code}`;
}
