/**
 * Memory layout shared by the WebAssembly SIMD kernels (see kernels.ts):
 * the constraints of each colour in lane pairs, and a window on the
 * particle store.
 *
 * Each kernel instance owns its linear memory. A pair holds two constraints
 * of one colour (the two lanes of an f64x2); an odd colour's last pair gets
 * a padding lane whose particles are a dummy with zero inverse mass at the
 * end of the window and whose constraint id is `count` (a spare slot at the
 * end of every per-constraint array), so it never moves anything.
 */
import type { ParticleStore } from '../core/particles.js';
import { copyRange, type StoreMemory } from '../core/store-memory.js';

/** What a coloured constraint set offers to a paired kernel. */
export interface ColouredSet {
  indices: Int32Array;
  colorOffsets: Int32Array;
  readonly count: number;
}

/**
 * Bump allocation of a kernel's linear memory (16-byte aligned; the first KiB stays free), or of
 * a region of the store's memory from `top` on (paired-group.ts).
 */
export class Arena {
  constructor(public top = 1024) {}
  take(bytes: number): number {
    const o = this.top;
    this.top += (bytes + 15) & ~15;
    return o;
  }
}

/** The pairs of a coloured set and the particle window its constraints use. */
export class PairPlan {
  /** First particle of the window and its length (the dummy particle is `range`). */
  readonly base: number;
  readonly range: number;
  /** Colour k is pairs colorPairs[k] … colorPairs[k + 1]. */
  readonly colorPairs: Int32Array;
  readonly pairs: number;
  readonly count: number;
  readonly arity: number;
  /** Constraints per group: 2 (f64x2 pairs) or 4 (f32x4 quads of the f32 mode); "pair" below is a group. */
  readonly lanes: number;

  constructor(set: ColouredSet, arity: number, lanes: 2 | 4 = 2) {
    const n = set.count,
      idx = set.indices,
      offs = set.colorOffsets;
    let lo = Infinity,
      hi = -1;
    for (let k = 0; k < arity * n; k++) {
      if (idx[k] < lo) lo = idx[k];
      if (idx[k] > hi) hi = idx[k];
    }
    this.base = n > 0 ? lo : 0;
    this.range = n > 0 ? hi - lo + 1 : 0;
    const colors = offs.length - 1;
    const cp = new Int32Array(colors + 1);
    for (let k = 0; k < colors; k++) cp[k + 1] = cp[k] + Math.ceil((offs[k + 1] - offs[k]) / lanes);
    this.colorPairs = cp;
    this.pairs = cp[colors];
    this.count = n;
    this.arity = arity;
    this.lanes = lanes;
  }

  /** Constraint id of lane `lane` of pair j of colour k (count for a padding lane). */
  private element(offs: Int32Array, k: number, j: number, lane: number): number {
    const t = offs[k] + this.lanes * (j - this.colorPairs[k]) + lane;
    return t < offs[k + 1] ? t : this.count;
  }

  /**
   * Writes the window-relative particle indices (vertex v of lane l of group
   * j at I[L arity j + L v + l], L lanes) and the constraint ids (T[L j + l]).
   */
  writeIndices(set: ColouredSet, I: Int32Array, T: Int32Array): void {
    const offs = set.colorOffsets,
      idx = set.indices,
      ar = this.arity,
      L = this.lanes;
    for (let k = 0; k + 1 < offs.length; k++) {
      for (let j = this.colorPairs[k]; j < this.colorPairs[k + 1]; j++) {
        for (let lane = 0; lane < L; lane++) {
          const t = this.element(offs, k, j, lane);
          T[L * j + lane] = t;
          for (let v = 0; v < ar; v++)
            I[L * ar * j + L * v + lane] = t < this.count ? idx[ar * t + v] - this.base : this.range;
        }
      }
    }
  }

