import type { ParticleStore } from '../core/particles.js';
import { Arena, type ColouredSet, instantiate, PairPlan, ParticleWindow } from '../wasm/paired.js';

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
export interface TetFemSource extends ColouredSet {
  restShape: Float64Array;
  volume: Float64Array;
  lambda: Float64Array;
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
 * constraint set: its own linear memory holds the tets of each colour in
 * pairs (the two lanes of an f64x2: particle indices, D_m⁻¹ interleaved),
 * the rest volumes, the Lagrange multipliers (the constraint set's `lambda`
 * becomes a view of them) and a window on the particle store (paired.ts).
 *
 * Tets outside the closed-form fast path (inverted, or a singular value
 * below the clamp: 002 §4.2) are listed by the kernel and projected by the
 * JavaScript kernel right after their colour — the same result as projecting
 * them in place, since the tets of a colour share no particle.
 */
export class TetFemWasm {
  /** The arrays this copy was made from (a constraint set whose arrays were replaced no longer matches). */
  private readonly from: {
    indices: Int32Array;
    restShape: Float64Array;
    volume: Float64Array;
    count: number;
  };
  private readonly ex: TetFemExports;
  private readonly plan: PairPlan;
  private readonly win: ParticleWindow;
  private readonly at: { idx: number; B: number; tet: number; vol: number; lam: number; slow: number };
  private readonly slow: Int32Array;
  /** Tets left to the JavaScript kernel so far (inverted or near-degenerate ones). */
  deferred = 0;

  constructor(mod: WebAssembly.Module, fem: TetFemSource) {
    const n = fem.count;
    const plan = new PairPlan(fem, 4);
    const arena = new Arena();
    this.at = {
      idx: arena.take(32 * plan.pairs),
      B: arena.take(144 * plan.pairs),
      tet: arena.take(8 * plan.pairs),
      vol: arena.take(8 * (n + 1)),
      lam: arena.take(8 * (n + 1)),
      slow: arena.take(4 * n),
    };
    const win = new ParticleWindow(plan, arena);
    // the kernel takes logarithms from JavaScript, so that they are the JavaScript kernel's to the bit
    const { exports, buffer } = instantiate(mod, arena.top, { log: Math.log }, 'tet-fem');
    this.ex = exports as unknown as TetFemExports;
    plan.writeIndices(
      fem,
      new Int32Array(buffer, this.at.idx, 8 * plan.pairs),
      new Int32Array(buffer, this.at.tet, 2 * plan.pairs),
    );
    plan.interleave(fem, fem.restShape, 9, new Float64Array(buffer, this.at.B, 18 * plan.pairs));
    new Float64Array(buffer, this.at.vol, n).set(fem.volume.subarray(0, n));
    const lam = new Float64Array(buffer, this.at.lam, n + 1);
    lam.set(fem.lambda.subarray(0, n));
    fem.lambda = lam.subarray(0, n);
    this.slow = new Int32Array(buffer, this.at.slow, n);
    this.plan = plan;
    this.win = win.bind(buffer);
    this.from = { indices: fem.indices, restShape: fem.restShape, volume: fem.volume, count: n };
  }

  /** Whether the constraint set still has the arrays this copy was made from. */
  matches(fem: TetFemSource): boolean {
    const f = this.from;
    return (
      f.indices === fem.indices &&
      f.restShape === fem.restShape &&
      f.volume === fem.volume &&
      f.count === fem.count
    );
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
    win.load(store);
    const cp = this.plan.colorPairs;
    const colors = cp.length - 1;
    for (let s = 0; s < colors; s++) {
      const k = reverse ? colors - 1 - s : s;
      const slow = ex.project(
        cp[k],
        cp[k + 1],
        at.idx,
        at.B,
        at.tet,
        at.vol,
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
