/**
 * The glue of a kernel definition (src/kernels/glue.ts), written after its
 * JavaScript kernel in `NAME.generated.ts`: the interface `…Args` of the
 * definition's arguments by name (per-constraint arrays, uniforms, flags and
 * JsOnly parameters; k′, α̃ and γ are the RuleArgs every definition takes as
 * kp, at, gamma) and the ElementGlue `…Glue` that passes them to the
 * JavaScript kernel, its f32 twin and the paired sweeps of
 * src/wasm/element-kernels.generated.ts, each in its own order. With it a
 * constraint set (src/constraints/element-set.ts) writes down only which of
 * its fields are which argument; the calls are generated from the
 * definition's parameter list, so they cannot drift from it.
 */
import type { KernelDef, Param } from './parse.js';

/** The projection rule's uniforms, filled by ElementConstraints for every definition. */
const RULE = ['kp', 'at', 'gamma'];

/** `projectTetFem` → `TetFem`. */
function stem(def: KernelDef): string {
  return def.name.replace(/^project/, '');
}

/** The argument kinds a set supplies (not the particles, the multiplier or the constraint index). */
function isArg(p: Param): boolean {
  return p.kind !== 'particle' && p.kind !== 'multiplier' && p.kind !== 'index';
}

/** The TypeScript type of an argument. */
function argType(p: Param): string {
  if (p.kind === 'scalar' || p.kind === 'record') return 'Float64Array';
  if (p.kind === 'flag') return 'boolean';
  if (p.kind === 'jsonly') return p.tsType;
  return 'number';
}

/** The imports the glue adds to the generated file (paths from the definition's folder, src/<family>/). */
export function glueImports(def: KernelDef): string[] {
  const up = `${'../'.repeat(def.file.split('/').length - 2) || './'}`;
  const sweep = `sweep${stem(def)}`;
  const sweeps = def.simd ? (def.f32 ? [sweep, `${sweep}F32`] : [sweep]) : [];
  return [
    `import type { ElementGlue, RuleArgs } from '${up}kernels/glue.js';`,
    ...(sweeps.length > 0
      ? [`import { ${sweeps.join(', ')} } from '${up}wasm/element-kernels.generated.js';`]
      : []),
  ];
}

/**
 * The glue's source. `jsParams` are the JavaScript kernel's parameters as
 * emit-js.ts declares them (`name: type`), so that the call follows them.
 */
export function emitGlue(def: KernelDef, jsParams: string[]): string {
  const where = `${def.file}: ${def.name}`;
  const params = def.params.filter(isArg);
  for (const r of RULE) {
    const p = params.find((q) => q.name === r);
    if (p?.kind !== 'uniform')
      throw new Error(`${where}: the glue needs the uniform ${r} (the projection rule's ${RULE.join(', ')})`);
  }
  const S = stem(def);
  const args = `${S}Args`;
  const glue = `${S[0].toLowerCase()}${S.slice(1)}Glue`;
  const own = params.filter((p) => !RULE.includes(p.name));
  const scalar = def.params.find((p) => p.kind === 'scalar');
  const rec = def.params.find((p) => p.kind === 'record');
  const byName = new Set(params.map((p) => p.name));
  const value = (n: string) => (byName.has(n) ? `a.${n}` : n);
  // the JavaScript kernel: its own parameter list, the set's arguments read from `a`
  const jsNames = jsParams.map((s) => s.slice(0, s.indexOf(':')).trim());
  const jsCall = `${def.name}(${jsNames.map(value).join(', ')})`;
  // the f32 twin and the sweeps: uniforms, ints and flags not fixed by `export const simd`
  const us = params.filter((p) => ['uniform', 'int', 'flag'].includes(p.kind) && !def.simd?.has(p.name));
  const u = us.map((p) => `a.${p.name}`);
  const twin = [
    'p',
    'w',
    'set',
    ...(scalar ? [`a.${scalar.name}`] : []),
    ...(rec ? [`a.${rec.name}`] : []),
    'from',
    'to',
    'reverse',
    ...u,
  ];
  const sweep = `sweep${S}`;
  const none = (what: string) => `throw new Error('${def.name} has no ${what}');`;
  const lines = [
    '',
    `/** The arguments of ${def.name} that its set supplies by name, besides k′, α̃ and γ (RuleArgs). */`,
    `export interface ${args} extends RuleArgs {`,
    ...own.map((p) => `${p.name}: ${argType(p)};`),
    '}',
    '',
    `/** ${def.name}'s kernels with a set's arguments (src/kernels/glue.ts). */`,
    `export const ${glue}: ElementGlue<${args}> = {`,
    `arity: ${def.particles.length},`,
    `recordStride: ${rec ? rec.stride : 0},`,
    `f32: ${def.f32},`,
    `args: {} as ${args},`,
    `scalar(a: ${args}): Float64Array {`,
    scalar ? `return a.${scalar.name};` : none('per-constraint scalar'),
    '},',
    `record(${rec ? 'a' : '_a'}: ${args}): Float64Array | null {`,
    rec ? `return a.${rec.name};` : 'return null;',
    '},',
    `kernel(set, a, p, x, w, base, list, from, to, reverse): void {`,
    `${jsCall};`,
    '},',
    'kernelF32(set, a, p, w, from, to, reverse): void {',
    def.f32 ? `${def.name}F32(${twin.join(', ')});` : none('f32 mode'),
    '},',
    'sweep(k, set, a, store, reverse): void {',
    def.simd
      ? `${sweep}(${['k', ...(def.defers ? ['set'] : []), 'store', 'reverse', ...u].join(', ')});`
      : none('paired kernel'),
    '},',
    'sweepF32(k, a, store, reverse): void {',
    def.simd && def.f32 ? `${sweep}F32(${['k', 'store', 'reverse', ...u].join(', ')});` : none('f32 mode'),
    '},',
    '};',
    '',
  ];
  return lines.join('\n');
}
