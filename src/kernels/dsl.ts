/**
 * The kernel language: the types with which a `*.kernel.ts` file declares
 * the parameters of its kernel (see docs/architecture.md, "WebAssembly
 * kernels", and scripts/kernels/). A kernel is one exported function that
 * projects ONE constraint, written as straight-line scalar TypeScript;
 * `npm run kernels` generates from it the JavaScript loop over a set's
 * constraints (`*.generated.ts` beside the definition) and the WebAssembly
 * twin that projects two constraints of a colour per f64x2 instruction
 * (wasm/elements.generated.ts), with the same floating-point operations in
 * the same order, so that both give the same numbers bit for bit.
 *
 * What the function body may contain:
 * - `const` / `let` declarations, assignments (`=`, `+=`, `-=`, `*=`, `/=`)
 *   and `if` / `else`;
 * - arithmetic (+ − × ÷, unary −), comparisons, `&&`, `||`, `!`, `? :`,
 *   number literals and `Math.sqrt`, `Math.abs` (native in WebAssembly) or
 *   other `Math` functions (imported from JavaScript there, so that they
 *   give JavaScript's bits);
 * - `return;` to skip the constraint (a guard: a lane mask in SIMD code);
 * - reads of a particle's `x`, `y`, `z` (predicted position), `w` (inverse
 *   mass) and `x0`, `y0`, `z0` (position at the start of the substep, for
 *   XPBD damping), of the per-constraint scalar, record and multiplier; at
 *   the end of the body, writes of particle positions and the multiplier
 *   (nothing is read after it is written, and no guard follows a write);
 * - calls of the helpers of src/kernels/helpers.ts (inlined), among them
 *   the per-arity helpers over lists of the constraint's particles
 *   (`Each<T>`, `Vec`; unrolled by scripts/kernels/expand.ts), list
 *   literals for their arguments (`const G = [[g0x, g0y, g0z], …]`, which
 *   generates no statement), `const [B0, B1, …] = B` to read a record and
 *   `[P0, P1, …] = ps` to read a JsOnly array (written out at constant
 *   indices);
 * - a block whose first statement is the string `'defer';`: the else-branch
 *   of a test on the element (the closed-form fast path failed). JavaScript
 *   runs the block as written (it may call anything and use `JsOnly`
 *   parameters); the SIMD kernel lists the element instead, and the
 *   JavaScript kernel projects the listed elements right after their colour.
 *
 * Beside the function, `export const simd = { name: literal, … }` fixes
 * uniforms in the SIMD twin, and `export const geometry = { name, out,
 * value, invalid }` asks for a plain function `name(p, a, b, …, g)` made of
 * the body's statements up to the declaration of `value` that read
 * positions only: it writes the names `out` to g[0 …] and returns `value`
 * (`invalid` where a guard skips) — the angle and gradients of dihedral
 * bending that tests and tools call, from the projection's own source.
 */

/**
 * A particle of the constraint: its predicted position (x, y, z), written
 * back; its inverse mass w. The particles are parameters of their own
 * (`a: Particle, b: Particle`) or one list, `[a, b, c]: Particles`.
 */
export interface Particle {
  x: number;
  y: number;
  z: number;
  readonly w: number;
  /** The position at the start of the substep (store.x): JavaScript only (XPBD damping). */
  readonly x0: number;
  readonly y0: number;
  readonly z0: number;
}

/** The constraint's Lagrange multiplier λ (read, and written with `+=`). */
export type Multiplier = number;

/** One number per constraint (rest length, rest volume, area …). */
export type PerConstraint = number;

/** A record of N numbers per constraint (D_m⁻¹, K …), read with constant indices. */
export type Rec<N extends number> = {
  readonly [k: number]: number;
  readonly length: N;
  /** `const [B0, B1, …] = B` reads it (the generator writes `const B0 = B[0], B1 = B[1], …`). */
  [Symbol.iterator](): Iterator<number>;
};

/** A number that is the same for every constraint of the sweep (k′, α̃, μ …): f64. */
export type Uniform = number;

/**
 * The projection rule's numbers, the same for every constraint of the sweep:
 * k′ (PBD stiffness per projection), α̃ = α/h² (XPBD compliance) and γ (XPBD
 * damping), taken as `{ kp, at, gamma }: Rule` (three Uniforms; see
 * docs/solver.md, "Two projection rules").
 */
export interface Rule {
  readonly kp: Uniform;
  readonly at: Uniform;
  readonly gamma: Uniform;
}

/** A boolean that is the same for every constraint of the sweep. */
export type Flag = boolean;

/** An integer that is the same for every constraint of the sweep (a mode): i32. */
export type Int = number;

/** The constraint's index in the set (JavaScript only: `'defer'` blocks). */
export type Index = number;

/** A parameter of the JavaScript kernel only (scratch arrays, the material for the slow path …). */
export type JsOnly<T> = T;

/**
 * What a generated JavaScript kernel reads of its constraint set: the
 * particle indices (sorted by colour) and the multipliers. The definition's
 * records and scalars it takes by name.
 */
export interface KernelSet {
  readonly indices: Int32Array;
  readonly lambda: Float64Array;
}

/**
 * One value per particle of a constraint, in a per-arity helper of
 * src/kernels/helpers.ts: the caller passes a list literal (`[a, b, c, d]`,
 * `[w0, w1, w2, w3]`), and the generator unrolls the helper for that many
 * particles (scripts/kernels/expand.ts), so the generated loops hold no
 * list.
 */
export type Each<T> = readonly T[];

/** The particles of a constraint as one parameter: `[a, b, c, d]: Particles`. */
export type Particles = Each<Particle>;

/**
 * Three coordinates (a gradient, an edge, a position) as a list: `[gx, gy, gz]`
 * (a list, so that `[[g0x, g0y, g0z], …]` needs no annotation; the generator
 * fails on an index past its end).
 */
export type Vec = Each<number>;

/**
 * Σ term(i) over the indices of `list`, summed left to right:
 * term(0) + term(1) + …, which the generator writes out (a term that is
 * itself a sum continues the chain, as it would written by hand).
 */
export function sum(list: Each<unknown>, term: (i: number) => number): number {
  let s = term(0);
  for (let i = 1; i < list.length; i++) s += term(i);
  return s;
}

/** body(i) for every index of `list`, in order; the generator writes the statements out. */
export function each(list: Each<unknown>, body: (i: number) => void): void {
  for (let i = 0; i < list.length; i++) body(i);
}

/** The list of f(i) over the indices of `list`; declared by the caller as `const [n0, n1, …] = …`. */
export function map<T>(list: Each<unknown>, f: (i: number) => T): T[] {
  const out: T[] = [];
  for (let i = 0; i < list.length; i++) out.push(f(i));
  return out;
}
