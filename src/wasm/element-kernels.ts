/**
 * The paired SIMD kernels generated from the `*.kernel.ts` definitions
 * (wasm/elements.generated.ts; their sweeps: element-kernels.generated.ts):
 * which kernel instance a constraint set projects with.
 */
import { ELEMENT_IMPORTS, type ElementExports } from './element-kernels.generated.js';
import { sharedKernel, wasmKernel, worthPairing } from './kernels.js';
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
 * no WebAssembly, or a set not worth pairing (see worthPairing); with
 * `shared`, on a shared memory for a worker pool (element-threads.ts). `record`
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
  f32 = false,
  shared = false,
): ElementKernel | null {
  if (set.backend !== 'auto' || set.rule.gamma !== 0 || set.count === 0) return null;
  const mod = shared ? sharedKernel('elements') : wasmKernel('elements');
  if (mod === null) return null;
  if (current?.matches(set, record, scalar) && current.plan.lanes === (f32 ? 4 : 2) && current.module === mod)
    return current;
  if (!worthPairing(set, arity)) return null;
  // the f32 mode's blocked kernels gather a colour's particles from the f32 window into a scratch of
  // 64 arity bytes per group of four
  const scratch = f32 ? 64 * arity * largestColour(set, 4) : 0;
  return new PairedCopy<ElementExports>(
    mod,
    'elements',
    ELEMENT_IMPORTS,
    set,
    arity,
    record,
    stride,
    scalar,
    f32,
    scratch,
    f32,
    shared,
    // the f32 window as x y z w (scripts/kernels/emit-simd.ts, Lanes.aos4: the shipped F32X4_MODE)
    f32,
  );
}

/** The largest colour's number of groups of `lanes` constraints. */
function largestColour(set: ElementSet, lanes: number): number {
  let m = 0;
  const o = set.colorOffsets;
  for (let k = 0; k + 1 < o.length; k++) m = Math.max(m, Math.ceil((o[k + 1] - o[k]) / lanes));
  return m;
}
