/**
 * The paired SIMD kernels generated from the `*.kernel.ts` definitions
 * (wasm/elements.generated.ts; their sweeps: element-kernels.generated.ts):
 * which kernel instance a constraint set projects with.
 */
import type { ParticleStore } from '../core/particles.js';
import { ELEMENT_IMPORTS, type ElementExports } from './element-kernels.generated.js';
import { sharedKernel, wasmKernel, worthPairing } from './kernels.js';
import { PairedCopy, type PairedSet } from './paired.js';
import { type PairedSpec, pairedGroup } from './paired-group.js';

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
 * definition's Rec and PerConstraint arrays. With a `store`, the copy lives
 * in the kernel memory of the store's sets with the same particle window,
 * precision and module (a body's stretch and bending sets: see KernelMemory;
 * `shared`, a shared one that the pool's sweeps hold too), else in a memory
 * of its own.
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
  store: ParticleStore | null = null,
): ElementKernel | null {
  if (set.backend !== 'auto' || set.rule.gamma !== 0 || set.count === 0) return null;
  // on a threaded store's shared memory (session 20) the module's shared form, as for a pool
  const mod = shared || store?.memory?.shared ? sharedKernel('elements') : wasmKernel('elements');
  if (mod === null) return null;
  if (
    current !== null &&
    !current.retired &&
    current.matches(set, record, scalar) &&
    current.plan.lanes === (f32 ? 4 : 2) &&
    current.module === mod
  )
    return current;
  if (!worthPairing(set, arity)) return null;
  // the f32 mode's blocked kernels gather a colour's particles from the f32 window into a scratch of
  // 64 arity bytes per group of four
  const scratch = f32 ? 64 * arity * largestColour(set, 4) : 0;
  // the f32 window as x y z w (scripts/kernels/emit-simd.ts, Lanes.aos4: the shipped F32X4_MODE)
  const spec: PairedSpec = { set, arity, record, recordStride: stride, scalar, f32, scratch, aos4: f32 };
  if (store !== null) return KernelMemory.copyOf(store, mod, spec, shared);
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
    f32,
  );
}

/**
 * One kernel memory for the sets of a store that project on the same particle window in the
 * same precision (issue 18: a cloth's stretch and bending sets): their copies made together by
 * pairedGroup, so that the positions copied in for one set's sweep serve the next set's without
 * a copy out and in between (ParticleWindow.save, ParticleStore.held). A set whose arrays change
 * (setConstraints, tearing, a precision switch) rebuilds its group: every member's copy moves to
 * a new memory (the old copies are `retired`; their sets pick up the new ones at their next sweep).
 */
class KernelMemory {
  private static readonly byStore = new WeakMap<ParticleStore, KernelMemory[]>();
  private readonly members: PairedSpec[] = [];
  private copies: ElementKernel[] = [];
  /** The region of the store's memory the copies lie in (their window's; 0: a memory of their own). */
  private region = 0;

  private constructor(
    readonly mod: WebAssembly.Module,
    readonly lanes: number,
    readonly base: number,
    readonly range: number,
    readonly shared: boolean,
  ) {}

  /** The set's copy in its group's memory: the group's current one when it still matches, else a rebuilt group's. */
  static copyOf(
    store: ParticleStore,
    mod: WebAssembly.Module,
    spec: PairedSpec,
    shared: boolean,
  ): ElementKernel {
    let gone: KernelMemory | null = null;
    let groups = KernelMemory.byStore.get(store);
    if (groups === undefined) KernelMemory.byStore.set(store, (groups = []));
    const lanes = spec.f32 ? 4 : 2;
    const set = spec.set;
    for (let g = 0; g < groups.length; g++) {
      const k = groups[g].indexOf(set);
      if (k < 0) continue;
      const c = groups[g].copies[k];
      if (groups[g].mod === mod && groups[g].lanes === lanes && c.matches(set, spec.record, spec.scalar))
        return c;
      groups[g].members.splice(k, 1);
      groups[g].copies.splice(k, 1);
      if (groups[g].members.length === 0) gone = groups.splice(g, 1)[0];
      break;
    }
    const [base, range] = windowOf(set, spec.arity);
    let group: KernelMemory | null = null;
    for (const g of groups)
      if (g.mod === mod && g.lanes === lanes && g.base === base && g.range === range) group = g;
    if (group === null) groups.push((group = new KernelMemory(mod, lanes, base, range, shared)));
    group.members.push(spec);
    group.rebuild(store);
    // an emptied group's region of the store's memory back, once the set's copy no longer reads it
    gone?.release(store, [spec]);
    return group.copies[group.members.length - 1];
  }

  private indexOf(set: PairedSet): number {
    for (let k = 0; k < this.members.length; k++) if (this.members[k].set === set) return k;
    return -1;
  }

  /** Every member's copy anew in one memory (members whose set has other constraints now leave the group). */
  private rebuild(store: ParticleStore): void {
    // the held window may be this group's: its positions go to the store before the old copies retire
    store.settle();
    for (const c of this.copies) c.retired = true;
    const left: PairedSpec[] = this.members.slice();
    for (let k = this.members.length - 2; k >= 0; k--) {
      const m = this.members[k];
      if (!this.copies[k].matches(m.set, m.record, m.scalar)) {
        this.members.splice(k, 1);
        this.copies.splice(k, 1);
      }
    }
    // in a region of the store's memory where its module is the memory's kind (and it has room)
    const m = store.memory;
    const memory = m !== null && (this.mod === sharedKernel('elements')) === m.shared ? m : null;
    this.copies = pairedGroup<ElementExports>(
      this.mod,
      'elements',
      ELEMENT_IMPORTS,
      this.members,
      this.shared,
      memory,
    );
    // the old copies' region back (the members' multipliers are the new copies' now)
    this.release(store, left);
    this.region = this.copies.length > 0 && this.copies[0].win.mem !== null ? this.copies[0].win.region : 0;
  }

  /**
   * Gives this group's region of the store's memory back; a set of `sets` whose multipliers are
   * still views of it (a set that left the group) keeps a copy of them first.
   */
  private release(store: ParticleStore, sets: readonly PairedSpec[]): void {
    const m = store.memory;
    const at = this.region;
    if (m === null || at === 0) return;
    this.region = 0;
    for (const s of sets) {
      const l = s.set.lambda;
      if (m.owns(l.buffer) && l.byteOffset >= at && l.byteOffset < at + m.sizeOf(at))
        s.set.lambda = l.slice();
    }
    m.release(at);
  }
}

/** The first particle and the length of a set's particle window (PairPlan's). */
function windowOf(set: PairedSet, arity: number): [number, number] {
  const idx = set.indices;
  let lo = Number.POSITIVE_INFINITY,
    hi = -1;
  for (let k = 0; k < arity * set.count; k++) {
    if (idx[k] < lo) lo = idx[k];
    if (idx[k] > hi) hi = idx[k];
  }
  return set.count > 0 ? [lo, hi - lo + 1] : [0, 0];
}

/** The largest colour's number of groups of `lanes` constraints. */
function largestColour(set: ElementSet, lanes: number): number {
  let m = 0;
  const o = set.colorOffsets;
  for (let k = 0; k + 1 < o.length; k++) m = Math.max(m, Math.ceil((o[k + 1] - o[k]) / lanes));
  return m;
}