  /** Interleaves a per-constraint record of `stride` numbers: entry r of lane l of group j at out[L stride j + L r + l]. */
  interleave(set: ColouredSet, src: Float64Array, stride: number, out: Float64Array | Float32Array): void {
    const offs = set.colorOffsets,
      L = this.lanes;
    for (let k = 0; k + 1 < offs.length; k++) {
      for (let j = this.colorPairs[k]; j < this.colorPairs[k + 1]; j++) {
        for (let lane = 0; lane < L; lane++) {
          const t = this.element(offs, k, j, lane);
          for (let r = 0; r < stride; r++)
            out[L * stride * j + L * r + lane] = t < this.count ? src[stride * t + r] : 0;
        }
      }
    }
  }
}

/**
 * Instantiates a kernel module with a memory of at least `bytes` bytes; `shared`: a shared memory
 * of exactly that many pages, for a module whose memory import is shared (kernels.ts sharedKernel).
 */
export function instantiate(
  mod: WebAssembly.Module,
  bytes: number,
  imports: Record<string, unknown>,
  name: string,
  shared = false,
  on: WebAssembly.Memory | null = null,
): { exports: WebAssembly.Exports; buffer: ArrayBuffer; memory: WebAssembly.Memory } {
  const pages = Math.max(1, Math.ceil(bytes / 65536));
  // `on`: the store's memory (its module's import shared), grown to `bytes` by its allocator
  const memory =
    on ??
    (shared
      ? new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true })
      : new WebAssembly.Memory({ initial: pages }));
  const instance = new WebAssembly.Instance(mod, {
    env: {
      memory,
      ...imports,
      abort() {
        throw new Error(`WebAssembly kernel ${name} aborted`);
      },
    },
  });
  return { exports: instance.exports, buffer: memory.buffer as ArrayBuffer, memory };
}

/**
 * What runs a paired copy's sweeps on a worker pool (src/wasm/element-threads.ts): the generated
 * sweeps write their uniforms into `uniforms` and hand the sweep over; false when it cannot run
 * on the pool now (the sweep then runs here, with the same bits).
 */
export interface ThreadedSweeps {
  readonly uniforms: Float64Array;
  sweep(id: number, store: ParticleStore, reverse: boolean, f32: boolean, set: DeferringSet | null): boolean;
}

// (moved to window-moves.ts in session 19; their importers keep importing them from here)
export * from './window-moves.js';

import {
  loadAos4,
  PASS_SLOTS,
  particlePass,
  saveAos4,
  type WindowMovesF32,
  type WindowPassF64,
} from './window-moves.js';
import { DeferredPrediction } from './window-predict.js';

/**
 * A kernel's copy of the positions and inverse masses of a particle window
 * (plus the dummy particle), copied in before and out after a projection.
 * In the f32 mode the copy is f32: copying in rounds each value to the
 * nearest f32 (as Math.fround), copying out widens it exactly. The library's
 * f32 copies are `aos4`: each particle as x y z w (16 bytes, the inverse
 * mass beside the position, wAt = pAt + 12), moved in and out through an f64
 * staging area by the module's windowLoadF32 / windowSaveF32 (the same
 * values as TypedArray.set's conversion, at about half its cost).
 */
export class ParticleWindow {
  readonly P: Float64Array;
  readonly W: Float64Array;
  /** The f32 copy (f32 mode; P and W are then empty; aos4: P32 holds x y z w, W32 is empty). */
  readonly P32: Float32Array;
  readonly W32: Float32Array;
  /**
   * aos4: the f64 staging of positions (3 per particle) and inverse masses (S, SW at stageAt,
   * stageWAt); f64: P and W themselves (what the prediction into the window writes: PredictedWindow).
   */
  readonly S: Float64Array;
  readonly SW: Float64Array;
  readonly pAt: number;
  readonly wAt: number;
  readonly stageAt: number;
  readonly stageWAt: number;
  /** aos4: the f64 velocities of the fused particle pass (3 per particle) and its two counts. */
  readonly velAt: number;
  readonly countAt: number;
  private V: Float64Array = new Float64Array(0);
  private C: Int32Array = new Int32Array(0);
  /**
   * aos4: room for the whole store's x, v (3 homeCap each, f64) and invMass (homeCap) in the kernel
   * memory, where homeStore moves them (a one-thread store of at most homeCap particles); homeAt 0: none.
   */
  readonly homeAt: number;
  readonly homeCap: number;
  private buffer: ArrayBuffer | null = null;
  /**
   * The store's memory when this window lies in it (paired-group.ts, session 20): the store's x, v
   * and invMass are there from the start, so homeStore moves nothing; its region's address.
   */
  mem: StoreMemory | null = null;
  region = 0;
  readonly base: number;
  readonly range: number;
  readonly f32: boolean;
  readonly aos4: boolean;
  /** aos4: the module's window moves (set by bind). */
  private moves: WindowMovesF32 | null = null;
  /** f64: the module's particle passes on the window, where it has them (set by bind), else null. */
  private pass64: WindowPassF64 | null = null;
  /**
   * On a shared memory swept by a worker pool: what copies the window out in blocks on the pool
   * (element-threads.ts, ElementThreads.saveWindow; false where it cannot: flush copies it here).
   */
  pool: {
    saveWindow(store: ParticleStore, win: ParticleWindow): boolean;
    settlePending?(): void;
    predictsInLoad?(win: ParticleWindow): boolean;
  } | null = null;
  /** The substep's prediction waiting for the first pooled sweep's copy-in blocks (window-predict.ts). */
  readonly deferred = new DeferredPrediction();

