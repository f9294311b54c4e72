/**
 * The particle passes of a substep, written once and printed into each place (issue 14): the
 * prediction (Müller et al. 2007 §3.1 steps (5)–(7); 003 Algorithm 1 lines 5–7, with the point
 * damping of 003 §3.5 and the speed limit) and the velocity update (2007 §3.1 steps (12)–(13);
 * 003 Algorithm 1 lines 12–15, with the guards: a non-finite p reset to x with v = 0, a move longer
 * than reach = vmax h held to it). Printed
 *
 * - as TypeScript into src/core/particle-passes.generated.ts: predictRange and updateRange (the
 *   particle stages, their pool tasks, the threaded copy-out blocks) and updatePredictStaged (the
 *   fused pass over a window's f64 staging), re-exported by src/core/particle-tasks.ts and
 *   src/core/window-passes.ts;
 * - as AssemblyScript into wasm/particle-passes.generated.ts: predict and update, which
 *   wasm/strands.ts re-exports (the fused strand pass), and particlePassF32, the scalar path of the
 *   f32 window's fused pass that scripts/kernels/emit-window-pass.ts prints into the elements module.
 *
 * A `Side` says how a place reads and writes a particle's x, p, v (typed arrays at i3, byte
 * addresses, an f32 window) and how it counts the guards; the formulas below are the same for
 * all, so every place gets the same floating-point operations in the same order (WebAssembly's f64
 * arithmetic is IEEE and never contracts): test/strands-wasm, test/wasm-kernels,
 * test/threads-window-pass, the 48 scene checksums.
 */
import { AS, type Lang, TS } from './emit-closest.js';

/** How one place reads and writes a particle's components (c = 0, 1, 2) and counts the guards. */
export interface Side {
  L: Lang;
  /** The expression of component c of x, p or v. */
  get(a: 'x' | 'p' | 'v', c: number): string;
  /** The statement that writes e to component c of x, p or v (p: the prediction's target). */
  set(a: 'x' | 'p' | 'v', c: number, e: string): string;
  /** The particle's inverse mass. */
  w: string;
  /** The zero of a velocity local (`0`, or `0.0` where the literal would type the local i32). */
  zero: string;
}

const XYZ = ['x', 'y', 'z'];

/** Statements at indent pad. */
const at = (pad: string, lines: string[]) => lines.map((l) => `${pad}${l}\n`).join('');

/** Line 5 with the point damping (003 §3.5) on vx vy vz in scope: v ← (v + h g) f (gx gy gz = h g, f = e^(−c h)). */
function damp(pad: string): string {
  return at(
    pad,
    XYZ.map((c) => `v${c} = (v${c} + g${c}) * f;`),
  );
}

/** The speed limit on vx vy vz in scope: held to vmax (s2 > vmax2), the factor named k. */
function clamp(pad: string): string {
  return at(pad, [
    'const s2 = vx * vx + vy * vy + vz * vz;',
    'if (s2 > vmax2) {',
    '  const k = vmax / Math.sqrt(s2);',
    ...XYZ.map((c) => `  v${c} *= k;`),
    '}',
  ]);
}

/** Lines 5–6 on vx vy vz in scope (a particle with w ≠ 0): damp, then clamp. */
const dampClamp = (pad: string) => damp(pad) + clamp(pad);

/** Line 7: p = x + h v, from x given per component (`xOf`). */
function predictP(S: Side, pad: string, xOf: (c: number) => string): string {
  return at(
    pad,
    XYZ.map((c, i) => `${S.set('p', i, `${xOf(i)} + h * v${c}`)};`),
  );
}

/** Lines 5–7 of one particle from its v and x (predictRange's body). */
function predictOne(S: Side, pad: string): string {
  return `${at(
    pad,
    XYZ.map((c, i) => `let v${c} = ${S.get('v', i)};`),
  )}${pad}if (${S.w} ${S.L.ne} 0) {
${dampClamp(`${pad}  `)}${at(
  `${pad}  `,
  XYZ.map((c, i) => `${S.set('v', i, `v${c}`)};`),
)}${pad}}
${predictP(S, pad, (i) => S.get('x', i))}`;
}

