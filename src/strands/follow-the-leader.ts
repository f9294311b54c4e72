/**
 * Follow-The-Leader and Dynamic FTL (survey 000 §3.5 and Figure 9, after
 * Müller, Kim and Chentanez 2012).
 *
 * FTL satisfies every distance constraint of a strand in one pass: from the
 * root down, particle i is moved straight toward its predecessor until their
 * distance is the rest length l_i,
 *
 *   p_i ← p_{i−1} + l_i (p_i − p_{i−1}) / |p_i − p_{i−1}|,   d_i = (new p_i) − (old p_i),
 *
 * so strands are exactly inextensible after the pass. It is not a symmetric
 * projection: each particle behaves as if it had infinitely more mass than
 * its successor. DFTL hides that by replacing the velocity update of
 * particle i with
 *
 *   v_i ← (p_i − x_i)/Δt + s_damping (−d_{i+1})/Δt,
 *
 * the reaction of the correction applied to its successor, scaled by
 * s_damping ∈ [0, 1] (which damps: the paper's trade-off). We run the FTL
 * pass at order 150, after the collider contacts (order 100), so that the
 * lengths hold exactly at the end of every iteration (a contact pushed a
 * particle out; FTL then restores its distance to its predecessor), and add
 * the DFTL term in `endStep`, after the World's velocity update.
 *
 * With `maxStretch` > 1 the pass is unilateral — a particle is pulled toward
 * its predecessor only when farther than maxStretch · l_i — which is the
 * strain limiting toward the root of Rungjiratananon et al.'s hair (000 §6).
 */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError, requireAtLeast } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import type { SharedTask } from '../core/step-context.js';

export interface FollowTheLeaderOptions {
  /** DFTL's s_damping ∈ [0, 1]: how much of the successor's correction is fed back to each velocity; 0 is plain FTL. Default 0.9. */
  damping?: number;
  /** Largest stretch ratio (≥ 1): above 1 particles are pulled back only beyond it. Default 1 (exact lengths). */
  maxStretch?: number;
}

/** Strands advanced together in the FTL pass (see ftlStrands). */
const GROUP = 8;
/** Strands below which the passes stay on the calling thread; blocks per thread on the pool. */
const POOL_MIN_STRANDS = 256;
const BLOCKS_PER_THREAD = 4;
/** The pool task's passes (FtlTaskArgs.par[0]). */
const PROJECT = 0;
const CORRECT = 1;

export class FollowTheLeader implements ConstraintSet {
  readonly kind = 'follow-the-leader';
  readonly violationUnit = 'm';
  /** After the collider contacts: the lengths have the last word. */
  readonly order = 150;
  enabled = true;
  /** s_damping of DFTL. */
  damping: number;
  /** Largest stretch ratio; 1 is exact FTL. */
  maxStretch: number;
  /** Global index of the first particle of each strand, and one past the last (S + 1 entries). */
  start: Int32Array;
  /** Rest length from each particle to its predecessor (body order from `offset`; 0 for roots). */
  rest: Float64Array;
  readonly offset: number;
  /**
   * FTL corrections d_i accumulated over the current substep (xyz, body order). The fused strand pass
   * (fused-pass.ts), when it runs a substep as one pass, keeps each block's in a scratch array of its
   * own instead (read by DFTL's term in the same block): this array then holds an older substep's.
   */
  correction: Float64Array;
  readonly count: number;
  /** One colour: strands are independent, each is a sequential chain. */
  readonly colors = 1;

  /**
   * @param start  global particle index of each strand's root, plus one past the last particle
   * @param rest   rest length to the predecessor of each particle from start[0] on
   */
  constructor(start: Int32Array, rest: Float64Array, o: FollowTheLeaderOptions = {}, where = 'ftl') {
    this.start = start;
    this.rest = rest;
    this.offset = start[0];
    const n = start[start.length - 1] - start[0];
    this.correction = new Float64Array(3 * n);
    this.count = n - (start.length - 1);
    this.damping = checkDamping(o.damping ?? 0.9, `${where}.damping`);
    this.maxStretch = o.maxStretch ?? 1;
    requireAtLeast(
      this.maxStretch,
      1,
      'ftl/max-stretch',
      `${where}.maxStretch`,
      '1 keeps every segment at its rest length; 1.05 lets it stretch by 5 %',
    );
  }

  /**
   * True from beginStep until the substep's first projection, which writes every correction d_i
   * afresh (0 + d_i, as adding it to a zeroed array would), so that no pass clears the array.
   */
  fresh = false;

  beginStep(): void {
    this.fresh = true;
  }

  project(ctx: StepContext): void {
    const ns = this.start.length - 1;
    const first = this.fresh;
    this.fresh = false;
    if (this.onPool(ctx, PROJECT, first ? 1 : 0)) return;
    const s = ctx.store;
    ftlStrands(s.p, s.x, s.invMass, this.start, this.rest, this.correction, this.maxStretch, first, 0, ns);
  }

