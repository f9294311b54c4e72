/**
 * A pool of worker threads over shared memory (docs/solver.md, "Threads"):
 * Node's worker_threads or a browser's Web Workers, each running worker.ts.
 * The calling thread publishes one job at a time in the control block
 * (protocol.ts) and takes part in it; blocks go to whichever thread claims
 * them first, so a worker that is late (starting, or descheduled on a busy
 * machine) only means the others do more. Pools are shared by the worlds of
 * one thread count and end with the last of them (World.dispose); their
 * workers never keep a Node process alive.
 */
import {
  BLOCK,
  CLOSED,
  COLOR,
  CONTROL_SLOTS,
  CTX_SLOTS,
  DONE,
  ERR,
  ERRLEN,
  ERROR_BYTES,
  EXIT,
  FROM,
  type FromWorker,
  GEN,
  NEXT,
  SET,
  SLEPT,
  SPUN,
  STATE,
  STEP,
  TO,
  TOTAL,
  type ToWorker,
  WORKED,
  WORKER_SPIN,
} from './protocol.js';

/** What the pool needs of a worker, in Node or a browser. */
interface WorkerHandle {
  post(message: ToWorker): void;
  terminate(): void;
  /** Node: lets the process exit while this worker lives (called once every worker is ready). */
  unref?(): void;
}

/** Spins of the calling thread waiting for the workers' last blocks before it sleeps. */
const SPIN = 4000;

/** Whether this thread may block in Atomics.wait (not a browser's main thread). */
const canWait = typeof window === 'undefined';

/** Why threads cannot run here, or null when they can. */
export function threadsUnavailable(): string | null {
  if (typeof SharedArrayBuffer === 'undefined' || typeof Atomics === 'undefined')
    return 'SharedArrayBuffer is missing (a page needs cross-origin isolation: COOP/COEP headers)';
  const g = globalThis as { crossOriginIsolated?: boolean; process?: { versions?: { node?: string } } };
  const node = !!g.process?.versions?.node;
  if (!node && g.crossOriginIsolated === false)
    return 'the page is not cross-origin isolated (COOP/COEP headers)';
  if (!node && typeof Worker === 'undefined') return 'Web Workers are missing';
  return null;
}

/** Starts one worker running worker.ts (Node: worker_threads; browsers: a module Worker). */
async function spawn(
  onMessage: (m: FromWorker) => void,
  onError: (e: unknown) => void,
): Promise<WorkerHandle> {
  const g = globalThis as { process?: { versions?: { node?: string } } };
  const source = import.meta.url.endsWith('.ts');
  if (g.process?.versions?.node) {
    const spec = 'node:worker_threads';
    const wt = (await import(/* @vite-ignore */ spec)) as typeof import('node:worker_threads');
    let w: import('node:worker_threads').Worker;
    if (source) {
      // from the TypeScript sources (tests, tsx) the worker loads its .ts entry through tsx's API
      const mod = 'node:module';
      const { createRequire } = (await import(/* @vite-ignore */ mod)) as typeof import('node:module');
      const api = `file://${createRequire(import.meta.url)
        .resolve('tsx/esm/api')
        .replace(/\.cjs$/, '.mjs')}`;
      const entry = new URL('./worker.ts', import.meta.url).href;
      const code = `import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(import.meta.url)}))`;
      w = new wt.Worker(code, { eval: true });
    } else {
      w = new wt.Worker(new URL('./worker.js', import.meta.url));
    }
    w.on('message', onMessage);
    w.on('error', onError);
    // ref'd until the pool is ready (its 'ready' message must keep a waiting script alive), then
    // unref'd, so that a script that never disposes its world still exits (test/threads.test.ts)
    return {
      post: (m) => w.postMessage(m),
      terminate: () => void w.terminate(),
      unref: () => void w.unref(),
    };
  }
  const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  w.onmessage = (e: MessageEvent<FromWorker>) => onMessage(e.data);
  w.onerror = (e) => onError(e);
  return { post: (m) => w.postMessage(m), terminate: () => w.terminate() };
}