  constructor(plan: PairPlan, arena: Arena, f32 = false, aos4 = false, home = true) {
    this.base = plan.base;
    this.range = plan.range;
    this.f32 = f32;
    this.aos4 = f32 && aos4;
    const b = f32 ? 4 : 8;
    if (this.aos4) {
      this.pAt = arena.take(16 * (plan.range + 1));
      this.wAt = this.pAt + 12;
      this.stageAt = arena.take(24 * plan.range);
      this.stageWAt = arena.take(8 * plan.range);
      this.velAt = arena.take(24 * plan.range);
      // two counts per block of a threaded sweep's pass (window-pass-threads.ts; one thread: the first)
      this.countAt = arena.take(8 * PASS_SLOTS);
      // the store's capacity grows by doubling: the power of two its particles up to the window's end need
      // (none on the store's memory: the store's arrays are there already)
      this.homeCap = home ? 2 ** Math.ceil(Math.log2(Math.max(16, plan.base + plan.range))) : 0;
      this.homeAt = home ? arena.take(56 * this.homeCap) : 0;
    } else {
      this.velAt = 0;
      this.pAt = arena.take(3 * b * (plan.range + 1));
      this.wAt = arena.take(b * (plan.range + 1));
      this.stageAt = 0;
      this.stageWAt = 0;
      // f64 (session 19, cl25): the module's passes on the window need the store homed, as aos4
      this.countAt = f32 ? 0 : arena.take(8 * PASS_SLOTS);
      this.homeCap = f32 || !home ? 0 : 2 ** Math.ceil(Math.log2(Math.max(16, plan.base + plan.range)));
      this.homeAt = f32 || !home ? 0 : arena.take(56 * this.homeCap);
    }
    this.P = new Float64Array(0);
    this.W = new Float64Array(0);
    this.P32 = new Float32Array(0);
    this.W32 = new Float32Array(0);
    this.S = new Float64Array(0);
    this.SW = new Float64Array(0);
  }

  /** Binds the views once the memory exists (and, aos4, the module's window moves; f64, its passes where it has them). */
  bind(buffer: ArrayBuffer, moves: WindowMovesF32 | null = null): this {
    const n = this.range + 1;
    if (this.aos4) {
      if (moves === null) throw new Error('an aos4 window needs the module’s window moves');
      this.moves = moves;
      this.buffer = buffer;
      (this as { P32: Float32Array }).P32 = new Float32Array(buffer, this.pAt, 4 * n);
      (this as { S: Float64Array }).S = new Float64Array(buffer, this.stageAt, 3 * this.range);
      (this as { SW: Float64Array }).SW = new Float64Array(buffer, this.stageWAt, this.range);
      this.V = new Float64Array(buffer, this.velAt, 3 * this.range);
      this.C = new Int32Array(buffer, this.countAt, 2);
    } else if (this.f32) {
      (this as { P32: Float32Array }).P32 = new Float32Array(buffer, this.pAt, 3 * n);
      (this as { W32: Float32Array }).W32 = new Float32Array(buffer, this.wAt, n);
    } else {
      (this as { P: Float64Array }).P = new Float64Array(buffer, this.pAt, 3 * n);
      (this as { W: Float64Array }).W = new Float64Array(buffer, this.wAt, n);
      (this as { S: Float64Array }).S = this.P.subarray(0, 3 * this.range);
      (this as { SW: Float64Array }).SW = this.W.subarray(0, this.range);
      const m = moves as Partial<WindowPassF64> | null;
      if (m !== null && typeof m.windowUpdatePredictF64 === 'function') {
        this.pass64 = m as WindowPassF64;
        this.buffer = buffer;
        this.C = new Int32Array(buffer, this.countAt, 2);
      }
    }
    return this;
  }

