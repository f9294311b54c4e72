/**
 * StVK membrane triangles and isometric bending on the SIMD kernels of
 * wasm/fem-cloth.ts (see kernels.ts and paired.ts): bit-identical to the
 * JavaScript kernels of src/continuum/triangle-fem.ts and
 * src/continuum/isometric-bending.ts, two constraints of a colour per f64x2.
 */
import type { ParticleStore } from '../core/particles.js';
import { wasmKernel, worthPairing } from './kernels.js';
import { PairedCopy, type PairedSet } from './paired.js';

interface FemClothExports {
  membrane(
    pairFrom: number,
    pairTo: number,
    pairIdx: number,
    pairB: number,
    pairEl: number,
    area: number,
    lam: number,
    p: number,
    w: number,
    slow: number,
    kPrime: number,
    alphaTilde: number,
    m: number,
    C11: number,
    C12: number,
    C22: number,
    C33: number,
    clamp2: number,
    psiMin: number,
  ): number;
  isometric(
    pairFrom: number,
    pairTo: number,
    pairIdx: number,
    pairK: number,
    pairEl: number,
    q: number,
    lam: number,
    p: number,
    w: number,
    kPrime: number,
    alphaTilde: number,
    m: number,
  ): void;
}

/**
 * A coloured set whose constraints carry a record of `stride` numbers
 * (membrane: D_m⁻¹, 4; isometric bending: K, 4), one scalar (area; q) and a
 * multiplier each.
 */
export interface FemClothSet extends PairedSet {
  backend: 'auto' | 'js';
  rule: { gamma: number };
}

/** Membrane triangles: the JavaScript kernel takes the listed triangles the fast path leaves. */
export interface MembraneSet extends FemClothSet {
  restShape: Float64Array;
  area: Float64Array;
  kernel(
    p: Float64Array,
    x: Float64Array,
    w: Float64Array,
    base: number,
    list: Int32Array | null,
    count: number,
    reverse: boolean,
  ): void;
}

export interface IsometricSet extends FemClothSet {
  K: Float64Array;
  q: Float64Array;
}

/** Membrane triangles (record D_m⁻¹, scalar area) or isometric bending (record K, scalar q); layout: PairedCopy. */
export class FemClothKernel extends PairedCopy<FemClothExports> {
  constructor(
    mod: WebAssembly.Module,
    set: FemClothSet,
    arity: 3 | 4,
    record: Float64Array,
    scalar: Float64Array,
  ) {
    super(mod, 'fem-cloth', {}, set, arity, record, 4, scalar);
  }

  /** One pass of StVK membrane constraints over the colours (C = tensor entries; clamp2 −∞ when anisotropic). */
  membrane(
    set: MembraneSet,
    store: ParticleStore,
    reverse: boolean,
    kPrime: number,
    alphaTilde: number,
    m: number,
    C: Float64Array,
    clamp2: number,
    psiMin: number,
  ): void {
    const { win, at, ex } = this;
    const cp = this.plan.colorPairs;
    win.load(store);
    for (let s = 0; s < this.colours; s++) {
      const k = this.colour(s, reverse);
      const slow = ex.membrane(
        cp[k],
        cp[k + 1],
        at.idx,
        at.rec,
        at.el,
        at.scalar,
        at.lam,
        win.pAt,
        win.wAt,
        at.slow,
        kPrime,
        alphaTilde,
        m,
        C[0],
        C[1],
        C[2],
        C[3],
        clamp2,
        psiMin,
      );
      if (slow > 0) {
        set.kernel(win.P, store.x, win.W, win.base, this.slow, slow, false);
        this.deferred += slow;
      }
    }
    win.save(store);
  }

  /** One pass of isometric bending over the colours. */
  isometric(store: ParticleStore, reverse: boolean, kPrime: number, alphaTilde: number, m: number): void {
    const { win, at, ex } = this;
    const cp = this.plan.colorPairs;
    win.load(store);
    for (let s = 0; s < this.colours; s++) {
      const k = this.colour(s, reverse);
      ex.isometric(
        cp[k],
        cp[k + 1],
        at.idx,
        at.rec,
        at.el,
        at.scalar,
        at.lam,
        win.pAt,
        win.wAt,
        kPrime,
        alphaTilde,
        m,
      );
    }
    win.save(store);
  }
}

/**
 * The kernel a set should project with now (see restSetKernel in
 * cloth-kernels.ts): `current` while it matches, a new one when the set's
 * arrays changed, null for the JavaScript kernel.
 */
export function femClothKernel(
  set: FemClothSet,
  arity: 3 | 4,
  record: Float64Array,
  scalar: Float64Array,
  current: FemClothKernel | null,
): FemClothKernel | null {
  if (set.backend !== 'auto' || set.rule.gamma !== 0) return null;
  const mod = wasmKernel('fem-cloth');
  if (mod === null) return null;
  if (current?.matches(set, record, scalar)) return current;
  return worthPairing(set, arity) ? new FemClothKernel(mod, set, arity, record, scalar) : null;
}