/** A job's constraints projected by the calling thread (the pool calls it for the blocks it claims: range and block number). */
export type RangeRunner = (from: number, to: number, block: number) => void;

export class WorkerPool {
  readonly threads: number;
  readonly control = new Int32Array(new SharedArrayBuffer(4 * CONTROL_SLOTS));
  readonly ctx = new Float64Array(new SharedArrayBuffer(8 * CTX_SLOTS));
  private readonly error = new Uint8Array(new SharedArrayBuffer(ERROR_BYTES));
  private workers: WorkerHandle[] = [];
  private readyCount = 0;
  private seq = 0;
  private refs = 0;
  private broken: string | null = null;
  private readonly started: Promise<void>;
  private resolveReady: () => void = () => {};
  private readonly readyPromise: Promise<void>;
  /** Messages to send before the next step (registrations), in order. */
  private readonly outbox: ToWorker[] = [];
  /** Registration generation: a job names the one its set needs, and a worker that has not seen it yet skips it. */
  gen = 0;
  disposed = false;

  constructor(threads: number) {
    this.threads = threads;
    this.readyPromise = new Promise((r) => {
      this.resolveReady = r;
    });
    this.started = this.start();
  }

  private async start(): Promise<void> {
    try {
      for (let k = 1; k < this.threads; k++) {
        const w = await spawn(
          (m) => this.onMessage(m),
          (e) => this.fail(String((e as { message?: string })?.message ?? e)),
        );
        if (this.disposed) {
          w.terminate();
          return;
        }
        w.post({ type: 'hello', control: this.control, ctx: this.ctx, error: this.error, index: k });
        for (const m of this.sent) w.post(m);
        // into its loop at once (parked there until a step): the others may be parked already, and
        // the pool posts `enter` only after a request back to the event loops
        w.post({ type: 'enter', exit: Atomics.load(this.control, EXIT) });
        this.workers.push(w);
      }
    } catch (e) {
      this.fail(String((e as { message?: string })?.message ?? e));
    }
  }

  /** Every registration sent so far, for workers that start later. */
  private readonly sent: ToWorker[] = [];

  private onMessage(m: FromWorker): void {
    if (m.type === 'ready') {
      if (++this.readyCount === this.threads - 1) {
        for (const w of this.workers) w.unref?.();
        this.resolveReady();
      }
    } else this.fail(m.message);
  }

  private fail(message: string): void {
    if (this.broken === null) {
      this.broken = message;
      if (typeof console !== 'undefined')
        console.warn(`pbdkit: a worker thread failed (${message}); running on one thread`);
    }
    for (const w of this.workers) w.unref?.();
    this.resolveReady();
  }

  /** Resolves when every worker has started (or the pool failed and runs on one thread). */
  ready(): Promise<void> {
    return this.started.then(() => this.readyPromise);
  }

  /** Whether jobs may go to workers now (started and not failed; the calling thread always takes part). */
  get active(): boolean {
    return this.broken === null && this.workers.length > 0 && !this.disposed;
  }

  /** Blocks run by workers so far (statistics, tests). */
  get workerBlocks(): number {
    return Atomics.load(this.control, WORKED);
  }

  /**
   * Spin statistics (bench/thread-profile.ts): the calling thread's loads spun at jobs' ends
   * waiting for the workers' last blocks and its sleeps there; the workers' loads spun waiting
   * for a job and their sleeps (control block, SPUN and SLEPT).
   */
  readonly spins = { endLoads: 0, endSleeps: 0 };
  get workerSpins(): { loads: number; sleeps: number } {
    return { loads: Atomics.load(this.control, SPUN), sleeps: Atomics.load(this.control, SLEPT) };
  }

