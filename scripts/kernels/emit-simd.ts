/**
 * The paired SIMD kernel of a definition, in AssemblyScript: two constraints
 * of one colour per f64x2 (lanes A and B), over pairs [pairFrom, pairTo) of
 * the layout of src/wasm/paired.ts. Every floating-point operation of the
 * definition becomes the same operation on both lanes, in the same order,
 * so each lane's result is the JavaScript kernel's to the bit:
 *
 * - values that are the same for every constraint (uniforms, literals and
 *   what is computed from them alone) stay scalars, computed once before the
 *   loop and splatted where they meet a lane value;
 * - `return` under a condition on the element clears the lanes where it
 *   holds from the active mask (and skips the pair when none is left);
 *   `? :` on the element becomes a bitselect, `if` on the element assigns
 *   under a mask; `if` on uniforms stays an `if`;
 * - a `'defer'` block lists its lanes (constraint ids) for the JavaScript
 *   kernel and clears them from the mask;
 * - `Math.sqrt` and `Math.abs` are WebAssembly instructions (exact, as in
 *   JavaScript); other Math functions are imported from JavaScript and
 *   called per lane, so they return JavaScript's bits;
 * - the writes (positions, multiplier) are stored, lane by lane, where the
 *   final mask is set.
 *
 * The same tree also gives four constraints per f32x4 (`F32X4`: f32
 * positions and inverse masses, multipliers and per-constraint scalars in
 * f32 in the groups' lane order, one f32x4 load or store each, f32 uniforms; imported functions called
 * in f64 on the f32 value and rounded back), and either width on blocked
 * lanes (`Lanes.blocked`): the layouts measured in docs/performance.md
 * (scripts/kernels/lane-variants.ts). The library ships the f64x2 kernels,
 * and for definitions with `export const f32 = true` the f32 mode's blocked
 * f32x4 kernels (F32X4_MODE) and their one-lane JavaScript twin (JS_F32).
 *
 * Uniforms fixed by the definition's `simd` specialisations are substituted
 * and folded first (`if (gamma !== 0)` disappears; `(1 + gamma) * x` is x:
 * multiplying by 1 is exact).
 */
import type * as T from '@babel/types';
import { interleaveGroups } from './interleave.js';
import { fail, type Helper, isDeferDirective, type KernelDef, type Literal } from './parse.js';
import { FIELDS } from './walk.js';

type Kind = 'f' | 'i' | 'b' | 'v' | 'm';

interface Value {
  code: string;
  kind: Kind;
  /** A literal value, when known at generation time. */
  lit?: Literal;
}

const NATIVE = new Set(['sqrt', 'abs']);

const VBIN: Record<string, string> = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div' };
const VCMP: Record<string, string> = {
  '<': 'lt',
  '<=': 'le',
  '>': 'gt',
  '>=': 'ge',
  '===': 'eq',
  '!==': 'ne',
  '==': 'eq',
  '!=': 'ne',
};
const SCMP: Record<string, string> = { '===': '==', '!==': '!=' };

function fmtNumber(v: number, kind: 'f' | 'i'): string {
  if (kind === 'i') return String(v);
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : v < 0 ? '-Infinity' : 'NaN';
  const s = String(v);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

function evalBinary(op: string, a: Literal, b: Literal): Literal | undefined {
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return a / b;
      case '<':
        return a < b;
      case '<=':
        return a <= b;
      case '>':
        return a > b;
      case '>=':
        return a >= b;
    }
  }
  if (op === '===' || op === '==') return a === b;
  if (op === '!==' || op === '!=') return a !== b;
  return undefined;
}

/**
 * The lane type: two f64 per f64x2 (the default), four f32 per f32x4 (the
 * f32 mode), or one f32 lane in JavaScript (`JS_F32`: the f32 mode's
 * JavaScript twin, every operation rounded with Math.fround).
 */
export interface Lanes {
  /** Vector type of the values, of the masks, and the number of lanes. */
  v: 'f64x2' | 'f32x4' | 'js';
  m: 'i64x2' | 'i32x4' | 'js';
  n: 1 | 2 | 4;
  /** Scalar type of a lane, and its size in bytes (positions and inverse masses are stored in it). */
  f: 'f64' | 'f32';
  bytes: 8 | 4;
  /**
   * Blocked: the particles of each group come gathered in a block (vertex v,
   * field x y z w at v128 (4 v + field), a block of 4 arity v128 per group),
   * read and written with whole v128 loads and stores (inactive lanes keep
   * their value); the gather and scatter are separate loops
   * (emitBlockMoves). The kernel's `p` is then the colour's block and `w`
   * is unused.
   */
  blocked?: boolean;
  /**
   * How `Math.atan2` is computed: 'call' imports JavaScript's (f64; the f32
   * kernels round its value), 'poly' evaluates the f32 polynomial of
   * `atan2Poly` with the kernel's own operations (the f32 mode: the same
   * operations in the f32x4 kernel and its JavaScript twin).
   */
  atan?: 'call' | 'poly';
  /**
   * The f32 gather loads each lane's x, y, z with one v128 load (x y z and
   * the next particle's x) and transposes the four lanes with shuffles,
   * instead of twelve scalar loads and stores (the window has a spare
   * particle at its end, so the load stays inside it); the scatter
   * transposes back and stores x y with one 8-byte and z with one 4-byte
   * store per lane.
   */
  transpose?: boolean;
  /**
   * With `transpose`: the f32 window holds each particle as x y z w (16
   * bytes: the inverse mass beside the position) instead of x y z (12
   * bytes) with the inverse masses apart. The gather then transposes four
   * whole particles (a 4 × 4 transpose: one more shuffle, no per-lane loads
   * of w), the scatter stores x y z at the 16-byte stride and leaves w, and
   * the window is filled and emptied by windowMovesF32 (one f32x4 demotion
   * per particle instead of TypedArray.set's per-value conversion).
   */
  aos4?: boolean;
  /**
   * With `blocked`, `transpose` and `aos4`: no block. Each group's particles
   * are read from the x y z w window and transposed 4 × 4 in registers where
   * the kernel first reads them, and written back to the window (x y by an
   * 8-byte, z by a 4-byte store per lane) at its end: the gather, the kernel
   * and the scatter in one loop, without the block's stores and loads. The
   * same operations on the same values in the same order per group (a
   * colour's constraints share no particle), so the same bits. The kernel's
   * `p` is then the window and `pairIdx` the groups' particle indices.
   */
  fused?: boolean;
}

export const F64X2: Lanes = { v: 'f64x2', m: 'i64x2', n: 2, f: 'f64', bytes: 8 };
export const F32X4: Lanes = { v: 'f32x4', m: 'i32x4', n: 4, f: 'f32', bytes: 4 };
/** The f32 mode as shipped: blocked f32x4 lanes, atan2 by the in-kernel polynomial. */
export const F32X4_MODE: Lanes = { ...F32X4, blocked: true, atan: 'poly', transpose: true, aos4: true };
/** The f32 mode with gather, kernel and scatter in one loop (Lanes.fused). */
export const F32X4_FUSED: Lanes = { ...F32X4_MODE, fused: true };
/** The f32 mode's JavaScript twin: one lane, every f32 operation rounded with Math.fround. */
export const JS_F32: Lanes = { v: 'js', m: 'js', n: 1, f: 'f32', bytes: 4, atan: 'poly' };

/**
 * atan(z) ≈ z P(z²) on [0, 1]: the coefficients of P (degree 7 in z²), f32
 * values, fitted here by iteratively reweighted least squares (Lawson's
 * algorithm towards the minimax relative error) on 4,000 Chebyshev nodes.
 * Evaluated in f32 by Horner's rule its error is ≤ 1.5e-7 rad on [0, 1]
 * (about one f32 ulp of π/4); test/kernel-f32 checks it against Math.atan2.
 */
export const ATAN_COEFFS = [
  0.9999998807907104, -0.33331990242004395, 0.19969728589057922, -0.14019502699375153, 0.09914348274469376,
  -0.05948711559176445, 0.024252885952591896, -0.004693404771387577,
];

/** Lane names (A, B, C, D). */
const LANE = ['A', 'B', 'C', 'D'];

class SimdEmitter {
  private readonly kinds = new Map<string, Kind>();
  /** Scalar values computed before the loop (uniform consts, splats). */
  private readonly pre: string[] = [];
  private readonly splats = new Map<string, string>();
  /** Loads emitted in the loop body so far, by key. */
  private readonly loaded = new Map<string, string>();
  private out: string[] = [];
  private tmp = 0;
  private hasMask = false;
  /** Final values of written particle coordinates and of the multiplier. */
  private readonly writes = new Map<string, string>();
  private writing = false;
  private readonly imports = new Set<string>();
  private readonly literals = new Map<string, Literal>();
  /** The fused kernel's final rows of the written coordinates. */
  private readonly written = new Map<string, string>();
  /** The increments of positions written as `p.x += d` or `p.x -= d`. */
  private readonly deltas = new Map<string, { op: string; d: string }>();
  /** −k of the moves `p.x += g k` of the blocked kernels, by k's code (see assign). */
  private readonly negs = new Map<string, string>();
  /** `const` locals that are +0, positive or NaN (see nonneg). */
  private readonly nonnegLocals = new Set<string>();
  /** Locals assigned after their declaration (in code that is not folded away). */
  private readonly assigned = new Set<string>();
  /** Where the top-level statement being emitted begins in `out` (loads go there). */
  private topMark = 0;
  private depth = 0;
  /** Parameters of the helpers being inlined: a value, or the caller's particle. */
  private readonly aliases: Map<string, Value | { particle: string }>[] = [];