  /**
   * Copies the window in, unless it is the store's held window (see save): then the copy is the
   * current one and the store's arrays are stale. Another held window is saved first.
   */
  load(store: ParticleStore): void {
    if (store.held === this) {
      // a threaded sweep deferred to join the next one runs first (element-threads.ts, session 16)
      this.pool?.settlePending?.();
      this.settlePrediction();
      return;
    }
    store.settle();
    const b = this.base,
      r = this.range;
    if (this.moves !== null) {
      loadAos4(this.moves, this, this.S, this.SW, store.p, store.invMass, 0, r);
      return;
    }
    if (this.f32) {
      this.P32.set(store.p.subarray(3 * b, 3 * (b + r)));
      this.W32.set(store.invMass.subarray(b, b + r));
      return;
    }
    this.P.set(store.p.subarray(3 * b, 3 * (b + r)));
    this.W.set(store.invMass.subarray(b, b + r));
  }

  /**
   * Copies the window out; while the store is `holding` (the projection stage, where the next
   * projection goes through a window too: src/core/stages.ts) it is held instead: the copy stays the current positions until the next
   * load of another window, a set that reads the store (store.settle) or the stage's end, and the
   * next sweep of a set on this window (its own or another set's of the same kernel memory:
   * pairedGroup) loads nothing (docs/performance.md, "One kernel memory per body, the window held between sweeps (session 14)").
   */
  save(store: ParticleStore): void {
    if (store.holding) store.held = this;
    else {
      if (store.held === this) store.held = null;
      this.flush(store);
    }
  }

  /**
   * aos4: the staged positions and inverse masses S, SW rounded into the window, the second half
   * of load (the prediction into the window writes S and SW: src/core/window-passes.ts); f64: S
   * and SW are the window.
   */
  demoteStaged(): void {
    this.settlePrediction();
    if (this.moves !== null) this.moves.windowLoadF32(this.stageAt, this.stageWAt, this.pAt, this.range);
  }

  /** aos4: the window widened into S, the first half of flush (the velocity update reads S); f64: S is the window. */
  widenStaged(): void {
    this.settlePrediction();
    if (this.moves !== null) this.moves.windowSaveF32(this.pAt, this.stageAt, this.range);
  }

  /**
   * aos4, where the module has it: the fused particle pass (updatePredictStaged's operations in
   * the same order, so the same bits) in the module on the window itself — x and w copied into
   * the kernel memory (x into the staging S, w into SW), the pass, x and v copied back; no
   * widening into S before nor demotion after. f64 (session 19, cl25): the module's f64 pass, on a
   * homed store only. Counts as updatePredictStaged's. False: not here (the caller runs the
   * JavaScript loop).
   */
  updatePredict(
    on: { x: Float64Array; v: Float64Array; w: Float64Array },
    invH: number,
    reach: number,
    q: { h: number; hg: Float64Array; f: number; vmax: number },
    counts: Int32Array,
  ): boolean {
    this.settlePrediction();
    const { x, v, w } = on;
    const g = q.hg;
    const pass = this.pass64?.windowUpdatePredictF64 ?? this.moves?.windowUpdatePredictF32;
    // the store's x, v and invMass homed in this memory (homeStore): the pass on them in place, else copies
    const home = this.homed(on);
    if (pass === undefined || !particlePass.wasm || (this.pass64 !== null && !home)) return false;
    // (v is written, not read: 003 Algorithm 1 line 13 gives it from x and p)
    if (!home) {
      this.S.set(x);
      this.SW.set(w);
    }
    // (the f64 pass takes the window's w last; the f32 one, w beside p, drops it)
    pass(
      this.pAt,
      home ? x.byteOffset : this.stageAt,
      home ? v.byteOffset : this.velAt,
      home ? w.byteOffset : this.stageWAt,
      this.range,
      this.countAt,
      invH,
      reach,
      q.h,
      g[0],
      g[1],
      g[2],
      q.f,
      q.vmax,
      this.wAt,
    );
    if (!home) {
      x.set(this.S);
      v.set(this.V);
      particlePass.copied++;
    }
    counts[0] = this.C[0];
    counts[1] = this.C[1];
    particlePass.runs++;
    return true;
  }