  /** DFTL's velocity correction v_i += −s_damping d_{i+1} / Δt (after the World's v = (p − x)/Δt). */
  endStep(ctx: StepContext): void {
    const sd = this.damping;
    // (not projected this substep: every d_i is 0, and v − 0 is v)
    if (sd === 0 || this.fresh) return;
    const k = sd * ctx.invH;
    if (this.onPool(ctx, CORRECT, k)) return;
    const s = ctx.store;
    dftlStrands(s.v, s.invMass, this.start, this.correction, k, 0, this.start.length - 1);
  }

  /** The pool's task and its shared parameters (mode, first or k), made on the first threaded pass. */
  private task: SharedTask | null = null;
  /** Passes (FTL or DFTL's correction) the worker pool ran (statistics, tests). */
  pooled = 0;
  private par: Float64Array | null = null;

  /**
   * Runs pass `mode` over fixed blocks of strands on the worker pool (docs/solver.md, "Threads"):
   * strands share no particle, so every partition gives the serial numbers bit for bit. False when
   * the pool cannot run it now (the caller runs the pass whole).
   */
  private onPool(ctx: StepContext, mode: number, a: number): boolean {
    const tasks = ctx.tasks;
    const ns = this.start.length - 1;
    if (!tasks || tasks.threads < 2 || ns < POOL_MIN_STRANDS) return false;
    const st = ctx.store;
    if (typeof SharedArrayBuffer === 'undefined' || !(st.p.buffer instanceof SharedArrayBuffer)) return false;
    let t = this.task;
    if (t === null) {
      // the strand layout and the corrections on shared memory (the workers write the corrections)
      t = this.task = { kind: 'follow-the-leader', args: {}, version: 0 };
      this.par = shared(new Float64Array(3));
      this.start = shared(this.start);
      this.rest = shared(this.rest);
      this.correction = shared(this.correction);
    }
    const A = t.args as Partial<FtlTaskArgs>;
    if (A.p !== st.p || A.x !== st.x || A.v !== st.v || A.w !== st.invMass) {
      t.args = {
        p: st.p,
        x: st.x,
        v: st.v,
        w: st.invMass,
        start: this.start,
        rest: this.rest,
        corr: this.correction,
        par: this.par as Float64Array,
      } satisfies FtlTaskArgs;
      t.version++;
    }
    const par = this.par as Float64Array;
    par[0] = mode;
    par[1] = a;
    par[2] = this.maxStretch;
    if (!tasks.runTask(t, ns, Math.min(64, BLOCKS_PER_THREAD * tasks.threads))) return false;
    this.pooled++;
    return true;
  }

  /** Largest |segment length − rest length| (m) beyond the allowed stretch, at x. */
  maxViolation(store: ParticleStore): number {
    const x = store.x;
    let m = 0;
    const ns = this.start.length - 1;
    for (let s = 0; s < ns; s++) {
      for (let i = this.start[s] + 1; i < this.start[s + 1]; i++) {
        const l = this.rest[i - this.offset];
        const len = Math.hypot(
          x[3 * i] - x[3 * i - 3],
          x[3 * i + 1] - x[3 * i - 2],
          x[3 * i + 2] - x[3 * i - 1],
        );
        const e = this.maxStretch === 1 ? Math.abs(len - l) : len - this.maxStretch * l;
        if (e > m) m = e;
      }
    }
    return m;
  }
}

/** s_damping must lie in [0, 1]. */
export function checkDamping(s: number, where: string): number {
  if (!(s >= 0 && s <= 1)) {
    throw new PbdError(
      'ftl/damping',
      where,
      `must lie in [0, 1], got ${s}`,
      "DFTL's s_damping: 0 is plain FTL, 0.9 the usual choice for hair",
    );
  }
  return s;
}

/**
 * The FTL pass (000 §3.5, Figure 9) over strands [s0, s1): from each root down,
 * p_i ← p_{i−1} + l_i (p_i − p_{i−1}) / |p_i − p_{i−1}| (with `limit` > 1 only beyond limit · l_i),
 * and d_i = (new p_i) − (old p_i) added to `corr` (body order from start[0]); `first` writes every
 * d_i afresh (0 + d_i, the substep's first pass: no pass clears the array). `corrFrom` is the
 * particle of corr's first entry (start[0]: the set's array; the fused strand pass gives a block's
 * first particle and a scratch array of the block's corrections).
 */