  /**
   * Measurement only (bench/thread-profile.ts): the calling thread runs every block of every job
   * itself and the workers get none, so that the same blocks are timed on one thread and on all.
   * The bits are the same (which thread runs a block changes nothing).
   */
  static solo = false;
  /** The workers' spin budget waiting for a job (loads before they sleep; 0: worker.ts's SPIN), read as they enter a step. */
  static workerSpin = 0;
  /**
   * Session 25: the workers park between steps in Atomics.wait on STEP and a step lets them in by a
   * notify (true), instead of returning to their event loops at each step's end and being let in
   * by an `enter` message (false, the protocol before; measurement and tests). Read at endStep.
   */
  static park = true;
  /** `enter` messages posted (one per worker each time they were sent back to their event loops; tests). */
  enters = 0;
  /** Whether the workers were sent into their job loop (by `enter`) and not asked back out since. */
  private looping = false;

  acquire(): void {
    this.refs++;
  }

  /** Ends the pool with its last world. */
  release(): void {
    if (--this.refs > 0) return;
    this.disposed = true;
    Atomics.store(this.control, STATE, 0);
    this.leave();
    this.bump();
    for (const w of this.workers) w.terminate();
    this.workers = [];
    this.resolveReady();
  }

  /** Queues a registration; workers receive it before the next step's jobs. */
  send(message: ToWorker): void {
    this.outbox.push(message);
  }

  /** Sends the queued registrations and lets the workers into their job loop for one step. */
  beginStep(): void {
    if (!this.active) return;
    const out = this.outbox;
    // registrations: the workers back to their event loops first, where the messages arrive (also
    // a worker that started late and went into its loop at once, beside `looping`)
    if (out.length > 0) this.leave();
    for (const m of out) {
      this.sent.push(m);
      for (const w of this.workers) w.post(m);
    }
    out.length = 0;
    this.compactSent();
    this.entered = false;
    // a pool that had jobs last step lets the workers in now, so that they are in their job loop
    // before the first job (their wake-up off its critical path); the others wait for a first job
    if (this.hadJobs) this.enter();
    this.hadJobs = false;
  }

  /**
   * Whether the workers were let into their job loop this step: at the
   * step's start when the last step had jobs, else at the step's first job
   * (run), so that steps with no job on the pool (a world whose sets are all
   * too small for it) neither wake them nor have them spin beside the
   * calling thread.
   */
  private entered = false;
  /** Whether this step has run a job on the pool. */
  private hadJobs = false;

  /**
   * Lets the workers into the step: a notify on STEP wakes those parked in their loop (the
   * step's head without a message, session 25); `enter` goes only to workers that are in their
   * event loops (the first step, and after registrations).
   */
  private enter(): void {
    const c = this.control;
    this.entered = true;
    Atomics.store(c, WORKER_SPIN, WorkerPool.workerSpin);
    Atomics.store(c, STATE, 1);
    Atomics.add(c, STEP, 1);
    Atomics.notify(c, STEP);
    if (this.looping) return;
    this.looping = true;
    const m: ToWorker = { type: 'enter', exit: Atomics.load(c, EXIT) };
    for (const w of this.workers) w.post(m);
    this.enters += this.workers.length;
  }

  /** Asks the workers back to their event loops (a parked one wakes; each loop returns once it sees EXIT move). */
  private leave(): void {
    const c = this.control;
    this.looping = false;
    Atomics.add(c, EXIT, 1);
    Atomics.add(c, STEP, 1);
    Atomics.notify(c, STEP);
  }

  /** Ends the step: the workers park in their loop (or, with `park` off, go back to their event loops). */
  endStep(): void {
    if (this.workers.length === 0 || !this.entered) return;
    this.entered = false;
    Atomics.store(this.control, STATE, 0);
    if (!WorkerPool.park) this.leave();
    this.bump();
  }

  /** A new, empty job: wakes workers waiting on NEXT so that they see STATE. */
  private bump(): void {
    const c = this.control;
    this.seq = (this.seq + 1) & 0xffffff;
    Atomics.store(c, NEXT, (this.seq << 8) | CLOSED);
    Atomics.store(c, TOTAL, 0);
    Atomics.notify(c, NEXT);
  }