  private readonly V: string;
  private readonly M: string;
  private readonly lanes: number[];
  /** The JavaScript twin of the f32 mode (JS_F32): one lane, booleans for masks, Math.fround after every operation. */
  private readonly js: boolean;

  constructor(
    private readonly def: KernelDef,
    private readonly L: Lanes = F64X2,
  ) {
    this.V = L.v;
    this.M = L.m;
    this.lanes = L.n === 1 ? [0] : L.n === 2 ? [0, 1] : [0, 1, 2, 3];
    this.js = L.v === 'js';
    for (const p of def.params) {
      if (p.kind === 'uniform') this.kinds.set(p.name, 'f');
      if (p.kind === 'int') this.kinds.set(p.name, 'i');
      if (p.kind === 'flag') this.kinds.set(p.name, 'b');
    }
    for (const [k, v] of def.simd ?? []) this.literals.set(k, v);
    // the f32 mode's own specialisations (export const f32 = { … }) over the simd ones, in the f32
    // mode's kernels (F32X4_MODE, F32X4_FUSED, JS_F32: the in-kernel atan); the f32x4 layouts of
    // lane-variants.ts (atan2 imported) keep the f64 kernels' statements
    if (L.f === 'f32' && L.atan === 'poly') for (const [k, v] of def.f32Fixed) this.literals.set(k, v);
  }

  private err(node: T.Node | null | undefined, msg: string): never {
    return fail(this.def, node, msg);
  }

  private fresh(prefix: string): string {
    return `_${prefix}${this.tmp++}`;
  }

  private param(name: string) {
    return this.def.params.find((p) => p.name === name);
  }

  private alias(name: string): Value | { particle: string } | undefined {
    for (let k = this.aliases.length - 1; k >= 0; k--) {
      const a = this.aliases[k].get(name);
      if (a) return a;
    }
    return undefined;
  }

  /** The caller's name of a particle (a helper's parameter is an alias). */
  private particleName(name: string): string {
    const a = this.alias(name);
    return a && 'particle' in a ? a.particle : name;
  }

  /** Binds a helper's parameters to the call's arguments. */
  private bind(
    h: Helper,
    args: T.Node[],
    node: T.Node,
    statement: boolean,
  ): Map<string, Value | { particle: string }> {
    const map = new Map<string, Value | { particle: string }>();
    h.params.forEach((p, k) => {
      const arg = args[k] as T.Expression;
      if (p.particle) {
        if (arg?.type !== 'Identifier') this.err(node, `${h.name}: argument ${p.name} is a particle`);
        map.set(p.name, { particle: this.particleName(arg.name) });
        return;
      }
      if (!statement && arg?.type !== 'Identifier' && arg?.type !== 'NumericLiteral')
        this.err(node, `${h.name} takes names or numbers`);
      let v = this.expr(arg);
      if (v.kind === 'v' && !/^[A-Za-z_$][\w$]*$/.test(v.code)) {
        const t = this.fresh(p.name);
        this.out.push(`const ${t} = ${v.code};`);
        v = { code: t, kind: 'v' };
      }
      map.set(p.name, v);
    });
    return map;
  }

  /** A uniform f64 value as an f64x2 (splatted once before the loop). */
  private splat(v: Value): string {
    if (v.kind === 'v') return v.code;
    if (v.kind !== 'f' && v.kind !== 'i') this.err(null, `cannot use a boolean as a number`);
    const code = v.lit !== undefined && typeof v.lit === 'number' ? fmtNumber(v.lit, 'f') : v.code;
    let name = this.splats.get(code);
    if (!name) {
      name = `_v${this.splats.size}`;
      this.splats.set(code, name);
      if (this.js) {
        const lit = v.lit !== undefined && typeof v.lit === 'number';
        this.pre.push(`const ${name} = ${lit ? f32Literal(v.lit as number) : `Math.fround(${code})`};`);
      } else
        this.pre.push(`const ${name} = ${this.V}.splat(${this.L.f === 'f32' ? `<f32>(${code})` : code});`);
    }
    return name;
  }

  /** A boolean (uniform or mask) as a mask. */
  private mask(v: Value): string {
    if (v.kind === 'm') return v.code;
    if (v.kind !== 'b') this.err(null, 'expected a condition');
    if (this.js) return v.lit === true ? 'true' : v.lit === false ? 'false' : v.code;
    if (v.lit === true) return `${this.M}.splat(-1)`;
    if (v.lit === false) return `${this.M}.splat(0)`;
    return `(${v.code} ? ${this.M}.splat(-1) : ${this.M}.splat(0))`;
  }

  private lit(value: Literal, node: T.Node): Value {
    if (typeof value === 'number') return { code: fmtNumber(value, 'f'), kind: 'f', lit: value };
    if (typeof value === 'boolean') return { code: String(value), kind: 'b', lit: value };
    if (value === null) return { code: 'null', kind: 'b', lit: null };
    return this.err(node, `a string is not a value in the SIMD kernel (${value})`);
  }

  /** A load in the loop body, emitted once (at first use, before the statement that needs it). */
  private load(key: string, code: string): string {
    let name = this.loaded.get(key);
    if (!name) {
      name = `l_${key}`;
      this.loaded.set(key, name);
      // at the top level of the loop body, before the statement that needs it, so that later
      // statements see it too
      this.out.splice(this.topMark++, 0, `const ${name} = ${code};`);
    }
    return name;
  }

  /**
   * The fused kernel's rows (x, y, z, w over lanes A–D) of particle `obj`
   * (the v-th of the definition): its four lanes' x y z w read from the
   * window and transposed, as gatherF32N does into the block.
   */
  private gatherRows(obj: string, v: number): string[] {
    const ar = this.def.particles.length;
    const ib = this.load('ib', `pairIdx + <usize>j * ${16 * ar}`);
    const ids = [0, 1, 2, 3].map((l) =>
      this.load(`i_${obj}${LANE[l]}`, `load<i32>(${ib}, ${4 * (4 * v + l)})`),
    );
    const q = ids.map((i, l) => this.load(`q_${obj}${l}`, `v128.load(p + <usize>${i} * 16)`));
    const t0 = this.load(`t_${obj}0`, `v128.shuffle<i32>(${q[0]}, ${q[1]}, 0, 4, 1, 5)`);
    const t1 = this.load(`t_${obj}1`, `v128.shuffle<i32>(${q[2]}, ${q[3]}, 0, 4, 1, 5)`);
    const t2 = this.load(`t_${obj}2`, `v128.shuffle<i32>(${q[0]}, ${q[1]}, 2, 6, 3, 7)`);
    const t3 = this.load(`t_${obj}3`, `v128.shuffle<i32>(${q[2]}, ${q[3]}, 2, 6, 3, 7)`);
    return [
      this.load(`${obj}_x`, `v128.shuffle<i32>(${t0}, ${t1}, 0, 1, 4, 5)`),
      this.load(`${obj}_y`, `v128.shuffle<i32>(${t0}, ${t1}, 2, 3, 6, 7)`),
      this.load(`${obj}_z`, `v128.shuffle<i32>(${t2}, ${t3}, 0, 1, 4, 5)`),
      this.load(`${obj}_w`, `v128.shuffle<i32>(${t2}, ${t3}, 2, 3, 6, 7)`),
    ];
  }

  /** The constraint ids of the lanes. */
  private pairIndex(): string[] {
    if (this.js) return ['_c'];
    const sh = this.L.n === 2 ? 3 : 4;
    return this.lanes.map((k) =>
      this.load(`el${LANE[k]}`, `load<i32>(pairEl + (<usize>j << ${sh})${k ? `, ${4 * k}` : ''})`),
    );
  }

  /**
   * A per-constraint value of every lane (`scalar`, `lam`): in f64 by
   * constraint id (f64x2), or in the f32 mode one f32x4 of the group's four
   * lanes (src/wasm/paired.ts keeps both arrays in f32 in the groups' lane
   * order: the same values the f64 ones round to).
   */
  private perConstraint(ptr: string): string {
    if (this.js) return this.load(`${ptr}V`, `Math.fround(_${ptr}[_c])`);
    if (this.L.f === 'f32') return this.load(`${ptr}V`, `v128.load(${ptr} + (<usize>j << 4))`);
    const ids = this.pairIndex();
    return this.load(`${ptr}V`, `ldv(${ptr}, ${ids.join(', ')})`);
  }

  expr(e: T.Expression | T.PrivateName): Value {
    switch (e.type) {
      case 'NumericLiteral':
        return this.lit(e.value, e);
      case 'BooleanLiteral':
        return this.lit(e.value, e);
      case 'NullLiteral':
        return this.lit(null, e);
      case 'StringLiteral':
        return this.lit(e.value, e);
      case 'TSAsExpression':
      case 'TSNonNullExpression':
        return this.expr(e.expression);
      case 'Identifier':
        return this.ident(e);
      case 'MemberExpression':
        return this.member(e);
      case 'UnaryExpression':
        return this.unary(e);
      case 'BinaryExpression':
        return this.binary(e);
      case 'LogicalExpression':
        return this.logical(e);
      case 'ConditionalExpression':
        return this.conditional(e);
      case 'CallExpression':
        return this.call(e);
      default:
        return this.err(e, `${e.type} is not in the kernel language`);
    }
  }

