/**
 * The glue between an element constraint set (src/constraints/element-set.ts)
 * and the kernels generated from its definition: `npm run kernels` writes,
 * after the JavaScript kernel of each `NAME.kernel.ts` (in `NAME.generated.ts`,
 * scripts/kernels/emit-glue.ts), an interface of the definition's arguments
 * by name (`…Args`: its per-constraint arrays, uniforms and JsOnly
 * parameters) and an ElementGlue that passes them to the JavaScript kernel,
 * its f32 twin and the paired WebAssembly sweeps in the order each takes
 * them. A set fills the arguments (`kernelArgs`); ElementConstraints calls
 * the glue, once per sweep or kernel call (never per constraint).
 */
import type { ParticleStore } from '../core/particles.js';
import type { ElementKernel } from '../wasm/element-kernels.js';
import type { DeferringSet, KernelRange } from '../wasm/paired.js';
import type { KernelSet } from './dsl.js';

/** The projection rule's arguments, which every definition takes as its uniforms kp, at and gamma. */
export interface RuleArgs {
  /** k′ (the PBD stiffness per iteration). */
  kp: number;
  /** α̃ = α / h² (XPBD). */
  at: number;
  /** γ (XPBD damping). */
  gamma: number;
}

/** A definition's kernels, called with its arguments `A` (see the file's comment). */
export interface ElementGlue<A extends RuleArgs> {
  /** Particles per constraint. */
  readonly arity: number;
  /** Numbers per constraint of the definition's record (Rec<N>), 0 without one. */
  readonly recordStride: number;
  /** Whether the definition has an f32 mode (kernelF32, sweepF32). */
  readonly f32: boolean;
  /**
   * The arguments, filled by the set before every call (one object per
   * definition and thread: a call reads them into its parameters at once).
   */
  readonly args: A;
  /** The definition's per-constraint scalar (PerConstraint). */
  scalar(a: A): Float64Array;
  /** The definition's per-constraint record (Rec<N>), or null. */
  record(a: A): Float64Array | null;
  /** The JavaScript kernel over a range of the set's constraints (KernelRange). */
  kernel(set: KernelSet, a: A, ...r: KernelRange): void;
  /** The f32 JavaScript twin (throws without an f32 mode). */
  kernelF32(
    set: KernelSet,
    a: A,
    p: Float64Array,
    w: Float64Array,
    from: number,
    to: number,
    reverse: boolean,
  ): void;
  /** One sweep of the paired WebAssembly kernel (its generated `sweepNAME`). */
  sweep(k: ElementKernel, set: DeferringSet, a: A, store: ParticleStore, reverse: boolean): void;
  /** One f32 sweep of the blocked f32x4 kernel (`sweepNAMEF32`; throws without an f32 mode). */
  sweepF32(k: ElementKernel, a: A, store: ParticleStore, reverse: boolean): void;
}
