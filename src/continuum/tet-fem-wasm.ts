import type { ParticleStore } from '../core/particles.js';
import { PairedCopy, type PairedSet } from '../wasm/paired.js';

/** The exports of wasm/tet-fem.ts. */
interface TetFemExports {
  project(
    pairFrom: number,
    pairTo: number,
    pairIdx: number,
    pairB: number,
    pairTet: number,
    vol: number,
    lam: number,
    p: number,
    w: number,
    slow: number,
    kPrime: number,
    alphaTilde: number,
    m: number,
    mu: number,
    lambda: number,
    clamp2: number,
    psiMin: number,
    neoHookean: number,
  ): number;
}

/** What the kernel needs of its constraint set (TetFemConstraints). */
export interface TetFemSource extends PairedSet {
  restShape: Float64Array;
  volume: Float64Array;
  /** The JavaScript kernel, for the tets the SIMD kernel leaves to it (inverted or near-degenerate). */
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

/**
 * The tet kernel of wasm/tet-fem.ts (StVK and Neo-Hookean) bound to one
 * constraint set (layout: PairedCopy, with D_m⁻¹ as the interleaved record
 * and the rest volume as the scalar).
 *
 * Tets outside the closed-form fast path (inverted, or a singular value
 * below the clamp: 002 §4.2) are listed by the kernel and projected by the
 * JavaScript kernel right after their colour — the same result as projecting
 * them in place, since the tets of a colour share no particle.
 */
export class TetFemWasm extends PairedCopy<TetFemExports> {
  constructor(mod: WebAssembly.Module, fem: TetFemSource) {
    // the kernel takes logarithms from JavaScript, so that they are the JavaScript kernel's to the bit
    super(mod, 'tet-fem', { log: Math.log }, fem, 4, fem.restShape, 9, fem.volume);
  }

  /** One Gauss–Seidel pass over the colours (reverse: last colour first), as TetFemConstraints.kernel. */
  project(
    fem: TetFemSource,
    store: ParticleStore,
    reverse: boolean,
    kPrime: number,
    alphaTilde: number,
    m: number,
    mu: number,
    lambda: number,
    clamp2: number,
    psiMin: number,
    neoHookean: boolean,
  ): void {
    const { win, at, ex } = this;
    const cp = this.plan.colorPairs;
    win.load(store);
    for (let s = 0; s < this.colours; s++) {
      const k = this.colour(s, reverse);
      const slow = ex.project(
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
        mu,
        lambda,
        clamp2,
        psiMin,
        neoHookean ? 1 : 0,
      );
      if (slow > 0) {
        fem.kernel(win.P, store.x, win.W, win.base, this.slow, slow, false);
        this.deferred += slow;
      }
    }
    win.save(store);
  }
}