  private ident(e: T.Identifier): Value {
    const al = this.alias(e.name);
    if (al) {
      if ('particle' in al) this.err(e, `${e.name} is read through its fields`);
      return al;
    }
    if (this.literals.has(e.name)) return this.lit(this.literals.get(e.name)!, e);
    const p = this.param(e.name);
    if (p?.kind === 'scalar' || p?.kind === 'multiplier') {
      if (p.kind === 'multiplier' && this.writes.has('lam'))
        this.err(e, 'the multiplier is read after it is written');
      return { code: this.perConstraint(p.kind === 'scalar' ? 'scalar' : 'lam'), kind: 'v' };
    }
    if (p?.kind === 'jsonly' || p?.kind === 'index')
      this.err(e, `${e.name} is JavaScript only (use it in a 'defer' block)`);
    if (p) {
      if (p.kind === 'particle' || p.kind === 'record') this.err(e, `${e.name} is read through its fields`);
    }
    const k = this.kinds.get(e.name);
    if (!k) this.err(e, `unknown name ${e.name}`);
    return { code: e.name, kind: k };
  }

  private member(e: T.MemberExpression): Value {
    if (e.object.type !== 'Identifier') this.err(e, 'member access is only p.x / R[k] / Math.X');
    const obj = this.particleName(e.object.name);
    if (obj === 'Math' && !e.computed && e.property.type === 'Identifier') {
      const c = e.property.name;
      if (c === 'PI' || c === 'E' || c === 'SQRT2') return this.lit(Math[c], e);
      this.err(e, `Math.${c} is not a constant`);
    }
    const p = this.param(obj);
    if (p?.kind === 'particle') {
      const f = !e.computed && e.property.type === 'Identifier' ? FIELDS[e.property.name] : undefined;
      if (!f) this.err(e, 'a particle has x, y, z, w');
      if (f.array === 'x')
        this.err(e, `${obj}.x0 (store.x) is JavaScript only: fix the uniform that guards it in simd`);
      const k = (e.property as T.Identifier).name;
      if (this.writes.has(`${obj}.${k}`)) this.err(e, `${obj}.${k} is read after it is written`);
      const n = this.L.n;
      const v = this.def.particles.indexOf(p);
      if (this.js) {
        // the f32 twin reads the f64 store and rounds, as the f32x4 kernel's window copy does
        const ar = this.def.particles.length;
        const i = this.load(`i_${obj}`, `_idx[${ar} * _c${v ? ` + ${v}` : ''}]`);
        if (f.array === 'w') return { code: this.load(`${obj}_w`, `Math.fround(_w[${i}])`), kind: 'v' };
        const i3 = this.load(`i_${obj}3`, `3 * ${i}`);
        const at = f.k ? ` + ${f.k}` : '';
        return { code: this.load(`${obj}_${k}`, `Math.fround(_p[${i3}${at}])`), kind: 'v' };
      }
      if (this.L.fused) {
        const rows = this.gatherRows(obj, v);
        return { code: rows[f.array === 'w' ? 3 : f.k], kind: 'v' };
      }
      if (this.L.blocked) {
        const blk = this.load('blk', `p + <usize>(j - pairFrom) * ${64 * this.def.particles.length}`);
        const field = f.array === 'w' ? 3 : f.k;
        return { code: this.load(`${obj}_${k}`, `v128.load(${blk}, ${16 * (4 * v + field)})`), kind: 'v' };
      }
      const I = this.lanes.map((l) =>
        this.load(
          `i_${obj}${LANE[l]}`,
          `load<i32>(pairIdx + <usize>j * ${4 * n * this.def.particles.length}, ${4 * n * v + 4 * l})`,
        ),
      );
      const ldv = n === 4 ? 'ldv4' : 'ldv';
      if (f.array === 'w') return { code: this.load(`${obj}_w`, `${ldv}(w, ${I.join(', ')})`), kind: 'v' };
      const I3 = this.lanes.map((l) => this.load(`i_${obj}${LANE[l]}3`, `${I[l]} * 3`));
      const plus = f.k ? ` + ${f.k}` : '';
      return {
        code: this.load(`${obj}_${k}`, `${ldv}(p, ${I3.map((i) => `${i}${plus}`).join(', ')})`),
        kind: 'v',
      };
    }
    if (p?.kind === 'record') {
      if (!e.computed || e.property.type !== 'NumericLiteral') this.err(e, 'a record is read as R[constant]');
      const k = e.property.value;
      if (this.js) {
        const o = this.load('rec', `${p.stride} * _c`);
        return { code: this.load(`${obj}${k}`, `Math.fround(_rec[${o}${k ? ` + ${k}` : ''}])`), kind: 'v' };
      }
      const base = this.load('rec', `pairRec + <usize>j * ${16 * p.stride}`);
      return { code: this.load(`${obj}${k}`, `v128.load(${base}, ${16 * k})`), kind: 'v' };
    }
    return this.err(e, `${obj} has no fields here`);
  }

  private unary(e: T.UnaryExpression): Value {
    const a = this.expr(e.argument);
    if (e.operator === '-') {
      if (a.lit !== undefined && typeof a.lit === 'number') return this.lit(-a.lit, e);
      if (a.kind === 'v') return { code: this.js ? `(-${a.code})` : this.vneg(a.code), kind: 'v' };
      return { code: `(-${a.code})`, kind: a.kind };
    }
    if (e.operator === '+') return a;
    if (e.operator === '!') {
      if (a.lit !== undefined) return this.lit(!a.lit, e);
      if (a.kind === 'm') return { code: this.notM(a.code), kind: 'm' };
      return { code: `(!${a.code})`, kind: 'b' };
    }
    return this.err(e, `operator ${e.operator}`);
  }

  private binary(e: T.BinaryExpression): Value {
    const a = this.expr(e.left as T.Expression);
    const b = this.expr(e.right);
    const op = e.operator;
    if (a.lit !== undefined && b.lit !== undefined) {
      const v = evalBinary(op, a.lit, b.lit);
      if (v !== undefined) return this.lit(v, e);
    }
    if (VBIN[op]) {
      // multiplying by exactly 1 changes no bit (the SIMD kernels fold a specialised (1 + γ))
      if (op === '*' && a.lit === 1) return b;
      if (op === '*' && b.lit === 1) return a;
      // x − (+0) and x + (−0) are x for every x (signed zeros and NaN included)
      if (op === '-' && b.lit === 0 && !Object.is(b.lit, -0) && a.kind === 'v') return a;
      if (op === '+' && Object.is(b.lit, -0) && a.kind === 'v') return a;
      if (a.kind === 'v' || b.kind === 'v')
        return { code: this.vbin(op, this.splat(a), this.splat(b)), kind: 'v' };
      const kind = a.kind === 'i' && b.kind === 'i' ? 'i' : 'f';
      const code = `(${this.scalar(a, kind)} ${op} ${this.scalar(b, kind)})`;
      // an f32 scalar operation of the wasm kernel, rounded as it rounds
      return { code: this.js && kind === 'f' ? `Math.fround${code}` : code, kind };
    }
    if (VCMP[op]) {
      const strict = op === '==' ? '===' : op === '!=' ? '!==' : op;
      if (a.kind === 'v' || b.kind === 'v') {
        if (this.js) return { code: `(${this.splat(a)} ${strict} ${this.splat(b)})`, kind: 'm' };
        return { code: `${this.V}.${VCMP[op]}(${this.splat(a)}, ${this.splat(b)})`, kind: 'm' };
      }
      const kind = a.kind === 'i' || b.kind === 'i' ? 'i' : 'f';
      const sop = this.js ? strict : (SCMP[op] ?? op);
      return { code: `(${this.scalar(a, kind)} ${sop} ${this.scalar(b, kind)})`, kind: 'b' };
    }
    return this.err(e, `operator ${op}`);
  }

  private scalar(v: Value, kind: 'f' | 'i'): string {
    if (v.lit !== undefined && typeof v.lit === 'number') {
      if (kind === 'f' && this.js) return f32Literal(v.lit);
      return kind === 'f' && this.L.f === 'f32' ? `<f32>(${fmtNumber(v.lit, kind)})` : fmtNumber(v.lit, kind);
    }
    return v.code;
  }

  /** A lane operation + − × ÷ (Math.fround of the double result in the JavaScript twin: the f32 result). */
  private vbin(op: string, a: string, b: string): string {
    return this.js ? `Math.fround(${a} ${op} ${b})` : `${this.V}.${VBIN[op]}(${a}, ${b})`;
  }

  private andM(a: string, b: string): string {
    return this.js ? `(${a} && ${b})` : `v128.and(${a}, ${b})`;
  }

  private orM(a: string, b: string): string {
    return this.js ? `(${a} || ${b})` : `v128.or(${a}, ${b})`;
  }

  /**
   * −x of a vector as the xor of its sign bit, which is how f32x4.neg and f64x2.neg are defined
   * (the same bits, NaN included): V8 builds the mask of `neg` anew at every use (x64: pcmpeqd,
   * pslld, xorps), while the mask splatted once before the loop is one xor with a register or a
   * spill slot (docs/performance.md, session 16).
   */
  private vneg(x: string): string {
    return `v128.xor(${x}, ${this.signMask()})`;
  }