/**
 * Lines 12–13 with the guards, of one particle: its p and x read once, d = p − x; one test on the
 * common path (a finite move within reach), the rare ones — a non-finite p (d2 not finite: the
 * statements `recover`), a move beyond reach (held to it: then `clamped`), a non-finite x — in
 * that order, after the statements `locals`. Leaves px py pz, dx dy dz in scope.
 */
function guards(S: Side, pad: string, recover: string[], clamped: string, locals: string[] = []): string {
  const i = `${pad}  `;
  const ii = `${pad}    `;
  return `${at(pad, [
    ...XYZ.map((c, k) => `let p${c} = ${S.get('p', k)};`),
    ...XYZ.map((_, k) => `const x${k} = ${S.get('x', k)};`),
    ...XYZ.map((c, k) => `let d${c} = p${c} - x${k};`),
    'const d2 = dx * dx + dy * dy + dz * dz;',
    ...locals,
  ])}${pad}if (!(d2 <= reach2)) {
${i}if (px - px ${S.L.ne} 0 || py - py ${S.L.ne} 0 || pz - pz ${S.L.ne} 0) {
${at(ii, recover)}${i}} else if (d2 > reach2) {
${at(ii, [
  'const k = reach / Math.sqrt(d2);',
  ...XYZ.map((c) => `d${c} *= k;`),
  ...XYZ.map((c, k) => `p${c} = x${k} + d${c};`),
  clamped,
])}${i}}
${pad}}
`;
}

/** v = d / h and x = p of one particle (its v written, or the locals vx vy vz set: `locals`). */
function velocityAndX(S: Side, pad: string, locals: boolean): string {
  return at(pad, [
    ...XYZ.map((c, i) => (locals ? `v${c} = d${c} * invH;` : `${S.set('v', i, `d${c} * invH`)};`)),
    ...XYZ.map((c, i) => `${S.set('x', i, `p${c}`)};`),
  ]);
}

/**
 * Lines 12–15 of substep s and 5–7 of s + 1 of one particle (updatePredictStaged's body): the
 * update's operations (a recovered particle keeps x, with v = 0; `recovered` tests it), then the
 * prediction's on the v and x just written — the same doubles, so the same bits as the two passes.
 * The velocity locals start at zero, beside the recovery's `flag`.
 */
function updatePredictOne(
  S: Side,
  pad: string,
  recover: string[],
  clamped: string,
  flag: string,
  kept: string,
): string {
  const i = `${pad}  `;
  const locals = [...XYZ.map((c) => `let v${c} = ${S.zero};`), flag];
  return `${guards(S, pad, recover, clamped, locals)}${pad}if (${kept}) {
${velocityAndX(S, i, true)}${pad}}
${pad}// the next substep's prediction, as predictRange
${pad}if (${S.w} ${S.L.ne} 0) {
${dampClamp(i)}${pad}}
${at(
  pad,
  XYZ.map((c, k) => `${S.set('v', k, `v${c}`)};`),
)}${predictP(S, pad, (k) => `p${XYZ[k]}`)}`;
}

/**
 * The BDF2 prediction of one particle (004, "Second Order Methods"; src/core/bdf2.ts): with a
 * history (`two`, which it writes to second[i]) v̂ = 4/3 v_n − 1/3 v_{n−1} + 2/3 h a_ext and
 * x̃ = 4/3 x_n − 1/3 x_{n−1} + 2/3 h v̂ (h23 = 2/3 h); else lines 5–7 as predictRange. The damping
 * and the speed limit as there.
 */