export function ftlStrands(
  p: Float64Array,
  x: Float64Array,
  w: Float64Array,
  start: Int32Array,
  rest: Float64Array,
  corr: Float64Array,
  limit: number,
  first: boolean,
  from: number,
  to: number,
  corrFrom = start[0],
): void {
  const off = start[0];
  const exact = limit === 1;
  // Each strand is a dependent chain (particle i needs i − 1 moved first), so one strand at
  // a time leaves the CPU waiting on each square root and division. GROUP strands advance
  // together, particle k of each in turn: independent work the CPU overlaps.
  for (let s0 = from; s0 < to; s0 += GROUP) {
    const s1 = Math.min(to, s0 + GROUP);
    let longest = 0;
    for (let s = s0; s < s1; s++) longest = Math.max(longest, start[s + 1] - start[s]);
    for (let k = 1; k < longest; k++) {
      for (let s = s0; s < s1; s++) {
        const i = start[s] + k;
        if (i >= start[s + 1]) continue; // past its end
        const c3 = 3 * (i - corrFrom);
        if (w[i] === 0) {
          // pinned: it leads the rest
          if (first) corr[c3] = corr[c3 + 1] = corr[c3 + 2] = 0;
          continue;
        }
        const i3 = 3 * i,
          j3 = i3 - 3;
        let dx = p[i3] - p[j3],
          dy = p[i3 + 1] - p[j3 + 1],
          dz = p[i3 + 2] - p[j3 + 2];
        let len = Math.sqrt(dx * dx + dy * dy + dz * dz);
        const l = rest[i - off];
        if (!exact && len <= limit * l) {
          if (first) corr[c3] = corr[c3 + 1] = corr[c3 + 2] = 0;
          continue;
        }
        if (!(len > 1e-12 * l)) {
          // on top of its predecessor: keep the segment's direction at the start of the step
          dx = x[i3] - x[j3];
          dy = x[i3 + 1] - x[j3 + 1];
          dz = x[i3 + 2] - x[j3 + 2];
          len = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (!(len > 1e-12 * l)) {
            if (first) corr[c3] = corr[c3 + 1] = corr[c3 + 2] = 0;
            continue;
          }
        }
        const s2 = (exact ? l : limit * l) / len;
        const nx = p[j3] + dx * s2,
          ny = p[j3 + 1] + dy * s2,
          nz = p[j3 + 2] + dz * s2;
        // d_i over the substep: the first pass adds to 0, later iterations to what it holds
        corr[c3] = (first ? 0 : corr[c3]) + (nx - p[i3]);
        corr[c3 + 1] = (first ? 0 : corr[c3 + 1]) + (ny - p[i3 + 1]);
        corr[c3 + 2] = (first ? 0 : corr[c3 + 2]) + (nz - p[i3 + 2]);
        p[i3] = nx;
        p[i3 + 1] = ny;
        p[i3 + 2] = nz;
      }
    }
  }
}

/**
 * DFTL's velocity correction (000 §3.5) over strands [from, to): v_i −= k d_{i+1}, k = s_damping / Δt
 * (corr from particle `corrFrom` on, as in ftlStrands).
 */
export function dftlStrands(
  v: Float64Array,
  w: Float64Array,
  start: Int32Array,
  corr: Float64Array,
  k: number,
  from: number,
  to: number,
  corrFrom = start[0],
): void {
  const off = corrFrom;
  for (let s = from; s < to; s++) {
    const last = start[s + 1] - 1;
    for (let i = start[s]; i < last; i++) {
      if (w[i] === 0) continue;
      const i3 = 3 * i,
        c3 = 3 * (i + 1 - off);
      v[i3] -= k * corr[c3];
      v[i3 + 1] -= k * corr[c3 + 1];
      v[i3 + 2] -= k * corr[c3 + 2];
    }
  }
}

/** Arguments of the 'follow-the-leader' pool task: the store's and the set's shared arrays. */
interface FtlTaskArgs {
  p: Float64Array;
  x: Float64Array;
  v: Float64Array;
  w: Float64Array;
  start: Int32Array;
  rest: Float64Array;
  corr: Float64Array;
  /** The pass (PROJECT or CORRECT), then first (1 / 0) or k, then maxStretch. */
  par: Float64Array;
}

/** The task's kernel (src/parallel/registry.ts): the pass of par[0] over strands [from, to). */
export function ftlTask(a: FtlTaskArgs, from: number, to: number): void {
  const par = a.par;
  if (par[0] === PROJECT) ftlStrands(a.p, a.x, a.w, a.start, a.rest, a.corr, par[2], par[1] === 1, from, to);
  else dftlStrands(a.v, a.w, a.start, a.corr, par[1], from, to);
}

/** A copy of `a` on a SharedArrayBuffer. */
function shared<T extends Float64Array | Int32Array>(a: T): T {
  const C = a.constructor as new (b: SharedArrayBuffer) => T;
  const b = new C(new SharedArrayBuffer(a.length * a.BYTES_PER_ELEMENT));
  b.set(a);
  return b;
}