  /** Whether the store's views `on` lie in this window's memory (homeStore). */
  private homed(on: { x: Float64Array; v: Float64Array; w: Float64Array }): boolean {
    const m = this.mem;
    if (m !== null)
      return particlePass.home && m.owns(on.x.buffer) && m.owns(on.v.buffer) && m.owns(on.w.buffer);
    const b = this.buffer;
    return on.x.buffer === b && on.v.buffer === b && on.w.buffer === b;
  }

  /** Whether the module runs this window's particle passes (aos4: its f32 pass; f64: its f64 passes). */
  private hasPass(): boolean {
    return this.pass64 !== null || this.moves?.windowUpdatePredictF32 !== undefined;
  }

  /**
   * aos4 with the module's pass, one thread (no pool, the store not shared): the store's own x, v
   * and invMass (ParticleStore.own) moved into this window's home area when its capacity fits, store.version
   * bumped (the views bound to the old arrays re-bind); the same values, so the same bits. The store
   * re-allocates its arrays when it grows (ParticleStore.allocateArrays), which ends the homing:
   * then a capacity that does not fit leaves the copies. particlePass.home false: never.
   */
  homeStore(store: ParticleStore): void {
    this.settlePrediction();
    const buf = this.buffer;
    // on the store's memory: the store's arrays are there already (session 20)
    if (buf === null || !particlePass.home || this.mem !== null) return;
    // a threaded world's store (shared) only into a shared memory (a window swept on the pool)
    if (store.shared !== (typeof SharedArrayBuffer !== 'undefined' && buf instanceof SharedArrayBuffer))
      return;
    if (store.x.buffer === buf || !this.hasPass()) return;
    const own = store.own;
    if (store.x !== own.x || store.v !== own.v || store.invMass !== own.invMass) return;
    if (store.capacity > this.homeCap) return;
    const n = store.capacity;
    const X = new Float64Array(buf, this.homeAt, 3 * n);
    const V = new Float64Array(buf, this.homeAt + 24 * this.homeCap, 3 * n);
    const W = new Float64Array(buf, this.homeAt + 48 * this.homeCap, n);
    X.set(store.x);
    V.set(store.v);
    W.set(store.invMass);
    store.x = X;
    store.v = V;
    store.invMass = W;
    store.version++;
  }

  /** Whether the store's x, v and invMass are homed in this window's memory (homeStore). */
  homes(store: ParticleStore): boolean {
    const m = this.mem;
    if (m !== null)
      return (
        particlePass.home && m.owns(store.x.buffer) && m.owns(store.v.buffer) && m.owns(store.invMass.buffer)
      );
    const b = this.buffer;
    return (
      b !== null &&
      store.x.buffer === b &&
      store.x.byteOffset === this.homeAt &&
      store.v.buffer === b &&
      store.v.byteOffset === this.homeAt + 24 * this.homeCap &&
      store.invMass.buffer === b &&
      store.invMass.byteOffset === this.homeAt + 48 * this.homeCap
    );
  }