function predictBdf2One(S: Side, pad: string): string {
  const i = `${pad}  `;
  const ii = `${pad}    `;
  const ix = (k: number) => (k === 0 ? 'i3' : `i3 + ${k}`);
  return `${at(pad, [
    ...XYZ.map((c, k) => `let v${c} = ${S.get('v', k)};`),
    '// a teleport (x moved since the last update), a new particle or a pinned one: first order',
    'const two =',
    `  has[i] === 1 &&`,
    `  ${S.w} !== 0 &&`,
    ...XYZ.map((_, k) => `  ${S.get('x', k)} === xLast[${ix(k)}]${k < 2 ? ' &&' : ';'}`),
    'second[i] = two ? 1 : 0;',
  ])}${pad}if (${S.w} !== 0) {
${i}if (two) {
${at(ii, [
  '// v̂ = 4/3 v_n − 1/3 v_{n−1} + 2/3 h a_ext; the forces hooks added h a to v this substep',
  ...XYZ.map((c, k) => `const a${c} = v${c} - vLast[${ix(k)}] + g${c};`),
  ...XYZ.map((c, k) => `v${c} = ((4 * vLast[${ix(k)}] - vPrev[${ix(k)}]) / 3 + (2 / 3) * a${c}) * f;`),
])}${i}} else {
${damp(ii)}${i}}
${clamp(i)}${at(
  i,
  XYZ.map((c, k) => `${S.set('v', k, `v${c}`)};`),
)}${pad}}
${pad}if (two) {
${at(i, [
  '// x̃ = 4/3 x_n − 1/3 x_{n−1} + 2/3 h v̂',
  ...XYZ.map((c, k) => `${S.set('p', k, `(4 * ${S.get('x', k)} - xPrev[${ix(k)}]) / 3 + h23 * v${c}`)};`),
])}${pad}} else {
${predictP(S, i, (k) => S.get('x', k))}${pad}}
`;
}

/**
 * The BDF2 velocity update of one particle after updateRange's guards (a recovered particle also
 * loses its history): v_{n+1} = (3 x_{n+1} − 4 x_n + x_{n−1}) / (2h) where the prediction was
 * second order (half = 1/(2h)), (x_{n+1} − x_n)/h elsewhere; then the history moves on
 * (x_{n−1} ← x_n, v_{n−1} ← v_n) and x ← p.
 */
function updateBdf2One(S: Side, pad: string): string {
  const ix = (k: number) => (k === 0 ? 'i3' : `i3 + ${k}`);
  return `${guards(
    S,
    pad,
    [
      'v[i3] = v[i3 + 1] = v[i3 + 2] = 0;',
      ...XYZ.map((_, k) => `${S.set('p', k, `x${k}`)};`),
      'has[i] = 0;',
      'stats.recoveries++;',
      'continue;',
    ],
    'stats.speedClamps++;',
  )}${at(
    pad,
    XYZ.map((c) => `let v${c}: number;`),
  )}${pad}if (second[i] === 1) {
${at(
  `${pad}  `,
  XYZ.map((c, k) => `v${c} = (3 * p${c} - 4 * x${k} + xPrev[${ix(k)}]) * half;`),
)}${pad}} else {
${at(
  `${pad}  `,
  XYZ.map((c) => `v${c} = d${c} * invH;`),
)}${pad}}
${at(pad, [
  ...XYZ.map((_, k) => `xPrev[${ix(k)}] = x${k};`),
  ...XYZ.map((_, k) => `vPrev[${ix(k)}] = vLast[${ix(k)}];`),
  ...XYZ.map((c, k) => `${S.set('v', k, `vLast[${ix(k)}] = v${c}`)};`),
  ...XYZ.map((c, k) => `${S.set('x', k, `xLast[${ix(k)}] = p${c}`)};`),
  'has[i] = 1;',
])}`;
}

