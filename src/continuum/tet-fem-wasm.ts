import type { ParticleStore } from '../core/particles.js';
import { pagesFor } from '../wasm/kernels.js';

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
export interface TetFemSource {
  indices: Int32Array;
  restShape: Float64Array;
  volume: Float64Array;
  lambda: Float64Array;
  colorOffsets: Int32Array;
  readonly count: number;
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
 * The tet kernel of wasm/tet-fem.ts (StVK and Neo-Hookean) bound to one constraint set: its
 * own linear memory holds the tets of each colour in pairs (the two lanes of
 * an f64x2: particle indices, D_m⁻¹ interleaved), the rest volumes, the
 * Lagrange multipliers (the constraint set's `lambda` becomes a view of
 * them) and a copy of the positions and inverse masses of the particle range
 * the tets use, which is copied in before and out after each projection.
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
  /** First particle of the range and its length. */
  readonly base: number;
  readonly range: number;
  private readonly colorPairs: Int32Array;
  private readonly at: {
    idx: number;
    B: number;
    tet: number;
    vol: number;
    lam: number;
    p: number;
    w: number;
    slow: number;
  };
  private readonly P: Float64Array;
  private readonly W: Float64Array;
  private readonly slow: Int32Array;
  /** Tets left to the JavaScript kernel so far (inverted or near-degenerate ones). */
  deferred = 0;

  constructor(mod: WebAssembly.Module, fem: TetFemSource) {
    const n = fem.count;
    const idx = fem.indices,
      Bm = fem.restShape,
      offs = fem.colorOffsets;
    let lo = Infinity,
      hi = -1;
    for (let k = 0; k < 4 * n; k++) {
      if (idx[k] < lo) lo = idx[k];
      if (idx[k] > hi) hi = idx[k];
    }
    const base = lo;
    const range = hi - lo + 1;
    // pairs of tets within each colour; an odd colour's last pair has a padding lane (tet n, a
    // particle with zero inverse mass at the end of the range)
    const colors = offs.length - 1;
    const colorPairs = new Int32Array(colors + 1);
    for (let k = 0; k < colors; k++)
      colorPairs[k + 1] = colorPairs[k] + Math.ceil((offs[k + 1] - offs[k]) / 2);
    const pairs = colorPairs[colors];
    let top = 1024;
    const take = (bytes: number) => {
      const o = top;
      top += (bytes + 15) & ~15;
      return o;
    };
    this.at = {
      idx: take(32 * pairs),
      B: take(144 * pairs),
      tet: take(8 * pairs),
      vol: take(8 * (n + 1)),
      lam: take(8 * (n + 1)),
      p: take(24 * (range + 1)),
      w: take(8 * (range + 1)),
      slow: take(4 * n),
    };
    const memory = new WebAssembly.Memory({ initial: pagesFor(top) });
    const instance = new WebAssembly.Instance(mod, {
      env: {
        memory,
        // the kernel takes logarithms from JavaScript, so that they are the JavaScript kernel's to the bit
        log: Math.log,
        abort() {
          throw new Error('tet-fem kernel aborted');
        },
      },
    });
    this.ex = instance.exports as unknown as TetFemExports;
    const buf = memory.buffer;
    const I = new Int32Array(buf, this.at.idx, 8 * pairs);
    const B = new Float64Array(buf, this.at.B, 18 * pairs);
    const T = new Int32Array(buf, this.at.tet, 2 * pairs);
    for (let k = 0; k < colors; k++) {
      for (let j = colorPairs[k]; j < colorPairs[k + 1]; j++) {
        const tA = offs[k] + 2 * (j - colorPairs[k]);
        const tB = tA + 1 < offs[k + 1] ? tA + 1 : n;
        T[2 * j] = tA;
        T[2 * j + 1] = tB;
        for (let v = 0; v < 4; v++) {
          I[8 * j + 2 * v] = idx[4 * tA + v] - base;
          I[8 * j + 2 * v + 1] = tB < n ? idx[4 * tB + v] - base : range;
        }
        for (let r = 0; r < 9; r++) {
          B[18 * j + 2 * r] = Bm[9 * tA + r];
          B[18 * j + 2 * r + 1] = tB < n ? Bm[9 * tB + r] : 0;
        }
      }
    }
    new Float64Array(buf, this.at.vol, n).set(fem.volume.subarray(0, n));
    const lam = new Float64Array(buf, this.at.lam, n + 1);
    lam.set(fem.lambda.subarray(0, n));
    fem.lambda = lam.subarray(0, n);
    this.P = new Float64Array(buf, this.at.p, 3 * (range + 1));
    this.W = new Float64Array(buf, this.at.w, range + 1);
    this.slow = new Int32Array(buf, this.at.slow, n);
    this.base = base;
    this.range = range;
    this.colorPairs = colorPairs;
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
    const { P, W, base, range, at, ex } = this;
    P.set(store.p.subarray(3 * base, 3 * (base + range)));
    W.set(store.invMass.subarray(base, base + range));
    const cp = this.colorPairs;
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
        at.p,
        at.w,
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
        fem.kernel(P, store.x, W, base, this.slow, slow, false);
        this.deferred += slow;
      }
    }
    store.p.set(P.subarray(0, 3 * range), 3 * base);
  }
}