  /** |x| of a vector: the sign bit cleared (f32x4.abs, f64x2.abs by definition), as vneg. */
  private vabs(x: string): string {
    return `v128.andnot(${x}, ${this.signMask()})`;
  }

  /** −0 splatted before the loop: the sign bit of every lane. */
  private signMask(): string {
    return this.splat({ code: '-0.0', kind: 'f' });
  }

  /**
   * not(a == b) of one vector comparison as a ≠ b (the instruction is defined so: NaN ≠ NaN), one
   * instruction instead of a compare and a not; any other mask as v128.not.
   */
  private notCmp(cond: string): string {
    const m = /^(f32x4|f64x2)\.eq\((.*)\)$/.exec(cond);
    if (m !== null && balanced(m[2])) return `${m[1]}.ne(${m[2]})`;
    return `v128.not(${cond})`;
  }

  private notM(a: string): string {
    return this.js ? `(!${a})` : `v128.not(${a})`;
  }

  /** a and not b. */
  private andnotM(a: string, b: string): string {
    return this.js ? `(${a} && !${b})` : `v128.andnot(${a}, ${b})`;
  }

  /** m ? a : b, lane by lane. */
  private select(a: string, b: string, m: string): string {
    return this.js ? `(${m} ? ${a} : ${b})` : `v128.bitselect(${a}, ${b}, ${m})`;
  }

  private logical(e: T.LogicalExpression): Value {
    const a = this.expr(e.left);
    const b = this.expr(e.right);
    const and = e.operator === '&&';
    if (e.operator !== '&&' && e.operator !== '||') this.err(e, `operator ${e.operator}`);
    if (a.lit !== undefined) return a.lit ? (and ? b : a) : and ? a : b;
    if (b.lit !== undefined && a.kind === 'b') {
      if (and) return b.lit ? a : b;
      return b.lit ? b : a;
    }
    if (a.kind === 'm' || b.kind === 'm') {
      return {
        code: and ? this.andM(this.mask(a), this.mask(b)) : this.orM(this.mask(a), this.mask(b)),
        kind: 'm',
      };
    }
    return { code: `(${a.code} ${e.operator} ${b.code})`, kind: 'b' };
  }

  private conditional(e: T.ConditionalExpression): Value {
    const c = this.expr(e.test);
    if (c.lit !== undefined) return this.expr(c.lit ? e.consequent : e.alternate);
    const a = this.expr(e.consequent);
    const b = this.expr(e.alternate);
    if (c.kind === 'b') {
      if (a.kind === 'v' || b.kind === 'v')
        return { code: `(${c.code} ? ${this.splat(a)} : ${this.splat(b)})`, kind: 'v' };
      return { code: `(${c.code} ? ${a.code} : ${b.code})`, kind: a.kind };
    }
    const mm = this.minMax(e, a, b);
    if (mm !== null) return { code: mm, kind: 'v' };
    return { code: this.select(this.splat(a), this.splat(b), c.code), kind: 'v' };
  }

  /**
   * `x > u ? u : x` (and its three mirror forms) as one pseudo-minimum or
   * pseudo-maximum instruction (f32x4.pmin: b < a ? b : a; pmax: a < b ? b :
   * a, one minps / maxps) instead of a compare and a bitselect: the same
   * select, so the same bits (NaN and signed zeros included). null when the
   * conditional is not of that form.
   */
  private minMax(e: T.ConditionalExpression, a: Value, b: Value): string | null {
    if (this.js || e.test.type !== 'BinaryExpression') return null;
    const op = e.test.operator;
    if (op !== '<' && op !== '>') return null;
    const l = this.splat(this.expr(e.test.left as T.Expression));
    const r = this.splat(this.expr(e.test.right));
    const ca = this.splat(a);
    const cb = this.splat(b);
    // l > r ? r : l = pmin(l, r); l < r ? l : r = pmin(r, l); l < r ? r : l = pmax(l, r); l > r ? l : r = pmax(r, l)
    if (op === '>' && ca === r && cb === l) return `${this.V}.pmin(${l}, ${r})`;
    if (op === '<' && ca === l && cb === r) return `${this.V}.pmin(${r}, ${l})`;
    if (op === '<' && ca === r && cb === l) return `${this.V}.pmax(${l}, ${r})`;
    if (op === '>' && ca === l && cb === r) return `${this.V}.pmax(${r}, ${l})`;
    return null;
  }

  private call(e: T.CallExpression): Value {
    const callee = e.callee;
    if (callee.type === 'Identifier') {
      const h = this.def.helpers.get(callee.name);
      if (!h) this.err(e, `${callee.name} is not a helper of src/kernels/helpers.ts`);
      if (h.expr === null) this.err(e, `${h.name} is a statement: call it on its own`);
      this.aliases.push(this.bind(h, e.arguments, e, false));
      const v = this.expr(h.expr);
      this.aliases.pop();
      return v;
    }
    if (
      callee.type !== 'MemberExpression' ||
      callee.object.type !== 'Identifier' ||
      callee.object.name !== 'Math' ||
      callee.property.type !== 'Identifier'
    ) {
      return this.err(e, 'only Math functions may be called (other calls belong in a defer block)');
    }
    const fn = callee.property.name;
    const args = e.arguments.map((a) => this.expr(a as T.Expression));
    if (args.every((a) => a.lit !== undefined && typeof a.lit === 'number')) {
      const f = (Math as unknown as Record<string, (...x: number[]) => number>)[fn];
      return this.lit(f(...args.map((a) => a.lit as number)), e);
    }
    const vector = args.some((a) => a.kind === 'v');
    const f32 = this.L.f === 'f32';
    if (fn === 'atan2' && this.L.atan === 'poly')
      return this.atan2Poly(args[0], args[1], this.nonneg(e.arguments[0] as T.Expression));
    if (this.js) {
      // Math.sqrt rounded to f32 is the f32 square root (53 ≥ 2·24 + 2 bits); |x| is exact
      const xs = args.map((a) => (a.kind === 'v' ? a.code : this.scalar(a, 'f'))).join(', ');
      return {
        code: fn === 'abs' ? `Math.abs(${xs})` : `Math.fround(Math.${fn}(${xs}))`,
        kind: vector ? 'v' : 'f',
      };
    }
    if (NATIVE.has(fn)) {
      if (vector && fn === 'abs') return { code: this.vabs(this.splat(args[0])), kind: 'v' };
      if (vector) return { code: `${this.V}.${fn}(${this.splat(args[0])})`, kind: 'v' };
      // sqrt in f64 rounded to f32 is the f32 square root (53 ≥ 2·24 + 2 bits)
      if (f32) return { code: `<f32>Math.${fn}(<f64>${this.scalar(args[0], 'f')})`, kind: 'f' };
      return { code: `Math.${fn}(${args[0].code})`, kind: 'f' };
    }
    this.imports.add(fn);
    const js = `js_${fn}`;
    const arg = (a: Value, k: number) => {
      if (a.kind !== 'v') return f32 ? `<f64>${this.scalar(a, 'f')}` : this.scalar(a, 'f');
      return f32 ? `<f64>${this.V}.extract_lane(${a.code}, ${k})` : `${this.V}.extract_lane(${a.code}, ${k})`;
    };
    const lane = (k: number) => `${f32 ? '<f32>' : ''}${js}(${args.map((a) => arg(a, k)).join(', ')})`;
    if (!vector) return { code: lane(0), kind: 'f' };
    // per lane, through the JavaScript function: JavaScript's bits (rounded to f32 in the f32 mode)
    let code = `${this.V}.splat(${lane(0)})`;
    for (const k of this.lanes.slice(1)) code = `${this.V}.replace_lane(${code}, ${k}, ${lane(k)})`;
    return { code, kind: 'v' };
  }

