/**
 * Distance constraints and dihedral bending on the SIMD kernels of
 * wasm/cloth.ts (see kernels.ts and paired.ts): bit-identical to the
 * JavaScript kernels of src/constraints/distance.ts and
 * src/cloth/dihedral-bending.ts, two constraints of one colour per f64x2.
 */
import type { ParticleStore } from '../core/particles.js';
import { wasmKernel, worthPairing } from './kernels.js';
import { Arena, type ColouredSet, instantiate, PairPlan, ParticleWindow } from './paired.js';

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
export interface RestSet extends ColouredSet {
  rest: Float64Array;
  lambda: Float64Array;
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
  if (current?.matches(set)) return current;
  return worthPairing(set, arity) ? new RestSetKernel(mod, set, arity) : null;
}

/**
 * One constraint set's copy in a kernel instance: pairs of particle indices
 * and constraint ids, rest values, the multipliers (the set's `lambda`
 * becomes a view of them) and the particle window.
 */
export class RestSetKernel {
  private readonly from: { indices: Int32Array; rest: Float64Array; count: number };
  private readonly ex: ClothExports;
  private readonly plan: PairPlan;
  private readonly win: ParticleWindow;
  private readonly at: { idx: number; el: number; rest: number; lam: number };

  constructor(mod: WebAssembly.Module, set: RestSet, arity: 2 | 4) {
    const n = set.count;
    const plan = new PairPlan(set, arity);
    const arena = new Arena();
    this.at = {
      idx: arena.take(8 * arity * plan.pairs),
      el: arena.take(8 * plan.pairs),
      rest: arena.take(8 * (n + 1)),
      lam: arena.take(8 * (n + 1)),
    };
    const win = new ParticleWindow(plan, arena);
    // atan2 from JavaScript, so that the angles are the JavaScript kernel's to the bit
    const { exports, buffer } = instantiate(mod, arena.top, { atan2: Math.atan2 }, 'cloth');
    this.ex = exports as unknown as ClothExports;
    plan.writeIndices(
      set,
      new Int32Array(buffer, this.at.idx, 2 * arity * plan.pairs),
      new Int32Array(buffer, this.at.el, 2 * plan.pairs),
    );
    new Float64Array(buffer, this.at.rest, n).set(set.rest.subarray(0, n));
    const lam = new Float64Array(buffer, this.at.lam, n + 1);
    lam.set(set.lambda.subarray(0, n));
    set.lambda = lam.subarray(0, n);
    this.plan = plan;
    this.win = win.bind(buffer);
    this.from = { indices: set.indices, rest: set.rest, count: n };
  }

  /** Whether the set still has the arrays this copy was made from (tearing replaces them). */
  matches(set: RestSet): boolean {
    const f = this.from;
    return f.indices === set.indices && f.rest === set.rest && f.count === set.count;
  }

  /** One pass of distance constraints over the colours (mode 0 both ways, 1 stretch only, 2 compress only). */
  distance(store: ParticleStore, reverse: boolean, kPrime: number, alphaTilde: number, mode: number): void {
    const { win, at, ex } = this;
    win.load(store);
    const cp = this.plan.colorPairs;
    const colors = cp.length - 1;
    for (let s = 0; s < colors; s++) {
      const k = reverse ? colors - 1 - s : s;
      ex.distance(
        cp[k],
        cp[k + 1],
        at.idx,
        at.el,
        at.rest,
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
    win.load(store);
    const cp = this.plan.colorPairs;
    const colors = cp.length - 1;
    for (let s = 0; s < colors; s++) {
      const k = reverse ? colors - 1 - s : s;
      ex.bending(
        cp[k],
        cp[k + 1],
        at.idx,
        at.el,
        at.rest,
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