  /** Keeps only the last registration of each set and store for workers that start later. */
  private compactSent(): void {
    if (this.sent.length < 256) return;
    const last = new Map<string, ToWorker>();
    for (const m of this.sent) {
      if (m.type === 'set' || m.type === 'store' || m.type === 'task') last.set(`${m.type}:${m.id}`, m);
      else if (m.type === 'forget') {
        for (const id of m.sets) last.delete(`set:${id}`);
        for (const id of m.stores) last.delete(`store:${id}`);
        for (const id of m.tasks ?? []) last.delete(`task:${id}`);
      }
    }
    this.sent.length = 0;
    this.sent.push(...last.values());
  }

  /**
   * Projects constraints [from, to) of one colour batch of set `id` in
   * `blocks` fixed blocks, the calling thread claiming blocks like the
   * workers (`own` runs them here), and returns when every block is done.
   * A block that throws anywhere is rethrown here, after the others finished.
   * `lead` (session 23): serial work of the calling thread that does not
   * touch what the blocks read or write, run once the job is open and before
   * this thread claims its first block, so that the workers' blocks overlap it.
   */
  run(
    id: number,
    gen: number,
    color: number,
    from: number,
    to: number,
    blocks: number,
    own: RangeRunner,
    lead: (() => void) | null = null,
  ): void {
    const c = this.control;
    if (!this.entered) this.enter();
    this.hadJobs = true;
    const block = Math.ceil((to - from) / blocks);
    const total = Math.ceil((to - from) / block);
    if (WorkerPool.solo) {
      if (lead !== null) lead();
      for (let k = 0; k < total; k++) own(from + k * block, Math.min(to, from + (k + 1) * block), k);
      return;
    }
    // close the old job first: a thread that read the old NEXT and then the new TOTAL must fail its exchange
    this.seq = (this.seq + 1) & 0xffffff;
    const base = this.seq << 8;
    Atomics.store(c, NEXT, base | CLOSED);
    Atomics.store(c, SET, id);
    Atomics.store(c, COLOR, color);
    Atomics.store(c, FROM, from);
    Atomics.store(c, TO, to);
    Atomics.store(c, BLOCK, block);
    Atomics.store(c, GEN, gen);
    Atomics.store(c, DONE, 0);
    Atomics.store(c, TOTAL, total);
    Atomics.store(c, NEXT, base);
    Atomics.notify(c, NEXT);
    let thrown: unknown = null;
    if (lead !== null)
      try {
        lead();
      } catch (e) {
        thrown = e;
      }
    for (;;) {
      const w = Atomics.load(c, NEXT);
      const k = w & 255;
      if (k >= total) break;
      if (Atomics.compareExchange(c, NEXT, w, w + 1) !== w) continue;
      const a = from + k * block;
      try {
        own(a, Math.min(to, a + block), k);
      } catch (e) {
        thrown ??= e;
      }
      Atomics.add(c, DONE, 1);
    }
    let spins = 0;
    for (;;) {
      const d = Atomics.load(c, DONE);
      if (d >= total) break;
      if (++spins < SPIN || !canWait) continue;
      this.spins.endSleeps++;
      Atomics.wait(c, DONE, d, 50);
    }
    this.spins.endLoads += spins;
    let failed: string | null = null;
    if (Atomics.load(c, ERR) !== 0) {
      failed = new TextDecoder().decode(this.error.slice(0, Atomics.load(c, ERRLEN)));
      Atomics.store(c, ERR, 0);
    }
    if (thrown !== null) throw thrown;
    if (failed !== null) throw new Error(failed);
  }
}

const pools = new Map<number, WorkerPool>();

/** The pool of this thread count, shared by the worlds that use it (acquired: release it). */
export function acquirePool(threads: number): WorkerPool {
  let p = pools.get(threads);
  if (!p || p.disposed) {
    p = new WorkerPool(threads);
    pools.set(threads, p);
  }
  p.acquire();
  return p;
}