  /**
   * atan2(y, x) in the kernel's own operations (Lanes.atan 'poly'), the same
   * sequence in the f32x4 kernel and its JavaScript twin: range reduction to
   * z = min(|x|, |y|) / max(|x|, |y|) ∈ [0, 1] (0 when both are 0), atan z by
   * the odd polynomial z P(z²) of ATAN_COEFFS (Horner), then π/2 − r where
   * |y| > |x|, π − r where x < 0, and −r where y < 0 — the quadrants of
   * atan2, as in any range-reduced arctangent (e.g. Cephes' atanf).
   */
  private atan2Poly(y: Value, x: Value, yNonneg = false): Value {
    const v = (a: Value) => (a.kind === 'v' ? a.code : this.splat(a));
    const t = (code: string, kind: Kind = 'v'): Value => {
      const n = this.fresh('at');
      this.out.push(`const ${n} = ${code};`);
      return { code: n, kind };
    };
    const num = (c: number): string => this.splat({ code: fmtNumber(c, 'f'), kind: 'f', lit: c });
    const cmp = (op: '>' | '<', a: string, b: string) =>
      this.js ? `(${a} ${op} ${b})` : `${this.V}.${VCMP[op]}(${a}, ${b})`;
    const abs = (a: string) => (this.js ? `Math.abs(${a})` : this.vabs(a));
    const Y = v(y);
    const X = v(x);
    const ax = t(abs(X)).code;
    // y known to be +0, positive or NaN (nonneg): |y| is y and the sign of the result is never flipped
    const ay = yNonneg ? Y : t(abs(Y)).code;
    const big = t(cmp('>', ay, ax), 'm').code;
    // lo = big ? |x| : |y| and hi = big ? |y| : |x|: in the vector kernels one pmin and one pmax
    // (pmin(a, b) = b < a ? b : a, pmax(a, b) = a < b ? b : a: the same selects, the same bits)
    const lo = t(this.js ? this.select(ax, ay, big) : `${this.V}.pmin(${ay}, ${ax})`).code;
    const hi = t(this.js ? this.select(ay, ax, big) : `${this.V}.pmax(${ax}, ${ay})`).code;
    const q = t(this.vbin('/', lo, hi)).code;
    // z = hi > 0 ? q : +0, in the vector kernels q and the mask (+0 where it is clear: the same bits)
    const z = t(
      this.js ? this.select(q, num(0), cmp('>', hi, num(0))) : `v128.and(${q}, ${cmp('>', hi, num(0))})`,
    ).code;
    const z2 = t(this.vbin('*', z, z)).code;
    const c = ATAN_COEFFS;
    let h = num(c[c.length - 1]);
    for (let k = c.length - 2; k >= 0; k--) h = t(this.vbin('+', this.vbin('*', h, z2), num(c[k]))).code;
    let r = t(this.vbin('*', h, z)).code;
    r = t(this.select(this.vbin('-', num(Math.PI / 2), r), r, big)).code;
    r = t(this.select(this.vbin('-', num(Math.PI), r), r, cmp('<', X, num(0)))).code;
    if (yNonneg) return { code: r, kind: 'v' };
    return {
      code: this.select(this.js ? `(-${r})` : this.vneg(r), r, cmp('<', Y, num(0))),
      kind: 'v',
    };
  }

  /**
   * Whether an expression is +0, positive or NaN for every input (never −0
   * or negative): |x|, √ of such a value, x·x, and sums and products of such
   * values, non-negative literals, `const` locals defined so, and helpers
   * whose expression is so (norm2). atan2Poly then skips |y| and the final
   * sign select, which change nothing for such a y.
   */
  private nonneg(e: T.Expression): boolean {
    switch (e.type) {
      case 'NumericLiteral':
        return e.value >= 0;
      case 'Identifier':
        return this.nonnegLocals.has(e.name);
      case 'ParenthesizedExpression':
        return this.nonneg(e.expression);
      case 'BinaryExpression': {
        const l = e.left as T.Expression;
        if (e.operator === '*' && l.type === 'Identifier' && e.right.type === 'Identifier')
          if (l.name === e.right.name) return true;
        return (e.operator === '*' || e.operator === '+') && this.nonneg(l) && this.nonneg(e.right);
      }
      case 'CallExpression': {
        const c = e.callee;
        if (c.type === 'Identifier') {
          // a helper's expression, its parameters unknown (x·x of one parameter still counts)
          const h = this.def.helpers.get(c.name);
          if (!h || h.expr === null) return false;
          const saved = new Set(this.nonnegLocals);
          this.nonnegLocals.clear();
          const r = this.nonneg(h.expr);
          for (const n of saved) this.nonnegLocals.add(n);
          return r;
        }
        if (c.type !== 'MemberExpression' || c.object.type !== 'Identifier' || c.object.name !== 'Math')
          return false;
        if (c.property.type !== 'Identifier') return false;
        if (c.property.name === 'abs') return true;
        return c.property.name === 'sqrt' && this.nonneg(e.arguments[0] as T.Expression);
      }
      default:
        return false;
    }
  }

  /** Kind of every local (a `let` is a lane value when any assignment to it is). */
  inferKinds(body: T.Statement[]): void {
    const saveOut = this.out;
    const saveLoaded = new Map(this.loaded);
    const savePre = this.pre.length;
    const saveSplats = new Map(this.splats);
    const saveTmp = this.tmp;
    const saveImports = new Set(this.imports);
    for (let round = 0; round < 8; round++) {
      const before = JSON.stringify([...this.kinds]);
      this.out = [];
      const visit = (s: T.Statement): void => {
        if (s.type === 'VariableDeclaration') {
          for (const d of s.declarations) {
            const n = (d.id as T.Identifier).name;
            const k = d.init ? this.expr(d.init).kind : 'f';
            this.join(n, k);
          }
        } else if (s.type === 'ExpressionStatement' && s.expression.type === 'AssignmentExpression') {
          const t = s.expression.left;
          if (t.type === 'Identifier' && !this.param(t.name)) {
            this.join(t.name, this.expr(s.expression.right).kind);
            this.assigned.add(t.name);
          }
        } else if (s.type === 'IfStatement') {
          const c = this.expr(s.test);
          if (c.lit !== undefined) {
            const taken = c.lit ? s.consequent : s.alternate;
            if (taken) visit(taken);
            return;
          }
          const mask = c.kind === 'm';
          for (const b of [s.consequent, s.alternate]) {
            if (!b) continue;
            if (mask) for (const n of this.assignedIn(b)) this.join(n, 'v');
            visit(b);
          }
        } else if (s.type === 'BlockStatement') {
          if (s.body.length > 0 && isDeferDirective(s.body[0])) return;
          s.body.forEach(visit);
        }
      };
      body.forEach(visit);
      if (JSON.stringify([...this.kinds]) === before) break;
    }
    this.out = saveOut;
    this.loaded.clear();
    for (const [k, v] of saveLoaded) this.loaded.set(k, v);
    this.pre.length = savePre;
    this.splats.clear();
    for (const [k, v] of saveSplats) this.splats.set(k, v);
    this.tmp = saveTmp;
    this.imports.clear();
    for (const v of saveImports) this.imports.add(v);
  }

  private join(name: string, k: Kind): void {
    const old = this.kinds.get(name);
    if (!old) this.kinds.set(name, k);
    else if (old !== k && (k === 'v' || k === 'm')) this.kinds.set(name, k);
  }

  private assignedIn(s: T.Node): string[] {
    const names: string[] = [];
    const go = (n: T.Node) => {
      if (n.type === 'AssignmentExpression' && n.left.type === 'Identifier') names.push(n.left.name);
      for (const k of Object.keys(n)) {
        if (k === 'loc' || k.endsWith('Comments')) continue;
        const v = (n as unknown as Record<string, unknown>)[k];
        if (Array.isArray(v)) {
          for (const c of v) if (c && typeof c.type === 'string') go(c);
        } else if (v && typeof v === 'object' && typeof (v as T.Node).type === 'string') go(v as T.Node);
      }
    };
    go(s);
    return names;
  }

  /** Emits `stmts` into the loop body; `m` is the mask under which assignments apply (null: all lanes). */
  statements(stmts: T.Statement[], m: string | null): void {
    for (const s of stmts) {
      if (this.depth === 0) this.topMark = this.out.length;
      this.statement(s, m);
    }
  }

  private isReturn(s: T.Statement | null | undefined): boolean {
    if (!s) return false;
    if (s.type === 'ReturnStatement') return true;
    return s.type === 'BlockStatement' && s.body.length === 1 && s.body[0].type === 'ReturnStatement';
  }

  private statement(s: T.Statement, m: string | null): void {
    switch (s.type) {
      case 'VariableDeclaration':
        for (const d of s.declarations) {
          const n = (d.id as T.Identifier).name;
          const kind = this.kinds.get(n)!;
          if (s.kind === 'const' && d.init && this.nonneg(d.init)) this.nonnegLocals.add(n);
          if (kind === 'v' || kind === 'm') {
            const init = d.init ? this.expr(d.init) : null;
            const code = init ? (kind === 'v' ? this.splat(init) : this.mask(init)) : null;
            const decl = s.kind === 'const' ? 'const' : 'let';
            this.out.push(code ? `${decl} ${n} = ${code};` : this.js ? `let ${n} = 0;` : `let ${n}: v128;`);
          } else {
            if (!d.init) this.err(d, `${n} has no value`);
            const v = this.expr(d.init);
            const ty = kind === 'b' ? 'bool' : kind === 'i' ? 'i32' : this.L.f;
            const code = kind === 'b' ? v.code : this.scalar(v, kind === 'i' ? 'i' : 'f');
            const constant = s.kind === 'const' || !this.assigned.has(n);
            const typed = this.js ? n : `${n}: ${ty}`;
            if (constant && v.lit !== undefined) this.literals.set(n, v.lit);
            else if (constant) this.pre.push(`const ${typed} = ${code};`);
            else this.out.push(`let ${typed} = ${code};`);
          }
        }
        return;
      case 'ExpressionStatement':
        if (isDeferDirective(s)) this.err(s, "'defer' must open the else-block of a test on the element");
        if (s.expression.type === 'CallExpression' && s.expression.callee.type === 'Identifier') {
          const h = this.def.helpers.get(s.expression.callee.name);
          if (!h) this.err(s, `${s.expression.callee.name} is not a helper of src/kernels/helpers.ts`);
          if (h.expr !== null) this.err(s, `${h.name} is an expression`);
          this.aliases.push(this.bind(h, s.expression.arguments, s, true));
          this.statements(h.body.body, m);
          this.aliases.pop();
          return;
        }
        if (s.expression.type !== 'AssignmentExpression') this.err(s, 'only assignments are statements');
        this.assign(s.expression, m);
        return;
      case 'ReturnStatement':
        if (m !== null) this.err(s, 'return under a lane mask: write it as `if (cond) return;`');
        this.out.push('continue;');
        return;
      case 'BlockStatement':
        this.out.push('{');
        this.depth++;
        this.statements(s.body, m);
        this.depth--;
        this.out.push('}');
        return;
      case 'IfStatement':
        this.ifStatement(s, m);
        return;
      default:
        this.err(s, `${s.type} is not in the kernel language`);
    }
  }

