/**
 * Distance constraints and dihedral bending on the SIMD kernels of
 * wasm/cloth.ts (see kernels.ts and paired.ts): bit-identical to the
 * JavaScript kernels of src/constraints/distance.ts and
 * src/cloth/dihedral-bending.ts, two constraints of one colour per f64x2.
 */
import type { ParticleStore } from '../core/particles.js';
import { wasmKernel, worthPairing } from './kernels.js';
import { PairedCopy, type PairedSet } from './paired.js';

interface ClothExports {
  distance(
    pairFrom: number,
    pairTo: number,
    pairIdx: number,
    pairEl: number,
    rest: number,
    lam: number,
    p: number,
    w: number,
    kPrime: number,
    alphaTilde: number,
    mode: number,
  ): void;
  bending(
    pairFrom: number,
    pairTo: number,
    pairIdx: number,
    pairEl: number,
    rest: number,
    lam: number,
    p: number,
    w: number,
    kPrime: number,
    alphaTilde: number,
    maxStep: number,
  ): void;
}

/** A coloured set with one rest value and one multiplier per constraint. */
export interface RestSet extends PairedSet {
  rest: Float64Array;
}

/**
 * The kernel a set should project with now: `current` while it still
 * matches the set, a new one when the set changed (setConstraints, tearing),
 * or null for the JavaScript kernel — backend 'js', XPBD damping (the SIMD
 * kernels have none), no WebAssembly, or a set not worth pairing.
 */
export function restSetKernel(
  set: RestSet & { backend: 'auto' | 'js'; rule: { gamma: number } },
  arity: 2 | 4,
  current: RestSetKernel | null,
): RestSetKernel | null {
  if (set.backend !== 'auto' || set.rule.gamma !== 0) return null;
  const mod = wasmKernel('cloth');
  if (mod === null) return null;
  if (current?.matches(set, null, set.rest)) return current;
  return worthPairing(set, arity) ? new RestSetKernel(mod, set, arity) : null;
}

/** Distance constraints or dihedral bending (layout: PairedCopy, the rest value as the scalar). */
export class RestSetKernel extends PairedCopy<ClothExports> {
  constructor(mod: WebAssembly.Module, set: RestSet, arity: 2 | 4) {
    // atan2 from JavaScript, so that the angles are the JavaScript kernel's to the bit
    super(mod, 'cloth', { atan2: Math.atan2 }, set, arity, null, 0, set.rest);
  }

  /** One pass of distance constraints over the colours (mode 0 both ways, 1 stretch only, 2 compress only). */
  distance(store: ParticleStore, reverse: boolean, kPrime: number, alphaTilde: number, mode: number): void {
    const { win, at, ex } = this;
    const cp = this.plan.colorPairs;
    win.load(store);
    for (let s = 0; s < this.colours; s++) {
      const k = this.colour(s, reverse);
      ex.distance(
        cp[k],
        cp[k + 1],
        at.idx,
        at.el,
        at.scalar,
        at.lam,
        win.pAt,
        win.wAt,
        kPrime,
        alphaTilde,
        mode,
      );
    }
    win.save(store);
  }

  /** One pass of dihedral bending over the colours. */
  bending(store: ParticleStore, reverse: boolean, kPrime: number, alphaTilde: number, maxStep: number): void {
    const { win, at, ex } = this;
    const cp = this.plan.colorPairs;
    win.load(store);
    for (let s = 0; s < this.colours; s++) {
      const k = this.colour(s, reverse);
      ex.bending(
        cp[k],
        cp[k + 1],
        at.idx,
        at.el,
        at.scalar,
        at.lam,
        win.pAt,
        win.wAt,
        kPrime,
        alphaTilde,
        maxStep,
      );
    }
    win.save(store);
  }
}
