/**
 * Several sets' copies in one kernel memory sharing one particle window (pairedGroup; moved here
 * from paired.ts in session 19, cl25).
 */
import type { StoreMemory } from '../core/store-memory.js';
import {
  Arena,
  instantiate,
  PairedCopy,
  type PairedHost,
  type PairedSet,
  PairPlan,
  ParticleWindow,
} from './paired.js';
import type { WindowMovesF32 } from './window-moves.js';

/** The constructor arguments of one set's copy in a kernel memory shared by several sets (pairedGroup). */
export interface PairedSpec {
  set: PairedSet;
  arity: number;
  record: Float64Array | null;
  recordStride: number;
  scalar: Float64Array;
  f32: boolean;
  scratch: number;
  aos4: boolean;
}

/**
 * One kernel memory and one instance for several sets on the same particle window (a body's
 * stretch and bending sets, say): each set's arrays laid out one after the other, then one
 * window that all of them project on, so that a sweep of one set and the next sweep of another
 * share the copied positions (ParticleWindow.save holds it while the store is `holding`). The
 * sets must have the same window (PairPlan base and range) and precision; the bits of each
 * sweep are those of a copy of its own (the same kernels on the same values). `shared`: on a
 * shared memory, for a worker pool (the module's memory import shared: kernels.ts sharedKernel).
 * `memory`: in a region of the store's memory (its module's import shared; session 20): the
 * window's `mem` and `region` say which, for the caller to give back (StoreMemory.release).
 */
export function pairedGroup<E>(
  mod: WebAssembly.Module,
  name: string,
  imports: Record<string, unknown>,
  specs: readonly PairedSpec[],
  shared = false,
  memory: StoreMemory | null = null,
): PairedCopy<E>[] {
  const s0 = specs[0];
  const plan0 = new PairPlan(s0.set, s0.arity, s0.f32 ? 4 : 2);
  // the layout from `top` on (the copies', then the window's): its size first, on the store's memory
  const layout = (top: number) => {
    const sizing = new Arena(top);
    for (let i = 0; i < specs.length; i++) {
      const s = specs[i];
      PairedCopy.reserve(
        sizing,
        new PairPlan(s.set, s.arity, s.f32 ? 4 : 2),
        s.recordStride,
        s.f32,
        s.scratch,
      );
    }
    const win = new ParticleWindow(plan0, sizing, s0.f32, s0.aos4, memory === null);
    return { sizing, win };
  };
  let { sizing, win } = layout(1024);
  // (a full store memory: a memory of its own, the store's arrays homed or copied as without one)
  const region = memory !== null ? memory.alloc(sizing.top - 1024) : -1;
  if (region < 0) memory = null;
  else if (memory !== null) {
    ({ sizing, win } = layout(region));
    win.mem = memory;
    win.region = region;
  }
  const instance = instantiate(mod, sizing.top, imports, name, shared, memory?.memory ?? null);
  // (the copies' views, the multipliers among them, are made on this buffer: StoreMemory.owns)
  memory?.note(instance.buffer);
  win.bind(instance.buffer, instance.exports as unknown as WindowMovesF32);
  const host: PairedHost = { arena: new Arena(memory !== null ? region : 1024), instance, win };
  const out: PairedCopy<E>[] = [];
  for (let i = 0; i < specs.length; i++) {
    const s = specs[i];
    out.push(
      new PairedCopy<E>(
        mod,
        name,
        imports,
        s.set,
        s.arity,
        s.record,
        s.recordStride,
        s.scalar,
        s.f32,
        s.scratch,
        s.f32,
        false,
        s.aos4,
        host,
      ),
    );
  }
  return out;
}