  private ifStatement(s: T.IfStatement, m: string | null): void {
    const c = this.expr(s.test);
    if (c.lit !== undefined) {
      const taken = c.lit ? s.consequent : s.alternate;
      // a block's statements without the braces (its names are the definition's own, unique): one
      // straight sequence, which the interleaved fused loop can interleave
      if (taken?.type === 'BlockStatement') this.statements(taken.body, m);
      else if (taken) this.statement(taken, m);
      return;
    }
    if (c.kind === 'b') {
      if (this.writing) this.err(s, 'no test after the writes');
      this.out.push(`if (${c.code}) {`);
      this.statement(s.consequent, m);
      if (s.alternate) {
        this.out.push('} else {');
        this.statement(s.alternate, m);
      }
      this.out.push('}');
      return;
    }
    if (this.writing) this.err(s, 'no test after the writes');
    // a test on the element
    if (this.isReturn(s.consequent) && !s.alternate) {
      const kept = m === null ? this.negated(s.test) : null;
      if (kept !== null) this.keep(kept);
      else this.clear(m === null ? c.code : this.andM(m, c.code));
      return;
    }
    const alt = s.alternate;
    if (alt && alt.type === 'BlockStatement' && alt.body.length > 0 && isDeferDirective(alt.body[0])) {
      if (m !== null) this.err(s, "a 'defer' block must not be under another test on the element");
      this.defer(c.code);
      this.statement(s.consequent, null);
      return;
    }
    // the test is evaluated once, before either branch assigns
    const mt = this.fresh('t');
    this.out.push(`const ${mt} = ${c.code};`);
    const mc = this.fresh('m');
    this.out.push(`const ${mc} = ${m === null ? mt : this.andM(m, mt)};`);
    if (this.isReturn(s.consequent)) this.clear(mc);
    else this.statement(s.consequent, mc);
    if (alt) {
      const ma = this.fresh('m');
      this.out.push(`const ${ma} = ${m === null ? this.notM(mt) : this.andnotM(m, mt)};`);
      if (this.isReturn(alt)) this.clear(ma);
      else this.statement(alt, ma);
    }
  }

  /** Clears the lanes of `cond` from the active mask; skips the pair when no lane is left. */
  private clear(cond: string): void {
    if (this.js) {
      // one lane: a cleared lane is a skipped constraint
      this.hasMask = true;
      this.out.push(`if (${cond}) continue;`);
      return;
    }
    if (!this.hasMask) {
      this.out.push(`let act = ${this.notCmp(cond)};`);
      this.hasMask = true;
    } else this.out.push(`act = v128.andnot(act, ${cond});`);
    this.out.push('if (!v128.any_true(act)) continue;');
  }

  /** Keeps only the lanes where `keep` (a mask) holds; skips the pair when none is left. */
  private keep(keep: string): void {
    if (this.js) {
      this.hasMask = true;
      this.out.push(`if (!${keep}) continue;`);
      return;
    }
    if (!this.hasMask) {
      this.out.push(`let act = ${keep};`);
      this.hasMask = true;
    } else this.out.push(`act = v128.and(act, ${keep});`);
    this.out.push('if (!v128.any_true(act)) continue;');
  }

  /**
   * The mask of the lanes where `test` does NOT hold, with the negation pushed
   * through `!` and `||` (De Morgan), so that `if (!(a > b) || !(c > d)) return;`
   * keeps `a > b && c > d` without inverting twice; null when the test is not
   * of that form on lane values alone.
   */
  private negated(test: T.Expression): string | null {
    if (test.type === 'UnaryExpression' && test.operator === '!') {
      const v = this.expr(test.argument);
      return v.kind === 'm' ? v.code : null;
    }
    if (test.type === 'LogicalExpression' && test.operator === '||') {
      const a = this.negated(test.left);
      const b = this.negated(test.right);
      return a !== null && b !== null ? this.andM(a, b) : null;
    }
    return null;
  }

  /** Lists the active lanes where `fast` fails for the JavaScript kernel and clears them. */
  private defer(fast: string): void {
    if (this.js) this.err(null, "'defer' blocks have no f32 twin");
    if (!this.hasMask) this.err(null, "a 'defer' test needs a guard before it (the inverse masses)");
    const ids = this.pairIndex();
    const f = this.fresh('f');
    const d = this.fresh('d');
    this.out.push(`const ${f} = ${fast};`, `const ${d} = v128.andnot(act, ${f});`);
    for (const k of this.lanes)
      this.out.push(
        `if (${this.M}.extract_lane(${d}, ${k}) != 0) { store<i32>(slow + (<usize>nslow << 2), ${ids[k]}); nslow++; }`,
      );
    this.out.push(`act = v128.and(act, ${f});`, 'if (!v128.any_true(act)) continue;');
  }

  private assign(e: T.AssignmentExpression, m: string | null): void {
    const op = e.operator === '=' ? null : e.operator.slice(0, -1);
    if (op && !VBIN[op]) this.err(e, `operator ${e.operator}`);
    const t = e.left;
    const combine = (old: Value): Value => {
      const r = this.expr(e.right);
      if (!op) return r;
      return { code: this.vbin(op, this.splat(old), this.splat(r)), kind: 'v' };
    };
    if (t.type === 'MemberExpression' && t.object.type === 'Identifier') {
      const p = this.param(this.particleName(t.object.name));
      if (p?.kind !== 'particle' || t.computed || t.property.type !== 'Identifier')
        this.err(e, 'only particle positions, the multiplier and locals are written');
      const k = t.property.name;
      if (!['x', 'y', 'z'].includes(k)) this.err(e, `${p.name}.${k} is not written`);
      if (m !== null) this.err(e, 'positions are written at the end, not under a test');
      const old = this.member(t);
      const v = this.fresh(`${p.name}_${k}`);
      const r = e.right;
      if (op === '+' && this.L.blocked && !this.js && r.type === 'BinaryExpression' && r.operator === '*') {
        // p.x += g k written p.x −= g (−k): the same bits in every lane (g (−k) = −(g k) and
        // x − (−y) = x + y exactly, −0 included), and the masked store is then old − (d and act)
        // (x − (+0) is x), without the or of −0 that x + d needs; −k once per move
        const kv = this.splat(this.expr(r.right as T.Expression));
        let nk = this.negs.get(kv);
        if (!nk) {
          nk = this.fresh('nk');
          this.out.push(`const ${nk} = ${this.vneg(kv)};`);
          this.negs.set(kv, nk);
        }
        const d = this.fresh(`d_${p.name}_${k}`);
        this.out.push(`const ${d} = ${this.V}.mul(${this.splat(this.expr(r.left as T.Expression))}, ${nk});`);
        this.out.push(`const ${v} = ${this.vbin('-', this.splat(old), d)};`);
        this.deltas.set(`${p.name}.${k}`, { op: '-', d });
      } else if (op === '+' || op === '-') {
        // the increment alone, for the blocked stores (old ± increment, masked)
        const d = this.fresh(`d_${p.name}_${k}`);
        this.out.push(`const ${d} = ${this.splat(this.expr(e.right))};`);
        this.out.push(`const ${v} = ${this.vbin(op, this.splat(old), d)};`);
        this.deltas.set(`${p.name}.${k}`, { op, d });
      } else this.out.push(`const ${v} = ${this.splat(combine(old))};`);
      this.writes.set(`${p.name}.${k}`, v);
      this.writing = true;
      return;
    }
    if (t.type !== 'Identifier') this.err(e, 'assignment target');
    const p = this.param(t.name);
    if (p?.kind === 'multiplier') {
      if (m !== null) this.err(e, 'the multiplier is written at the end, not under a test');
      const old = this.ident(t);
      const v = this.fresh('lam_');
      this.out.push(`const ${v} = ${this.splat(combine(old))};`);
      this.writes.set('lam', v);
      this.writing = true;
      return;
    }
    if (p) this.err(e, `parameter ${t.name} is not written`);
    const kind = this.kinds.get(t.name);
    if (!kind) this.err(e, `unknown name ${t.name}`);
    if (kind === 'v') {
      const value = this.splat(combine({ code: t.name, kind: 'v' }));
      this.out.push(m === null ? `${t.name} = ${value};` : `${t.name} = ${this.select(value, t.name, m)};`);
    } else if (kind === 'm') {
      const value = this.mask(this.expr(e.right));
      this.out.push(m === null ? `${t.name} = ${value};` : `${t.name} = ${this.select(value, t.name, m)};`);
    } else {
      if (m !== null) this.err(e, `${t.name} is a scalar assigned under a test on the element`);
      const r = this.expr(e.right);
      const rs = this.scalar(r, kind === 'i' ? 'i' : 'f');
      if (this.js && kind === 'f' && op) this.out.push(`${t.name} = Math.fround(${t.name} ${op} ${rs});`);
      else this.out.push(`${t.name} ${e.operator} ${rs};`);
    }
  }