  /**
   * aos4 or f64, the store's x, v and invMass homed here (homeStore) and the module's pass on
   * (particlePass.wasm): the substep's prediction (predictRange's operations in its order, so the
   * same bits) in the module into the window, p rounded to f32 with w beside it, no staging. False:
   * not here (the caller runs the JavaScript loop into the staging).
   */
  predict(
    on: { x: Float64Array; v: Float64Array; w: Float64Array },
    q: { h: number; hg: Float64Array; f: number; vmax: number },
  ): boolean {
    this.settlePrediction();
    const { x, v, w } = on;
    const { h, hg, f, vmax } = q;
    // f64 (session 19, cl25): into the window's p and w (its w last, which the f32 pass drops)
    const pass = this.pass64?.windowPredictF64 ?? this.moves?.windowPredictF32;
    if (pass === undefined || !particlePass.wasm || !this.homed(on)) return false;
    pass(
      this.pAt,
      x.byteOffset,
      v.byteOffset,
      w.byteOffset,
      this.range,
      h,
      hg[0],
      hg[1],
      hg[2],
      f,
      vmax,
      this.wAt,
    );
    particlePass.predicts++;
    return true;
  }

  /**
   * The same prediction left to the first sweep's copy-in blocks on the pool (session 24, sub31:
   * window-predict.ts), where the pool's sweep can take it; false: not deferred.
   */
  predictInSweep(
    on: { x: Float64Array; v: Float64Array; w: Float64Array },
    q: { h: number; hg: Float64Array; f: number; vmax: number },
  ): boolean {
    this.settlePrediction();
    const pass = this.pass64?.windowPredictF64 ?? this.moves?.windowPredictF32;
    if (pass === undefined || !particlePass.wasm || !this.homed(on) || !this.pool?.predictsInLoad?.(this))
      return false;
    if (this.pass64 !== null && !DeferredPrediction.f64) return false;
    this.deferred.arm(on, q);
    return true;
  }

  /** A prediction left to the blocks (predictInSweep) run whole here now, then the placements made meanwhile. */
  settlePrediction(): void {
    const d = this.deferred;
    if (!d.armed) return;
    d.armed = false;
    const q = d.q;
    const pass = (this.pass64?.windowPredictF64 ?? this.moves?.windowPredictF32)!;
    pass(this.pAt, q[0], q[1], q[2], this.range, q[3], q[4], q[5], q[6], q[7], q[8], this.wAt);
    particlePass.predicts++;
    const L = d.places;
    for (let j = 0; j < d.n; j++) this.place(L[4 * j], L[4 * j + 1], L[4 * j + 2], L[4 * j + 3]);
    d.n = 0;
  }

  /** Particle base + i's position in the window (aos4: rounded to f32, as its load rounds p). */
  place(i: number, x: number, y: number, z: number): void {
    if (this.deferred.armed) {
      // after the prediction that waits for the sweep's blocks (window-predict.ts)
      this.deferred.record(i, x, y, z);
      return;
    }
    const P = this.moves !== null ? this.P32 : this.P;
    const j = (this.moves !== null ? 4 : 3) * i;
    P[j] = x;
    P[j + 1] = y;
    P[j + 2] = z;
  }

  /** Copies the window out to the store (at once; see save): on the pool where its sweeps run there. */
  flush(store: ParticleStore): void {
    this.settlePrediction();
    if (this.pool?.saveWindow(store, this)) return;
    if (this.moves !== null) saveAos4(this.moves, this, this.S, store.p, 0, this.range);
    else if (this.f32) store.p.set(this.P32.subarray(0, 3 * this.range), 3 * this.base);
    else copyRange(store.p, 3 * this.base, this.P, 0, 3 * this.range);
  }
}

/** A set whose copy a paired kernel holds: its multipliers become views into the kernel's memory. */
export interface PairedSet extends ColouredSet {
  lambda: Float64Array;
}

/**
 * A set whose paired kernel lists constraints off its closed-form path (a
 * `'defer'` block of its definition): its JavaScript kernel projects them
 * right after their colour — constraints listed in `list`, with particle i
 * at p[3 (i − base)] and w[i − base] — the same result as projecting them
 * in place, since the constraints of a colour share no particle.
 */
export interface DeferringSet {
  /** Constraints from … to − 1 of the set (list null) or those listed in list[from … to − 1]. */
  kernel(...r: KernelRange): void;
}

