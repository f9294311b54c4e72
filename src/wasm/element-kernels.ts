/**
 * The paired SIMD kernels generated from the `*.kernel.ts` definitions
 * (wasm/elements.generated.ts; their sweeps: element-kernels.generated.ts):
 * which kernel instance a constraint set projects with.
 */
import { ELEMENT_IMPORTS, type ElementExports } from './element-kernels.generated.js';
import { wasmKernel, worthPairing } from './kernels.js';
import { PairedCopy, type PairedSet } from './paired.js';

/** One set's copy in an instance of the elements module. */
export type ElementKernel = PairedCopy<ElementExports>;

/** What a set needs to have a paired kernel: its backend choice and its XPBD damping (the kernels have none). */
export interface ElementSet extends PairedSet {
  backend: 'auto' | 'js';
  readonly rule: { readonly gamma: number };
}

/**
 * The kernel a set should project with now: `current` while it still
 * matches the set's arrays, a new one when they changed (setConstraints,
 * tearing), or null for the JavaScript kernel — backend 'js', XPBD damping,
 * no WebAssembly, or a set not worth pairing (see worthPairing). `record`
 * (stride numbers per constraint) and `scalar` (one per constraint) are the
 * definition's Rec and PerConstraint arrays.
 */
export function elementKernel(
  set: ElementSet,
  arity: number,
  record: Float64Array | null,
  stride: number,
  scalar: Float64Array,
  current: ElementKernel | null,
): ElementKernel | null {
  if (set.backend !== 'auto' || set.rule.gamma !== 0 || set.count === 0) return null;
  const mod = wasmKernel('elements');
  if (mod === null) return null;
  if (current?.matches(set, record, scalar)) return current;
  if (!worthPairing(set, arity)) return null;
  return new PairedCopy<ElementExports>(mod, 'elements', ELEMENT_IMPORTS, set, arity, record, stride, scalar);
}