/** Typed arrays at i3 (TypeScript), the target of p named `p`. */
function arrays(names: Record<'x' | 'p' | 'v', string>, w: string): Side {
  const ix = (c: number) => (c === 0 ? 'i3' : `i3 + ${c}`);
  return {
    L: TS,
    get: (a, c) => `${names[a]}[${ix(c)}]`,
    set: (a, c, e) => `${names[a]}[${ix(c)}] = ${e}`,
    w,
    zero: '0',
  };
}

/** Byte addresses of f64 arrays at f64 index i3 (AssemblyScript, the helpers ld and st below). */
const ADDRESSES: Side = {
  L: AS,
  get: (a, c) => `ld(${a}, ${c === 0 ? 'i3' : `i3 + ${c}`})`,
  set: (a, c, e) => `st(${a}, ${c === 0 ? 'i3' : `i3 + ${c}`}, ${e})`,
  w: 'ld(w, i)',
  zero: '0.0',
};

/** One particle of an f32 `aos4` window at q (p: f32, widened exactly; written rounded) and its f64 x at a, v at b. */
const WINDOW_F32: Side = {
  L: AS,
  get: (a, c) => {
    const o = c === 0 ? '' : `, ${(a === 'p' ? 4 : 8) * c}`;
    return a === 'p' ? `<f64>load<f32>(q${o})` : `load<f64>(${a === 'x' ? 'a' : 'b'}${o})`;
  },
  set: (a, c, e) => {
    const o = c === 0 ? '' : `, ${(a === 'p' ? 4 : 8) * c}`;
    return a === 'p' ? `store<f32>(q, <f32>(${e})${o})` : `store<f64>(${a === 'x' ? 'a' : 'b'}, ${e}${o})`;
  },
  w: 'wi',
  zero: '0.0',
};

/** How a language spells a parameter's kind: an f64 array, a double, an index, the counts' i32 array. */
interface Types {
  arr: string;
  f64: string;
  i32: string;
  counts: string;
}

const TS_TYPES: Types = { arr: 'Float64Array', f64: 'number', i32: 'number', counts: 'Int32Array' };
const AS_TYPES: Types = { arr: 'usize', f64: 'f64', i32: 'i32', counts: 'usize' };

/** A parameter list from groups 'name name: kind' separated by '; ', one parameter a line. */
function params(T: Types, spec: string): string {
  return spec
    .split('; ')
    .flatMap((group) => {
      const [names, kind] = group.split(': ');
      return names.split(' ').map((n) => `  ${n}: ${T[kind as keyof Types]},\n`);
    })
    .join('');
}

/** predictRange's parameters: the arrays, h, h g, the damping factor, the speed limit, the range. */
const PREDICT = 'x p v w: arr; h gx gy gz f vmax: f64; from to: i32';
/** updateRange's parameters: the arrays, 1/h, the reach, the range, the counts. */
const UPDATE = 'x p v: arr; invH reach: f64; from to: i32; counts: counts';

/** The prediction of particles [from, to) as a function `name` of a language (its doc comment `doc`). */
function predictFunction(S: Side, T: Types, name: string, doc: string): string {
  return `${doc}
export function ${name}(
${params(T, PREDICT)}): void {
  const vmax2 = vmax * vmax;
  for (let i = from; i < to; i++) {
    const i3 = 3 * i;
${predictOne(S, '    ')}  }
}
`;
}