/**
 * The arguments of a set's JavaScript kernel (DeferringSet.kernel,
 * ElementConstraints.kernel, ElementGlue.kernel): predicted positions p,
 * positions x at the start of the substep and inverse masses w, particle i
 * at p[3 (i − base)] and w[i − base]; constraints from … to − 1, or those
 * listed in list[from … to − 1] (list not null), backward when `reverse`.
 */
export type KernelRange = [
  p: Float64Array,
  x: Float64Array,
  w: Float64Array,
  base: number,
  list: Int32Array | null,
  from: number,
  to: number,
  reverse: boolean,
];

/**
 * One constraint set's copy in a kernel instance, the layout every paired
 * kernel shares: per pair the particle indices (`addr.idx`), the constraint
 * ids (`addr.el`) and optionally a per-constraint record interleaved by lane
 * (`addr.rec`: D_m⁻¹, K …); per constraint one scalar (`addr.scalar`: volume,
 * rest value, area …) and the multiplier (`addr.lam`; the set's `lambda`
 * becomes a view of it); a list of deferred constraints (`addr.slow`); and
 * the particle window. The generated sweeps (element-kernels.generated.ts)
 * call the kernel per colour between `win.load` and `win.save`.
 */
export class PairedCopy<E> {
  readonly ex: E;
  readonly plan: PairPlan;
  readonly win: ParticleWindow;
  /** Byte addresses of the set's arrays in the kernel's memory. */
  readonly addr: {
    idx: number;
    el: number;
    rec: number;
    scalar: number;
    lam: number;
    slow: number;
    /** A colour's block of gathered particles (blocked kernels; `scratch` bytes). */
    blk: number;
  };
  /** Constraints the kernel listed for the JavaScript kernel (`addr.slow`). */
  readonly slow: Int32Array;
  private readonly from: {
    indices: Int32Array;
    record: Float64Array | null;
    scalar: Float64Array;
    count: number;
  };
  /** Constraints left to the JavaScript kernel so far (off the closed-form path). */
  deferred = 0;
  /** Where the sweeps run on a worker pool (a copy on a shared memory), else null. */
  threads: ThreadedSweeps | null = null;
  /** The memory (shared for a copy made with `shared`) and, for threads, the module it was instantiated from. */
  readonly memory: WebAssembly.Memory;
  readonly module: WebAssembly.Module;
  /** The list of deferred constraints, `lanes` entries per group (the blocks of a threaded sweep list at their first group's). */
  readonly slowAll: Int32Array;

  constructor(
    mod: WebAssembly.Module,
    name: string,
    imports: Record<string, unknown>,
    set: PairedSet,
    arity: number,
    record: Float64Array | null,
    recordStride: number,
    scalar: Float64Array,
    f32 = false,
    scratch = 0,
    windowF32 = f32,
    shared = false,
    aos4 = false,
    host: PairedHost | null = null,
  ) {
    const n = set.count;
    const L = f32 ? 4 : 2;
    const plan = new PairPlan(set, arity, L);
    const arena = host?.arena ?? new Arena();
    this.addr = PairedCopy.reserve(arena, plan, recordStride, f32, scratch);
    let win: ParticleWindow;
    let inst: { exports: WebAssembly.Exports; buffer: ArrayBuffer; memory: WebAssembly.Memory };
    if (host === null) {
      win = new ParticleWindow(plan, arena, windowF32, aos4);
      inst = instantiate(mod, arena.top, imports, name, shared);
    } else {
      // a member of a kernel memory (pairedGroup): its window and instance are the group's
      win = host.win;
      inst = host.instance;
    }
    const { exports, buffer, memory } = inst;
    this.memory = memory;
    this.module = mod;
    this.slowAll = new Int32Array(buffer, this.addr.slow, Math.max(n, L * plan.pairs));
    this.ex = exports as unknown as E;
    plan.writeIndices(
      set,
      new Int32Array(buffer, this.addr.idx, L * arity * plan.pairs),
      new Int32Array(buffer, this.addr.el, L * plan.pairs),
    );
    if (record !== null) {
      const m = L * recordStride * plan.pairs;
      plan.interleave(
        set,
        record,
        recordStride,
        f32 ? new Float32Array(buffer, this.addr.rec, m) : new Float64Array(buffer, this.addr.rec, m),
      );
    }
    this.el = new Int32Array(buffer, this.addr.el, L * plan.pairs);
    if (f32) {
      // rounded to f32 once here, as the f64 kernels' loads rounded them each time (padding lanes 0);
      // the set's lambda stays its own: ElementConstraints gathers it in (gatherLambda) and scatters it
      // back where it is read (scatterLambda)
      plan.interleave(set, scalar, 1, new Float32Array(buffer, this.addr.scalar, L * plan.pairs));
      this.lam32 = new Float32Array(buffer, this.addr.lam, L * plan.pairs);
    } else {
      new Float64Array(buffer, this.addr.scalar, n).set(scalar.subarray(0, n));
      const lam = new Float64Array(buffer, this.addr.lam, n + 1);
      lam.set(set.lambda.subarray(0, n));
      set.lambda = lam.subarray(0, n);
    }
    this.slow = new Int32Array(buffer, this.addr.slow, n);
    this.plan = plan;
    this.win = host !== null ? win : win.bind(buffer, exports as unknown as WindowMovesF32);
    this.from = { indices: set.indices, record, scalar, count: n };
  }