  /** The stores of the written values, lane by lane where the final mask is set. */
  private stores(): void {
    if (this.writes.size === 0) return;
    const V = this.V;
    const f32 = this.L.f === 'f32';
    const sh = f32 ? 2 : 3;
    if (this.js) {
      // one lane, reached only when active: f32 values into the f64 arrays (exact)
      const lam = this.writes.get('lam');
      if (lam) this.out.push(`_lam[_c] = ${lam};`);
      for (const p of this.def.particles) {
        for (const [k, d] of [
          ['x', 0],
          ['y', 1],
          ['z', 2],
        ] as const) {
          const val = this.writes.get(`${p.name}.${k}`);
          if (val) this.out.push(`_p[${this.loaded.get(`i_${p.name}3`)}${d ? ` + ${d}` : ''}] = ${val};`);
        }
      }
      return;
    }
    if (this.L.blocked) {
      // whole v128 stores into the block; inactive lanes keep their loaded value: an increment
      // d is masked to the identity of its operation (x + (−0) and x − (+0) are x for every x,
      // −0 and NaN included), which costs an and (and an or for +) instead of a bitselect
      let negZero: string | null = null;
      for (const p of this.def.particles) {
        const v = this.def.particles.indexOf(p);
        for (const k of ['x', 'y', 'z']) {
          const val = this.writes.get(`${p.name}.${k}`);
          if (!val) continue;
          const old = this.loaded.get(`${p.name}_${k}`)!;
          const off = 16 * (4 * v + { x: 0, y: 1, z: 2 }[k as 'x']);
          const inc = this.deltas.get(`${p.name}.${k}`);
          let value = `v128.bitselect(${val}, ${old}, act)`;
          if (inc?.op === '-') value = `${V}.sub(${old}, v128.and(${inc.d}, act))`;
          else if (inc?.op === '+') {
            if (negZero === null) {
              negZero = this.fresh('nz');
              this.out.push(
                `const ${negZero} = v128.andnot(${this.splat({ code: '-0.0', kind: 'f' })}, act);`,
              );
            }
            value = `${V}.add(${old}, v128.or(v128.and(${inc.d}, act), ${negZero}))`;
          }
          if (this.L.fused) {
            const n = this.fresh(`n_${p.name}_${k}`);
            this.out.push(`const ${n} = ${value};`);
            this.written.set(`${p.name}.${k}`, n);
          } else this.out.push(`v128.store(${this.loaded.get('blk')}, ${value}, ${off});`);
        }
        if (!this.L.fused) continue;
        // back to the window, as scatterF32N: x y of each lane by one 8-byte store, z by one 4-byte store
        const row = (k: string) => this.written.get(`${p.name}.${k}`) ?? this.loaded.get(`${p.name}_${k}`);
        if (!['x', 'y', 'z'].some((k) => this.written.has(`${p.name}.${k}`))) continue;
        const u = this.fresh(`u_${p.name}`);
        this.out.push(
          `const ${u}0 = v128.shuffle<i32>(${row('x')}, ${row('y')}, 0, 4, 1, 5);`,
          `const ${u}1 = v128.shuffle<i32>(${row('x')}, ${row('y')}, 2, 6, 3, 7);`,
        );
        for (let l = 0; l < 4; l++) {
          const at = `p + <usize>${this.loaded.get(`i_${p.name}${LANE[l]}`)} * 16`;
          this.out.push(
            `v128.store64_lane(${at}, ${u}${l < 2 ? 0 : 1}, ${l % 2});`,
            `v128.store32_lane(${at}, ${row('z')}, ${l}, 8);`,
          );
        }
      }
      if (f32) this.storeLanesF32();
      else this.storeLanesById();
      return;
    }
    if (f32) this.storeLanesF32();
    for (const lane of this.lanes) {
      const L = LANE[lane];
      this.out.push(`if (${this.M}.extract_lane(act, ${lane}) != 0) {`);
      const lam = f32 ? undefined : this.writes.get('lam');
      if (lam) {
        // the f64x2 multipliers by constraint id (the set's lambda is a view of them)
        const c = this.loaded.get(`el${L}`);
        this.out.push(`store<f64>(lam + (<usize>${c} << 3), ${V}.extract_lane(${lam}, ${lane}));`);
      }
      for (const p of this.def.particles) {
        const ks = ['x', 'y', 'z'].filter((k) => this.writes.has(`${p.name}.${k}`));
        if (ks.length === 0) continue;
        this.out.push(`{ const o = p + (<usize>${this.loaded.get(`i_${p.name}${L}3`)} << ${sh});`);
        for (const k of ks) {
          const off = { x: 0, y: 1, z: 2 }[k as 'x'] * this.L.bytes;
          this.out.push(
            `store<${this.L.f}>(o, ${V}.extract_lane(${this.writes.get(`${p.name}.${k}`)}, ${lane}), ${off});`,
          );
        }
        this.out.push('}');
      }
      this.out.push('}');
    }
  }

  /** The f64x2 multipliers by constraint id, lane by lane where the final mask is set. */
  private storeLanesById(): void {
    const lam = this.writes.get('lam');
    if (!lam) return;
    for (const lane of this.lanes) {
      const c = this.loaded.get(`el${LANE[lane]}`);
      this.out.push(
        `if (${this.M}.extract_lane(act, ${lane}) != 0) store<f64>(lam + (<usize>${c} << 3), ${this.V}.extract_lane(${lam}, ${lane}));`,
      );
    }
  }

  /**
   * The f32 multipliers of the group, in its lane order (src/wasm/paired.ts):
   * one f32x4 store, the inactive lanes (padding, guard) keeping their value.
   */
  private storeLanesF32(): void {
    const lam = this.writes.get('lam');
    if (!lam) return;
    this.out.push(
      `v128.store(lam + (<usize>j << 4), v128.bitselect(${lam}, ${this.loaded.get('lamV')}, act));`,
    );
  }

  /**
   * The f32 mode's JavaScript twin (JS_F32): a loop over constraints
   * [from, to) of a coloured set, forward or backward, with the f32x4
   * kernel's operations on one lane. Positions, inverse masses, the scalar
   * and the multiplier are read from the f64 arrays and rounded (as the
   * f32x4 kernel's window and loads round them), uniforms are rounded on
   * entry (as an f32 parameter of WebAssembly is), every + − × ÷ and square
   * root is rounded to f32 with Math.fround (exact for one operation on f32
   * values: 53 ≥ 2·24 + 2 bits), and the f32 results are written back
   * (exactly) into the f64 arrays.
   */
  private emitJsTwin(): string {
    const def = this.def;
    const us = def.params.filter(
      (p) => ['uniform', 'int', 'flag'].includes(p.kind) && !this.literals.has(p.name),
    );
    const rec = def.params.some((p) => p.kind === 'record');
    const scalar = def.params.some((p) => p.kind === 'scalar');
    const args = [
      '_p: Float64Array',
      '_w: Float64Array',
      '_set: KernelSet',
      ...(scalar ? ['_scalar: Float64Array'] : []),
      ...(rec ? ['_rec: Float64Array'] : []),
      '_from: number',
      '_to: number',
      '_reverse: boolean',
      ...us.map((p) => `${p.name}: ${p.kind === 'flag' ? 'boolean' : 'number'}`),
    ];
    const lines = [
      `/** ${def.name} (${def.file}) in f32: the JavaScript twin of its f32x4 kernel, the same bits. */`,
      `export function ${def.name}F32(${args.join(', ')}): void {`,
      'const _idx = _set.indices, _lam = _set.lambda;',
      ...us.filter((p) => p.kind === 'uniform').map((p) => `${p.name} = Math.fround(${p.name});`),
      ...this.pre,
      'const _step = _reverse ? -1 : 1;',
      'const _end = _reverse ? _from - 1 : _to;',
      'for (let _c = _reverse ? _to - 1 : _from; _c !== _end; _c += _step) {',
      ...this.out,
      '}',
      '}',
    ];
    return indent(lines);
  }

  emit(): { code: string; imports: Set<string> } {
    const def = this.def;
    this.inferKinds(def.body.body);
    this.out = [];
    this.statements(def.body.body, null);
    if (!this.hasMask)
      this.err(def.body, 'the kernel needs a guard (padding lanes have zero inverse masses)');
    this.stores();
    if (this.js) return { code: this.emitJsTwin(), imports: this.imports };
    const uniforms = def.params
      .filter((p) => ['uniform', 'int', 'flag'].includes(p.kind) && !this.literals.has(p.name))
      .map((p) => `${p.name}: ${p.kind === 'uniform' ? this.L.f : p.kind === 'int' ? 'i32' : 'bool'}`);
    const head = [
      'pairFrom: i32',
      'pairTo: i32',
      'pairIdx: usize',
      'pairRec: usize',
      'pairEl: usize',
      'scalar: usize',
      'lam: usize',
      'p: usize',
      'w: usize',
      'slow: usize',
      ...uniforms,
    ];
    const lines = [
      `/** ${def.name} (${def.file}), ${this.L.n === 2 ? 'two' : 'four'} constraints per ${this.V}. Returns how many it listed in \`slow\`. */`,
      `export function ${def.name}${this.L.n === 4 ? 'F32' : ''}${this.L.fused ? 'Fused' : this.L.blocked ? 'Blocked' : ''}(${head.join(', ')}): i32 {`,
      'let nslow: i32 = 0;',
      ...this.pre,
      // the fused loop may take two groups per iteration (scripts/kernels/interleave.ts)
      ...(this.L.fused && def.interleave > 1
        ? interleaveGroups(this.out, def.interleave)
        : ['for (let j = pairFrom; j < pairTo; j++) {', ...this.out, '}']),
      'return nslow;',
      '}',
    ];
    return { code: indent(lines), imports: this.imports };
  }
}