/** The TypeScript module: predictRange, updateRange, updatePredictStaged, predictBdf2, updateBdf2. */
export function emitParticlePassesTs(banner: string): string {
  const A = arrays({ x: 'x', p: 'p', v: 'v' }, 'w[i]');
  const St = arrays({ x: 'x', p: 'S', v: 'v' }, 'w[i]');
  return `${banner}
// The particle passes of a substep, printed from scripts/kernels/emit-particle-passes.ts (one
// definition with wasm/particle-passes.generated.ts); src/core/particle-tasks.ts,
// src/core/window-passes.ts and src/core/bdf2.ts re-export them.
import type { ParticleHistory, StepContext } from './step-context.js';

${predictFunction(
  A,
  TS_TYPES,
  'predictRange',
  `/**
 * Lines 5–7 fused, particles [from, to): v ← (v + h g) f, held to vmax, then
 * p = x + h v (gh = h g; f = e^(−c h), the point damping of 003 §3.5;
 * Müller et al. 2007 §3.1 steps (5)–(7)). Particles with w = 0 keep their
 * velocity and move with it.
 */`,
)}
/**
 * Lines 12–15, particles [from, to) (Müller et al. 2007 §3.1 steps (12)–(13)):
 * v = (p − x)/h, x = p, a non-finite p reset to x with v = 0 (counted in
 * counts[slot]), a move longer than \`reach\` = vmax h held to it (counted in
 * counts[slot + 1]).
 */
export function updateRange(
${params(TS_TYPES, `${UPDATE}; slot: i32`)}): void {
  const reach2 = reach * reach;
  let recoveries = 0;
  let clamps = 0;
  for (let i3 = 3 * from, end = 3 * to; i3 < end; i3 += 3) {
${guards(
  A,
  '    ',
  [
    'v[i3] = v[i3 + 1] = v[i3 + 2] = 0;',
    ...XYZ.map((_, k) => `${A.set('p', k, `x${k}`)};`),
    'recoveries++;',
    'continue;',
  ],
  'clamps++;',
)}${velocityAndX(A, '    ', false)}  }
  counts[slot] = recoveries;
  counts[slot + 1] = clamps;
}

/**
 * Lines 12–15 of substep s and lines 5–7 of substep s + 1 in one pass over a window's n
 * particles, on its f64 staging S (p, particle base + i at S[3 i]; ParticleWindow.widenStaged
 * before, demoteStaged after) and the store's x, v, w from particle \`base\` on (WindowViews): per
 * particle updateRange's operations (v and x from p, the guards in their order; a recovered
 * particle keeps x, with v = 0), then predictRange's on the v and x just written — the same
 * doubles, so the same bits as the two passes — with p = x + h v written back to S. The arrays
 * are read once for both passes. Recoveries and speed clamps counted in counts[0], counts[1]
 * (written first and bumped on the rare paths: stores after the loop deopted the optimised code
 * at every call, Node 20). Measured against that pair of passes and against them run a block of
 * 256 or 2,048 particles at a time: docs/performance.md, "(session 16)".
 */
export function updatePredictStaged(
  x: Float64Array,
  v: Float64Array,
  w: Float64Array,
  S: Float64Array,
  invH: number,
  reach: number,
  h: number,
  gx: number,
  gy: number,
  gz: number,
  f: number,
  vmax: number,
  n: number,
  counts: Int32Array,
): void {
  const reach2 = reach * reach;
  const vmax2 = vmax * vmax;
  counts[0] = 0;
  counts[1] = 0;
  for (let i = 0, i3 = 0; i < n; i++, i3 += 3) {
${updatePredictOne(
  St,
  '    ',
  [
    '// updateRange’s recovery: v = 0, x kept (its p = x is replaced by the prediction below)',
    'recovered = true;',
    'counts[0]++;',
    ...XYZ.map((c, k) => `p${c} = x${k};`),
  ],
  'counts[1]++;',
  'let recovered = false;',
  '!recovered',
)}  }
}

/**
 * The BDF2 prediction of particles [from, to) (src/core/bdf2.ts; with gravity, point damping
 * and the speed limit as in ParticlePredictionStage): v ← v̂, p ← x̃ for the
 * particles with a history, the implicit-Euler prediction for the others.
 */
export function predictBdf2(ctx: StepContext, hist: ParticleHistory, from: number, to: number): void {
  const h = ctx.h;
  const store = ctx.store;
  const world = ctx.world;
  hist.ensure(store.count);
  const x = store.x;
  const p = store.p;
  const v = store.v;
  const w = store.invMass;
  const { xPrev, vPrev, xLast, vLast, has, second } = hist;
  const gx = world.gravity[0] * h;
  const gy = world.gravity[1] * h;
  const gz = world.gravity[2] * h;
  const f = world.damping > 0 ? Math.exp(-world.damping * h) : 1;
  const vmax = world.maxSpeed;
  const vmax2 = vmax * vmax;
  const h23 = (2 / 3) * h;
  for (let i = from; i < to; i++) {
    const i3 = 3 * i;
${predictBdf2One(A, '    ')}  }
}

/**
 * The BDF2 velocity update of particles [from, to) (src/core/bdf2.ts), with the guards of
 * ParticleVelocityStage (a non-finite state is reset, a move is held to
 * maxSpeed · h): v_{n+1} = (3 x_{n+1} − 4 x_n + x_{n−1}) / (2h) where the
 * prediction was second order, (x_{n+1} − x_n)/h elsewhere; then the history
 * moves on (x_{n−1} ← x_n, v_{n−1} ← v_n) and x ← p.
 */
export function updateBdf2(ctx: StepContext, hist: ParticleHistory, from: number, to: number): void {
  const store = ctx.store;
  const stats = ctx.world.stats;
  hist.ensure(store.count);
  const x = store.x;
  const p = store.p;
  const v = store.v;
  const invH = ctx.invH;
  const half = 0.5 * ctx.invH;
  const reach = ctx.world.maxSpeed * ctx.h;
  const reach2 = reach * reach;
  const { xPrev, vPrev, xLast, vLast, has, second } = hist;
  for (let i = from; i < to; i++) {
    const i3 = 3 * i;
${updateBdf2One(A, '    ')}  }
  if (to > from) hist.started = true;
}
`;
}