  /** Byte addresses of one set's arrays in a kernel memory (the constructor's, and pairedGroup's sizing). */
  static reserve(
    arena: Arena,
    plan: PairPlan,
    recordStride: number,
    f32: boolean,
    scratch: number,
  ): PairedCopy<unknown>['addr'] {
    const n = plan.count,
      L = plan.lanes,
      arity = plan.arity;
    return {
      idx: arena.take(4 * L * arity * plan.pairs),
      el: arena.take(4 * L * plan.pairs),
      rec: arena.take(16 * recordStride * plan.pairs),
      // f64 by constraint id (the f64x2 kernels), or f32 in the groups' lane order (the f32x4 ones)
      scalar: arena.take(f32 ? 4 * L * plan.pairs : 8 * (n + 1)),
      lam: arena.take(f32 ? 4 * L * plan.pairs : 8 * (n + 1)),
      slow: arena.take(4 * Math.max(n, L * plan.pairs)),
      blk: arena.take(scratch),
    };
  }

  /** Set when a newer kernel memory holds this set's copy (pairedGroup rebuilt its group). */
  retired = false;

  /**
   * The f32 copy's multipliers: lam32[L j + lane] is that of the constraint
   * el[L j + lane] of group j (padding lanes: el = count); null in f64.
   */
  readonly lam32: Float32Array | null = null;
  /** The constraint id of each lane of each group (`addr.el`). */
  readonly el: Int32Array;

  /** Copies the set's multipliers `lam` (constraint order) into lam32, rounded to f32 (f32 copies). */
  gatherLambda(lam: Float64Array): void {
    const l32 = this.lam32!,
      el = this.el,
      n = this.from.count;
    for (let i = 0; i < l32.length; i++) {
      const c = el[i];
      l32[i] = c < n ? lam[c] : 0;
    }
  }

  /** Copies lam32 back into `lam` in constraint order (exact: f32 widens to f64). */
  scatterLambda(lam: Float64Array): void {
    const l32 = this.lam32!,
      el = this.el,
      n = this.from.count;
    for (let i = 0; i < l32.length; i++) {
      const c = el[i];
      if (c < n) lam[c] = l32[i];
    }
  }

  /** Whether the set still has the arrays this copy was made from (setConstraints and tearing replace them). */
  matches(set: ColouredSet, record: Float64Array | null, scalar: Float64Array): boolean {
    const f = this.from;
    return f.indices === set.indices && f.record === record && f.scalar === scalar && f.count === set.count;
  }
}

/** Where a member of a kernel memory is placed (PairedCopy's `host`): the group's arena, instance and window. */
export interface PairedHost {
  arena: Arena;
  instance: { exports: WebAssembly.Exports; buffer: ArrayBuffer; memory: WebAssembly.Memory };
  win: ParticleWindow;
}
