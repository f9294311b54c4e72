/**
 * The entry of a pool's worker thread (pool.ts; Node worker_threads or a
 * browser module Worker). It keeps copies of the registered particle stores
 * and constraint sets (mirror.ts) and, while a step runs, claims blocks of
 * the published jobs (protocol.ts) and projects them with the set's own
 * `projectColorRange`. Between steps it parks in Atomics.wait on the step
 * counter (session 25); the pool sends it back to its event loop when
 * registrations are to arrive.
 */

import { setThreadIndex } from '../core/block-order.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { type Holder, readScalars, rebuild } from './mirror.js';
import {
  BLOCK,
  COLOR,
  DONE,
  ERR,
  ERRLEN,
  EXIT,
  FROM,
  type FromWorker,
  GEN,
  type MirrorMessage,
  NEXT,
  readContext,
  SET,
  SLEPT,
  SPUN,
  STATE,
  STEP,
  TASK_JOB,
  TO,
  TOTAL,
  type ToWorker,
  WORKED,
  WORKER_SPIN,
} from './protocol.js';
import { parallelSetClasses, parallelTasks, type TaskKernel } from './registry.js';

/**
 * Spins waiting for the next job before sleeping in Atomics.wait (about
 * 0.1–0.15 ms on the 2-core machine; it was 20,000, ~0.7 ms). Between two
 * jobs the worker has no work: the calling thread joins results and runs
 * its serial parts (self-collision-6000: median gap 0.06 ms, a tenth of
 * them over 0.5 ms). A shorter spin gives the core back sooner where the
 * machine is shared, at the cost of a wake-up (Atomics.notify in
 * WorkerPool.run) after the longer gaps (docs/collision.md, "Twelfth
 * round": on two threads 0.94 × the CPU and 0.87–0.88 × the wall per
 * frame at load 22–24).
 */
const SPIN = 4000;

interface SetCopy {
  set: ConstraintSet & Holder;
  mirror: MirrorMessage;
  ctx: StepContext;
  store: number;
}

interface StoreCopy {
  store: Holder;
  mirror: MirrorMessage;
}

let control: Int32Array<ArrayBufferLike> = new Int32Array(0);
let ctxBlock: Float64Array<ArrayBufferLike> = new Float64Array(0);
let errorBytes: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
let gen = 0;
const sets = new Map<number, SetCopy>();
const stores = new Map<number, StoreCopy>();
const tasks = new Map<number, { kernel: TaskKernel; args: Record<string, unknown> }>();

type Port = { post(m: FromWorker): void; listen(f: (m: ToWorker) => void): void };

async function port(): Promise<Port> {
  const g = globalThis as { process?: { versions?: { node?: string } } };
  if (g.process?.versions?.node) {
    const spec = 'node:worker_threads';
    const wt = (await import(/* @vite-ignore */ spec)) as typeof import('node:worker_threads');
    const pp = wt.parentPort!;
    return { post: (m) => pp.postMessage(m), listen: (f) => pp.on('message', f) };
  }
  const self = globalThis as unknown as {
    postMessage(m: unknown): void;
    addEventListener(t: 'message', f: (e: MessageEvent<ToWorker>) => void): void;
  };
  return {
    post: (m) => self.postMessage(m),
    listen: (f) => self.addEventListener('message', (e) => f(e.data)),
  };
}

async function handle(m: ToWorker, out: Port): Promise<void> {
  switch (m.type) {
    case 'hello':
      control = m.control;
      ctxBlock = m.ctx;
      errorBytes = m.error;
      setThreadIndex(m.index);
      out.post({ type: 'ready' });
      return;
    case 'store':
      stores.set(m.id, { store: rebuild(Object.prototype, m.mirror), mirror: m.mirror });
      return;
    case 'set': {
      let cls = parallelSetClasses[m.kind] as unknown as { prototype: object } | undefined;
      if (m.module !== null) {
        const mod = (await import(/* @vite-ignore */ m.module.module)) as Record<
          string,
          { prototype: object }
        >;
        cls = mod[m.module.name];
      }
      const st = stores.get(m.store);
      if (!cls || !st) throw new Error(`worker: no class for set kind ${m.kind} or no store ${m.store}`);
      const set = rebuild(cls.prototype, m.mirror) as ConstraintSet & Holder;
      const ctx = { store: st.store, reverse: false, iteration: 0 } as unknown as StepContext;
      sets.set(m.id, { set, mirror: m.mirror, ctx, store: m.store });
      gen = Math.max(gen, m.gen);
      return;
    }
    case 'task': {
      const kernel = parallelTasks[m.kind];
      if (!kernel) throw new Error(`worker: no task kernel ${m.kind}`);
      tasks.set(m.id, { kernel, args: m.args });
      gen = Math.max(gen, m.gen);
      return;
    }
    case 'forget':
      for (const id of m.sets) sets.delete(id);
      for (const id of m.stores) stores.delete(id);
      for (const id of m.tasks ?? []) tasks.delete(id);
      return;
    case 'enter':
      loop(m.exit);
      return;
  }
}