/** The AssemblyScript module: predict, update (wasm/strands.ts), particlePassF32 (the elements module). */
export function emitParticlePassesAs(banner: string): string {
  const S = ADDRESSES;
  return `${banner}
// The particle passes of a substep in AssemblyScript, printed from
// scripts/kernels/emit-particle-passes.ts (one definition with src/core/particle-passes.generated.ts):
// wasm/strands.ts re-exports predict and update.

@inline function ld(a: usize, i: i32): f64 {
  return load<f64>(a + (<usize>i << 3));
}

@inline function st(a: usize, i: i32, v: f64): void {
  store<f64>(a + (<usize>i << 3), v);
}

${predictFunction(S, AS_TYPES, 'predict', '/** predictRange: v ← (v + h g) f held to vmax, then p = x + h v, particles [from, to). */')}
/** updateRange: v = (p − x)/h, x = p with its guards, particles [from, to); recoveries, speed clamps at counts (two i32). */
export function update(
${params(AS_TYPES, UPDATE)}): void {
  const reach2 = reach * reach;
  let recoveries: i32 = 0;
  let clamps: i32 = 0;
  for (let i = from; i < to; i++) {
    const i3 = 3 * i;
${guards(
  S,
  '    ',
  [
    ...XYZ.map((_, k) => `${S.set('v', k, '0')};`),
    ...XYZ.map((_, k) => `${S.set('p', k, `x${k}`)};`),
    'recoveries++;',
    'continue;',
  ],
  'clamps++;',
)}${velocityAndX(S, '    ', false)}  }
  store<i32>(counts, recoveries);
  store<i32>(counts, clamps, 4);
}
`;
}

/**
 * One particle of the f32 window's fused pass, scalar (windowUpdatePredictF32's rare path: a
 * recovery or a speed clamp of the update), for the elements module (emit-window-pass.ts):
 * updatePredictStaged's body on the window at q and the f64 x at a, v at b; returns 1 recovered,
 * 2 clamped, else 0.
 */