/** Whether the parentheses of `s` pair up from left to right (an argument list, not `a), (b`). */
function balanced(s: string): boolean {
  let d = 0;
  for (const c of s) {
    if (c === '(') d++;
    else if (c === ')' && --d < 0) return false;
  }
  return d === 0;
}

/** An f32 constant of the JavaScript twin: the double that is the f32 nearest to `v`. */
function f32Literal(v: number): string {
  return fmtNumber(Math.fround(v), 'f');
}

/**
 * The gather and scatter loops of the blocked kernels (Lanes.blocked): for
 * groups [pairFrom, pairTo) of one colour, copy x, y, z, w of each lane's
 * particles from the window (p, w) into the colour's block (blk, group
 * j − pairFrom at 64 arity bytes), and x, y, z back.
 */
export function emitBlockMoves(L: Lanes, arity: number): string {
  const F = L.f;
  const B = L.bytes;
  const sh = B === 8 ? 3 : 2;
  const suffix = `${L.n === 4 ? 'F32' : ''}${arity}`;
  const lines: string[] = [];
  for (const dir of ['gather', 'scatter']) {
    lines.push(
      `export function ${dir}${suffix}(pairFrom: i32, pairTo: i32, pairIdx: usize, p: usize, w: usize, blk: usize): void {`,
      'for (let j = pairFrom; j < pairTo; j++) {',
      `const ib = pairIdx + <usize>j * ${4 * L.n * arity};`,
      `const bb = blk + <usize>(j - pairFrom) * ${64 * arity};`,
    );
    for (let v = 0; v < arity; v++) {
      if (dir === 'gather' && L.transpose && L.n === 4 && F === 'f32') {
        // (x y z ·) of lanes a b c d → (xa xb xc xd), (ya …), (za …): a 4 × 3 transpose
        const ids = [0, 1, 2, 3].map((l) => `i${v}${l}`);
        ids.forEach((i, l) => {
          lines.push(`const ${i} = load<i32>(ib, ${4 * (4 * v + l)});`);
        });
        const stride = L.aos4 ? 16 : 12;
        lines.push('{');
        ids.forEach((i, l) => {
          lines.push(`const q${l} = v128.load(p + <usize>${i} * ${stride});`);
        });
        lines.push(
          'const t0 = v128.shuffle<i32>(q0, q1, 0, 4, 1, 5);',
          'const t1 = v128.shuffle<i32>(q2, q3, 0, 4, 1, 5);',
          'const t2 = v128.shuffle<i32>(q0, q1, 2, 6, 3, 7);',
          'const t3 = v128.shuffle<i32>(q2, q3, 2, 6, 3, 7);',
          `v128.store(bb, v128.shuffle<i32>(t0, t1, 0, 1, 4, 5), ${64 * v});`,
          `v128.store(bb, v128.shuffle<i32>(t0, t1, 2, 3, 6, 7), ${64 * v + 16});`,
          `v128.store(bb, v128.shuffle<i32>(t2, t3, 0, 1, 4, 5), ${64 * v + 32});`,
          ...(L.aos4
            ? // (x y z w) of lanes a b c d: w is the fourth row of the 4 × 4 transpose
              [`v128.store(bb, v128.shuffle<i32>(t2, t3, 2, 3, 6, 7), ${64 * v + 48});`]
            : [
                `let m = v128.load32_zero(w + (<usize>${ids[0]} << 2));`,
                ...[1, 2, 3].map((l) => `m = v128.load32_lane(w + (<usize>${ids[l]} << 2), m, ${l});`),
                `v128.store(bb, m, ${64 * v + 48});`,
              ]),
          '}',
        );
        continue;
      }
      if (dir === 'scatter' && L.transpose && L.n === 4 && F === 'f32') {
        // (xa xb xc xd), (ya …), (za …) → x y of each lane by one 8-byte store, z by one 4-byte store
        const ids = [0, 1, 2, 3].map((l) => `i${v}${l}`);
        ids.forEach((i, l) => {
          lines.push(`const ${i} = load<i32>(ib, ${4 * (4 * v + l)});`);
        });
        lines.push(
          '{',
          `const X = v128.load(bb, ${64 * v});`,
          `const Y = v128.load(bb, ${64 * v + 16});`,
          `const Z = v128.load(bb, ${64 * v + 32});`,
          'const u0 = v128.shuffle<i32>(X, Y, 0, 4, 1, 5);',
          'const u1 = v128.shuffle<i32>(X, Y, 2, 6, 3, 7);',
        );
        ids.forEach((i, l) => {
          lines.push(
            `v128.store64_lane(p + <usize>${i} * ${L.aos4 ? 16 : 12}, ${l < 2 ? 'u0' : 'u1'}, ${l % 2});`,
            `v128.store32_lane(p + <usize>${i} * ${L.aos4 ? 16 : 12}, Z, ${l}, 8);`,
          );
        });
        lines.push('}');
        continue;
      }
      for (let l = 0; l < L.n; l++) {
        const i = `i${v}${l}`;
        lines.push(`const ${i} = load<i32>(ib, ${4 * (L.n * v + l)});`);
        lines.push(`{ const s = p + <usize>${i} * ${3 * B}; const d = bb + ${64 * v + B * l};`);
        for (let f = 0; f < 3; f++) {
          lines.push(
            dir === 'gather'
              ? `store<${F}>(d, load<${F}>(s, ${f * B}), ${16 * f});`
              : `store<${F}>(s, load<${F}>(d, ${16 * f}), ${f * B});`,
          );
        }
        if (dir === 'gather') lines.push(`store<${F}>(d, load<${F}>(w + (<usize>${i} << ${sh})), 48);`);
        lines.push('}');
      }
    }
    lines.push('}', '}', '');
  }
  return indent(lines);
}

/**
 * The f32 window's moves for the `aos4` layout (Lanes.aos4): windowLoadF32
 * rounds n particles' positions (f64 x y z at `src`) and inverse masses (f64
 * at `srcW`) to f32, as Math.fround does, into x y z w at `dst`;
 * windowSaveF32 widens x y z of n particles at `src` back to f64 x y z at
 * `dst` (exactly). The f64 values come in and go out by TypedArray.set
 * between the store and a staging area of the kernel's memory (a copy
 * without conversion).
 */
export function windowMovesF32(): string {
  return indent([
    'export function windowLoadF32(src: usize, srcW: usize, dst: usize, n: i32): void {',
    'for (let i = 0; i < n; i++) {',
    'const s = src + <usize>i * 24;',
    'const xy = f32x4.demote_f64x2_zero(v128.load(s));',
    'const zw = f32x4.demote_f64x2_zero(v128.load64_lane(srcW + (<usize>i << 3), v128.load64_zero(s, 16), 1));',
    'v128.store(dst + (<usize>i << 4), v128.shuffle<i32>(xy, zw, 0, 1, 4, 5));',
    '}',
    '}',
    '',
    'export function windowSaveF32(src: usize, dst: usize, n: i32): void {',
    'let i = 0;',
    // two particles per iteration: (x0 y0), (z0 x1), (y1 z1) as three f64x2 stores
    'for (; i + 2 <= n; i += 2) {',
    'const q0 = v128.load(src + (<usize>i << 4));',
    'const q1 = v128.load(src + (<usize>i << 4), 16);',
    'const d = dst + <usize>i * 24;',
    'v128.store(d, f64x2.promote_low_f32x4(q0));',
    'v128.store(d, f64x2.promote_low_f32x4(v128.shuffle<i32>(q0, q1, 2, 4, 2, 4)), 16);',
    'v128.store(d, f64x2.promote_low_f32x4(v128.shuffle<i32>(q1, q1, 1, 2, 1, 2)), 32);',
    '}',
    'if (i < n) {',
    'const q = v128.load(src + (<usize>i << 4));',
    'const d = dst + <usize>i * 24;',
    'v128.store(d, f64x2.promote_low_f32x4(q));',
    'store<f64>(d, <f64>f32x4.extract_lane(q, 2), 16);',
    '}',
    '}',
    '',
  ]);
}

/** Indents lines by their braces (the generated AssemblyScript is read in reviews). */
function indent(lines: string[]): string {
  let depth = 0;
  const out: string[] = [];
  for (const l of lines) {
    const opens = (l.match(/\{/g) ?? []).length;
    const closes = (l.match(/\}/g) ?? []).length;
    if (closes > opens || l.startsWith('}'))
      depth = Math.max(0, depth - (l.startsWith('}') ? 1 : closes - opens));
    out.push(`${'  '.repeat(depth)}${l}`);
    if (l.startsWith('}')) depth += opens - closes + 1;
    else depth += opens - closes;
    if (depth < 0) depth = 0;
  }
  return out.join('\n');
}

/** The AssemblyScript function of a definition and the Math functions it imports from JavaScript. */
export function emitSimd(def: KernelDef, lanes: Lanes = F64X2): { code: string; imports: Set<string> } {
  if (!def.simd) fail(def, null, 'no simd specialisations: the kernel has no SIMD twin');
  return new SimdEmitter(def, lanes).emit();
}