/**
 * Between steps (STATE 0): waits on STEP until the next step (true) or until the pool asks the
 * worker back to its event loop (EXIT moved past `exit`: false). STEP is read before STATE and
 * EXIT, and the pool writes them before it bumps STEP, so no wake is lost.
 */
function park(c: Int32Array<ArrayBufferLike>, exit: number): boolean {
  for (;;) {
    const s = Atomics.load(c, STEP);
    if (Atomics.load(c, EXIT) !== exit) return false;
    if (Atomics.load(c, STATE) !== 0) return true;
    Atomics.wait(c, STEP, s);
  }
}

/**
 * Claims and runs blocks while steps run, parked between them, until the pool asks the worker
 * back to its event loop (EXIT no longer `exit`, the count its `enter` message carried).
 */
function loop(exit: number): void {
  const c = control;
  let budget = Atomics.load(c, WORKER_SPIN) || SPIN;
  let spins = 0;
  for (;;) {
    const w = Atomics.load(c, NEXT);
    const total = Atomics.load(c, TOTAL);
    const k = w & 255;
    // asked out while a job is open (registrations wait in its event loop: a worker that missed
    // the step's end, or a stale `enter`): it reads them before it claims a block (session 20's
    // parking lost a worker this way, docs/solver.md "Session 20"); a job that needs them
    // (GEN) always comes after such a request
    if (k < total && Atomics.load(c, EXIT) !== exit) {
      Atomics.add(c, SPUN, spins);
      return;
    }
    if (k < total && Atomics.load(c, GEN) <= gen) {
      if (Atomics.compareExchange(c, NEXT, w, w + 1) !== w) continue;
      if (spins > 0) Atomics.add(c, SPUN, spins);
      Atomics.add(c, WORKED, runBlock(k));
      if (Atomics.add(c, DONE, 1) + 1 === total) Atomics.notify(c, DONE);
      spins = 0;
      continue;
    }
    if (Atomics.load(c, STATE) === 0) {
      if (spins > 0) Atomics.add(c, SPUN, spins);
      spins = 0;
      if (!park(c, exit)) return;
      budget = Atomics.load(c, WORKER_SPIN) || SPIN;
      continue;
    }
    if (++spins < budget) continue;
    Atomics.add(c, SPUN, spins);
    Atomics.add(c, SLEPT, 1);
    Atomics.wait(c, NEXT, w);
    spins = 0;
  }
}

/**
 * Block k of the current job: its constraints of the colour, with the set's
 * own projectColorRange, or a task's block. Returns the blocks it ran (a
 * task run in parts says how many; else 1).
 */
function runBlock(k: number): number {
  const c = control;
  try {
    // the job's fields by Atomics.load: plain loads of shared memory may be hoisted out of the loop by the JIT
    const id = Atomics.load(c, SET);
    const from = Atomics.load(c, FROM) + k * Atomics.load(c, BLOCK);
    const to = Math.min(Atomics.load(c, TO), from + Atomics.load(c, BLOCK));
    const color = Atomics.load(c, COLOR);
    if (color === TASK_JOB) {
      const task = tasks.get(id);
      if (!task) throw new Error(`worker: task ${id} was never registered`);
      const ran = task.kernel(task.args, from, to, k);
      return typeof ran === 'number' ? ran : 1;
    }
    const copy = sets.get(id);
    if (!copy) throw new Error(`worker: set ${id} was never registered`);
    const st = stores.get(copy.store);
    if (!st) throw new Error(`worker: store ${copy.store} was never registered`);
    readScalars(st.store, st.mirror);
    readScalars(copy.set, copy.mirror);
    const ctx = copy.ctx as { -readonly [K in keyof StepContext]: StepContext[K] };
    ctx.store = st.store as unknown as StepContext['store'];
    readContext(ctxBlock, ctx);
    copy.set.projectColorRange!(ctx, color, from, to);
    return 1;
  } catch (e) {
    if (Atomics.compareExchange(c, ERR, 0, 1) === 0) {
      const text = String((e as { stack?: string })?.stack ?? e);
      const bytes = new TextEncoder().encode(text).subarray(0, errorBytes.length);
      errorBytes.set(bytes);
      Atomics.store(c, ERRLEN, bytes.length);
    }
    return 1;
  }
}

const out = await port();
let queue: Promise<void> = Promise.resolve();
out.listen((m) => {
  queue = queue
    .then(() => handle(m, out))
    .catch((e) => out.post({ type: 'failed', message: String((e as { message?: string })?.message ?? e) }));
});