export function particlePassF32(): string {
  const W = WINDOW_F32;
  return `/** One particle of windowUpdatePredictF32, scalar (its rare path: a recovery or a speed clamp of the update; printed from scripts/kernels/emit-particle-passes.ts): 1 recovered, 2 clamped, else 0. */
function particlePassF32(
  q: usize, a: usize, b: usize, wi: f64,
  invH: f64, reach: f64, h: f64, gx: f64, gy: f64, gz: f64, f: f64, vmax: f64,
): i32 {
  const reach2 = reach * reach;
  const vmax2 = vmax * vmax;
${updatePredictOne(
  W,
  '  ',
  ['counted = 1;', ...XYZ.map((c, k) => `p${c} = x${k};`)],
  'counted = 2;',
  'let counted = 0;',
  'counted != 1',
)}  store<f32>(q, <f32>wi, 12);
  return counted;
}
`;
}

/** Where an f64 window's pass reads a particle's p (the window, at q), x (at a) and v (at b). */
const F64_AT = { p: 'q', x: 'a', v: 'b' };

/** One particle of an f64 window at q (p: 3 f64, as the store's) and its f64 x at a, v at b. */
const WINDOW_F64: Side = {
  L: AS,
  get: (a, c) => `load<f64>(${F64_AT[a]}${c === 0 ? '' : `, ${8 * c}`})`,
  set: (a, c, e) => `store<f64>(${F64_AT[a]}, ${e}${c === 0 ? '' : `, ${8 * c}`})`,
  w: 'wi',
  zero: '0.0',
};

/** The loop head of an f64 window's passes: particle i's addresses, its w read and written into the window's w. */
const F64_HEAD = `  for (let i = 0; i < n; i++) {
    const q = win + <usize>i * 24;
    const a = x + <usize>i * 24;
    const b = v + <usize>i * 24;
    const wi = load<f64>(w + (<usize>i << 3));
    store<f64>(winW + (<usize>i << 3), wi);
`;

/**
 * The f64 window's particle passes in the elements module (session 19, cl25; docs/solver.md
 * "Session 19 (cl25)"): windowUpdatePredictF64, updatePredictStaged's body on the window's p at
 * `win` and the store's x, v, w homed in the kernel memory (003 Algorithm 1 lines 12–15 of substep
 * s, then 5–7 of s + 1; recoveries and speed clamps at cnt, two i32), and windowPredictF64,
 * predictRange's body into the window (lines 5–7). Both write w into the window's w at `winW`, as
 * the JavaScript path's SW.set does; their parameters are the f32 passes' with `winW` last (so one
 * call serves both: an export called with an argument more drops it). The same operations in the
 * same order as the JavaScript (WebAssembly contracts nothing), so the same bits.
 */
export function windowPassF64(): string {
  const W = WINDOW_F64;
  return `/** The fused pass on an f64 window (printed from scripts/kernels/emit-particle-passes.ts, updatePredictStaged's body). */
export function windowUpdatePredictF64(
  win: usize, x: usize, v: usize, w: usize, n: i32, cnt: usize,
  invH: f64, reach: f64, h: f64, gx: f64, gy: f64, gz: f64, f: f64, vmax: f64, winW: usize,
): void {
  const reach2 = reach * reach;
  const vmax2 = vmax * vmax;
  let recoveries: i32 = 0;
  let clamps: i32 = 0;
${F64_HEAD}${updatePredictOne(
  W,
  '    ',
  ['recovered = true;', 'recoveries++;', ...XYZ.map((c, k) => `p${c} = x${k};`)],
  'clamps++;',
  'let recovered = false;',
  '!recovered',
)}  }
  store<i32>(cnt, recoveries);
  store<i32>(cnt, clamps, 4);
}

/** The prediction into an f64 window (printed from scripts/kernels/emit-particle-passes.ts, predictRange's body). */
export function windowPredictF64(
  win: usize, x: usize, v: usize, w: usize, n: i32,
  h: f64, gx: f64, gy: f64, gz: f64, f: f64, vmax: f64, winW: usize,
): void {
  const vmax2 = vmax * vmax;
${F64_HEAD}${predictOne(W, '    ')}  }
}
`;
}
