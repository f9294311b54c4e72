/**
 * What runs between a threaded world's frames, and what it does to the
 * frame (issue 20, docs/solver.md "Session 20 (cl27)"): the bench times
 * pbdkit's 1- and 2-thread worlds interleaved frame by frame with the peers
 * (bench/harness.ts runCase), so between two frames of the 2-thread world
 * the pool's worker sits idle for 15–25 ms while the 1-thread world, Jolt,
 * ammo.js and the plain script run on the calling thread. This probe steps
 * one world per mode, each timed frame preceded by the mode's gap:
 *
 *   hot        nothing (the frame before was another mode's 2-thread frame: the worker is warm)
 *   idle:N     the calling thread sleeps N ms (Atomics.wait: both cores idle)
 *   spin:N     the calling thread computes in registers for N ms (the worker's core idle)
 *   mem:N      the calling thread streams through 64 MB for N ms (the caches' contents replaced)
 *   tlb:N      the calling thread touches a byte of each 4 KB page of 256 MB for N ms (the TLBs replaced)
 *   one        a frame of a 1-thread pbdkit world of the case
 *   jolt, ammo, plain   a frame of that peer
 *   bench      one, jolt, ammo and plain (the bench's gap)
 *
 * with a prefix `1:` for a 1-thread world timed after the same gap (default
 * 2 threads). Modes are stepped in rotating order, every world the same
 * frames (the bench's: `--warm` then `--frames`), `--reps` times with fresh
 * worlds. Per mode: the median wall of its frames, the CPU of the process
 * during them, and the share of the blocks the pool's workers ran.
 *
 *   npx tsc -p tsconfig.build.json && node lib/bench/gap-probe.js [--case cloth-201-fall-f32]
 *     [--modes hot,idle:20,spin:20,mem:20,one,jolt,ammo,plain,bench,1:hot,1:bench]
 *     [--frames 20] [--warm 5] [--reps 3] [--lib lib]
 *   node lib/bench/gap-probe.js --wake [--gaps 0.05,1,5,20,60] [--wake-rounds 40]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const arg = (name: string, fallback: string): string => {
  const k = process.argv.indexOf(`--${name}`);
  return k >= 0 ? process.argv[k + 1] : fallback;
};
const caseName = arg('case', 'cloth-201-fall-f32');
const modes = arg('modes', 'hot,idle:20,spin:20,mem:20,one,jolt,ammo,plain,bench,1:hot,1:bench').split(',');
const frames = Number(arg('frames', '20'));
const warm = Number(arg('warm', '5'));
const reps = Number(arg('reps', '3'));
const lib = resolve(arg('lib', 'lib'));
if (process.argv.includes('--wake')) {
  await wakeReference();
  process.exit(0);
}

/**
 * A reference with no pbdkit in it (`--wake`): how long a worker thread takes to wake after it
 * waited idle for N ms while this thread computed in registers, by a message through its event
 * loop (as the pool's 'enter' before session 20) and by Atomics.notify on a word it sleeps on
 * (parked workers, WorkerPool.park): µs from the wake-up's start to the worker's first clock
 * reading, on the clock the threads share (timeOrigin + now). An idle vCPU of this VM halts at
 * once (guest_halt_poll_ns=0 on the kernel's command line), so a long gap is a halted vCPU.
 */
async function wakeReference(): Promise<void> {
  const { Worker } = await import('node:worker_threads');
  const sab = new SharedArrayBuffer(64);
  const I = new Int32Array(sab),
    T = new Float64Array(sab, 32, 2);
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const I = new Int32Array(workerData), T = new Float64Array(workerData, 32, 2);
    const stamp = () => { T[0] = performance.timeOrigin + performance.now(); Atomics.store(I, 1, 1); };
    parentPort.on('message', (m) => {
      if (m === 'msg') return stamp();
      for (;;) {
        Atomics.wait(I, 0, 0);
        const v = Atomics.exchange(I, 0, 0);
        if (v === 3) return;
        stamp();
      }
    });`;
  const w = new Worker(code, { eval: true, workerData: sab });
  await new Promise((r) => setTimeout(r, 200));
  const n = Number(arg('wake-rounds', '40'));
  const q = (a: number[], p: number) =>
    [...a].sort((x, y) => x - y)[Math.floor(p * (a.length - 1))].toFixed(1);
  let acc = 1;
  const compute = (ms: number) => {
    const t0 = performance.now();
    while (performance.now() - t0 < ms) for (let i = 0; i < 1000; i++) acc = acc * 1.0000001 + 1e-9;
  };
  const wait = () => {
    while (Atomics.load(I, 1) === 0);
  };
  console.log(
    `worker wake-up after an idle gap (this thread computing), ${n} rounds each; load ${loadavg()[0].toFixed(1)}`,
  );
  for (const gap of arg('gaps', '0.05,1,5,20,60').split(',').map(Number)) {
    const msg: number[] = [],
      futex: number[] = [];
    for (let r = 0; r < n; r++) {
      compute(gap);
      Atomics.store(I, 1, 0);
      const t0 = performance.timeOrigin + performance.now();
      w.postMessage('msg');
      wait();
      msg.push(1000 * (T[0] - t0));
    }
    w.postMessage('futex');
    await new Promise((r) => setTimeout(r, 20));
    for (let r = 0; r < n; r++) {
      compute(gap);
      Atomics.store(I, 1, 0);
      const t0 = performance.timeOrigin + performance.now();
      Atomics.store(I, 0, 2);
      Atomics.notify(I, 0);
      wait();
      futex.push(1000 * (T[0] - t0));
    }
    Atomics.store(I, 0, 3);
    Atomics.notify(I, 0);
    await new Promise((r) => setTimeout(r, 20));
    console.log(
      `  gap ${gap} ms: message µs median ${q(msg, 0.5)} (p10 ${q(msg, 0.1)}, p90 ${q(msg, 0.9)}); Atomics.notify µs median ${q(futex, 0.5)} (p10 ${q(futex, 0.1)}, p90 ${q(futex, 0.9)})`,
    );
  }
  console.log(`load ${loadavg()[0].toFixed(1)} (${acc > 0 ? 'computed' : ''})`);
  await w.terminate();
}

// biome-ignore lint/suspicious/noExplicitAny: the built library's modules, loaded by path
const load = async (p: string): Promise<any> => import(pathToFileURL(resolve(lib, p)).href);
const fallMod = await load('bench/cases/cloth-fall.js');
const sceneMod = await load('bench/peers/cloth-scene.js');
const clothMod = await load('bench/cases/cloth.js');
const orderMod = await load('src/wasm/element-order.js');
const threadsMod = await load('src/wasm/element-threads.js');
// per-thread block figures (ElementThreads.timing: colour and copy blocks' ms and items, waits; session 17)
threadsMod.ElementThreads.timing = true;
const S: Float64Array = orderMod.fusedStats();
const SL: number = orderMod.STAT_SLOTS;
const poolMod = await load('src/parallel/pool.js');
/**
 * Per job of the pool with timed blocks (the element sweeps), summed: jobs, how late thread 0 and
 * thread 1 started their first block after the job was published, how long before the job's end
 * each ended its last, and the jobs in which thread 1 (the worker) ran no block (ms).
 */
const J = new Float64Array(6);
const TF: number = orderMod.ST_T_FIRST,
  TL: number = orderMod.ST_T_LAST;
{
  const P = poolMod.WorkerPool.prototype;
  const run = P.run;
  P.run = function (this: unknown, ...a: unknown[]) {
    S[TF] = 0;
    S[SL + TF] = 0;
    const t0 = performance.timeOrigin + performance.now();
    run.apply(this, a);
    const t1 = performance.timeOrigin + performance.now();
    if (S[TF] === 0) return;
    J[0]++;
    J[1] += S[TF] - t0;
    J[3] += t1 - S[TL];
    if (S[SL + TF] === 0) {
      J[2] += t1 - t0;
      J[4] += t1 - t0;
      J[5]++;
    } else {
      J[2] += S[SL + TF] - t0;
      J[4] += t1 - S[SL + TL];
    }
  };
}
const fall = caseName.includes('fall');
// biome-ignore lint/suspicious/noExplicitAny: a bench case of the built library
const bc: any = (fall ? fallMod : clothMod).cases.find((c: { name: string }) => c.name === caseName);
if (!bc) throw new Error(`no case ${caseName}`);

interface Stepper {
  step(): void;
  // biome-ignore lint/suspicious/noExplicitAny: a world of the built library
  world?: any;
  dispose?(): void;
}

/** A fresh world of the case on `threads` threads (the bench case's own set-up, never its shared 1-thread scene). */
function world(threads: number): Stepper {
  if (!fall) return bc.setupThreads(threads);
  const n = 201;
  const f32 = caseName.endsWith('f32');
  const distance = caseName.includes('distbend');
  const s = sceneMod.fallingCloth({
    n,
    substeps: 5,
    // the distance bending's compliance matched to ammo.js's links (bench/cases/cloth-fall.ts matchedBendCompliance)
    bendCompliance: distance
      ? (sceneMod.FRAME_DT / 5) ** 2 *
        (1 / 0.1 - 1) *
        ((2 * (n - 1) * (n - 1)) / (sceneMod.CLOTH_DENSITY * sceneMod.CLOTH_SIZE ** 2))
      : 0.01,
    bendModel: distance ? 'distance' : 'dihedral',
    precision: f32 ? 'f32' : 'f64',
    threads,
  });
  return { step: () => s.world.step(), world: s.world, dispose: () => s.world.dispose?.() };
}

const sink = new Float64Array(1);
/** Computes in registers for ms milliseconds (nothing in memory: the calling thread's core busy, its caches kept). */
function spin(ms: number): void {
  const t0 = performance.now();
  let a = 1.0001,
    b = 0.9999,
    c = 1.0;
  while (performance.now() - t0 < ms)
    for (let i = 0; i < 1000; i++) c = c * a + b * 1e-9 - (a = c * 1e-12 + 1.0001) * 1e-12;
  sink[0] = c;
}
const big = new Float64Array(8 << 20);
/** Streams through 64 MB, reading and writing, for ms milliseconds (replaces the caches' contents). */
function stream(ms: number): void {
  const t0 = performance.now();
  let s = 0;
  do {
    for (let i = 0; i < big.length; i += 8) {
      s += big[i];
      big[i] = s * 1e-30;
    }
  } while (performance.now() - t0 < ms);
  sink[0] = s;
}
const pages = new Uint8Array(256 << 20);
/** Touches one byte of each 4 KB page of 256 MB, again until ms have passed (the TLBs' entries replaced, 4 MB of cache lines). */
function tlb(ms: number): void {
  const t0 = performance.now();
  let s = 0;
  do for (let i = 0; i < pages.length; i += 4096) s += pages[i]++;
  while (performance.now() - t0 < ms);
  sink[0] = s;
}
const nap = new Int32Array(new SharedArrayBuffer(4));
/** Per thread of this process: [run ns, run-queue wait ns] (Linux schedstat; empty elsewhere). */
function sched(): Map<string, number[]> {
  const m = new Map<string, number[]>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const f = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ');
      m.set(tid, [Number(f[0]), Number(f[1])]);
    }
  } catch {
    // not Linux
  }
  return m;
}
const self = String(process.pid);
/**
 * Per-step figures (ms unless said): thread 0's and 1's colour-block ms and groups, copy ms and
 * particles, dependency waits; thread 0's groups run while no other thread was in a block; the
 * calling thread's CPU and run-queue wait, the busiest other thread's (the worker's) CPU and wait.
 */
const FIG = [
  'c0',
  'g0',
  'k0',
  'p0',
  'w0',
  'c1',
  'g1',
  'k1',
  'p1',
  'w1',
  'alone0',
  'cpu0',
  'q0',
  'cpuW',
  'qW',
  'cpuRest',
  'jobs',
  'late0',
  'late1',
  'tail0',
  'tail1',
  'absent1',
] as const;
function figures(): number[] {
  const out: number[] = [];
  for (const t of [0, 1]) {
    const a = SL * t;
    out.push(S[a + orderMod.ST_WORK], S[a + orderMod.ST_GROUPS], S[a + orderMod.ST_COPY]);
    out.push(S[a + orderMod.ST_PARTICLES], S[a + orderMod.ST_WAIT]);
  }
  let alone = 0;
  const B = orderMod.ST_BINS;
  for (const kind of [3, 4]) for (let b = 0; b < B; b++) alone += S[orderMod.ST_HIST + kind * B + b];
  out.push(alone);
  return out;
}
function jobsDelta(a: Float64Array): number[] {
  return [...J].map((v, i) => v - a[i]);
}
function delta(a: number[], b: number[], s0: Map<string, number[]>, s1: Map<string, number[]>): number[] {
  const d = b.map((v, i) => v - a[i]);
  const me = s1.get(self) ?? [0, 0],
    me0 = s0.get(self) ?? [0, 0];
  d.push((me[0] - me0[0]) / 1e6, (me[1] - me0[1]) / 1e6);
  let best = [0, 0],
    all = 0;
  for (const [tid, v] of s1) {
    if (tid === self) continue;
    const v0 = s0.get(tid) ?? [0, 0];
    all += v[0] - v0[0];
    if (v[0] - v0[0] > best[0]) best = [v[0] - v0[0], v[1] - v0[1]];
  }
  d.push(best[0] / 1e6, best[1] / 1e6, (all - best[0]) / 1e6);
  return d;
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1];
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Mode {
  name: string;
  threads: number;
  gap: string;
  w: Stepper;
  wall: number[];
  cpu: number[];
  worker: number[];
  fig: number[][];
}

/** Per thread (0, 1), the blocks' rate histograms (element-order.ts: first set, second set, copies; both and alone), summed. */
const HN = 6 * 256;
function hist(): Float64Array {
  const h = new Float64Array(2 * HN);
  for (const t of [0, 1])
    h.set(S.subarray(SL * t + orderMod.ST_HIST, SL * t + orderMod.ST_HIST + HN), t * HN);
  return h;
}
/** The calling thread's garbage collections (start, duration ms), and each timed frame's interval and mode. */
const gcs: { start: number; ms: number; kind: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    gcs.push({
      start: e.startTime,
      ms: e.duration,
      kind: (e as { detail?: { kind?: number } }).detail?.kind ?? 0,
    });
}).observe({ entryTypes: ['gc'] });
const spans: { mode: string; t0: number; t1: number }[] = [];
const out = new Map<
  string,
  { wall: number[]; cpu: number[]; worker: number[]; fig: number[][]; hist: Float64Array }
>();
const load0 = loadavg()[0];
for (let r = 0; r < reps; r++) {
  const peers: Map<string, Stepper> = new Map();
  for (const p of bc.peers ?? []) peers.set(p.name, await p.setup());
  const filler = world(1);
  const ms: Mode[] = modes.map((m) => {
    const threads = m.startsWith('1:') ? 1 : 2;
    return {
      name: m,
      threads,
      gap: m.replace(/^1:/, ''),
      w: world(threads),
      wall: [],
      cpu: [],
      worker: [],
      fig: [],
    };
  });
  for (const m of ms) await m.w.world?.threadsReady?.();
  const gap = (g: string): void => {
    const [kind, arg] = g.split(':');
    const n = Number(arg);
    if (kind === 'hot') return;
    if (kind === 'idle') Atomics.wait(nap, 0, 0, n);
    else if (kind === 'spin') spin(n);
    else if (kind === 'mem') stream(n);
    else if (kind === 'tlb') tlb(n);
    else if (kind === 'one') filler.step();
    else if (kind === 'bench') {
      filler.step();
      for (const p of peers.values()) p.step();
    } else {
      const p = peers.get(kind);
      if (!p) throw new Error(`no peer ${kind}`);
      p.step();
    }
  };
  for (let f = 0; f < warm + frames; f++) {
    for (let j = 0; j < ms.length; j++) {
      const m = ms[(j + f) % ms.length];
      gap(m.gap);
      const pool = m.w.world?.scheduler?.pool;
      const b0 = pool?.workerBlocks ?? 0;
      const c0 = cpuMs();
      const f0 = figures(),
        s0 = sched(),
        j0 = J.slice(),
        h0 = hist();
      const t0 = performance.now();
      m.w.step();
      const dt = performance.now() - t0;
      if (f >= warm) spans.push({ mode: m.name, t0, t1: t0 + dt });
      const d = delta(f0, figures(), s0, sched());
      d.push(...jobsDelta(j0));
      if (f < warm) continue;
      const h1 = hist();
      const o = out.get(m.name) ?? { wall: [], cpu: [], worker: [], fig: [], hist: new Float64Array(2 * HN) };
      out.set(m.name, o);
      for (let i = 0; i < h1.length; i++) o.hist[i] += h1[i] - h0[i];
      m.fig.push(d);
      m.wall.push(dt);
      m.cpu.push(cpuMs() - c0);
      m.worker.push((pool?.workerBlocks ?? 0) - b0);
    }
  }
  for (const m of ms) {
    const o = out.get(m.name)!;
    o.fig.push(...m.fig);
    o.wall.push(median(m.wall));
    o.cpu.push(median(m.cpu));
    o.worker.push(median(m.worker));
    out.set(m.name, o);
    m.w.dispose?.();
  }
  filler.dispose?.();
  for (const p of peers.values()) p.dispose?.();
}
const f2 = (v: number): string => v.toFixed(2);
const mean = (a: number[]): number => a.reduce((x, y) => x + y, 0) / Math.max(1, a.length);
console.log(
  `${caseName}: frames ${warm}–${warm + frames - 1}, ${reps} reps with fresh worlds; load ${f2(load0)} → ${f2(loadavg()[0])}`,
);
console.log('mode          wall ms (median of reps; each rep)        CPU ms   worker blocks');
for (const [name, o] of out)
  console.log(
    `${name.padEnd(12)}  ${f2(median(o.wall)).padStart(6)}  (${o.wall.map(f2).join(' ')})`.padEnd(52) +
      `${f2(median(o.cpu)).padStart(6)}   ${median(o.worker)}`,
  );
console.log(
  '\nper step, mean over the frames (ms): colour blocks thread 0 / 1 (ns a group), copies 0 / 1 (ns a particle), dependency waits 0 / 1,',
);
console.log(
  "thread 0's groups run alone (share), CPU calling thread (run-queue wait), CPU worker (wait), CPU of the process's other threads (V8's helpers); per step over the sweeps' jobs:",
);
console.log(
  'how late thread 0 / 1 ran its first block after the job was published, how long before the end it ran its last, jobs without the worker',
);
for (const [name, o] of out) {
  const F = (k: (typeof FIG)[number]): number => mean(o.fig.map((r) => r[FIG.indexOf(k)]));
  const ns = (ms: number, n: number): string => (n > 0 ? ((1e6 * ms) / n).toFixed(1) : '-');
  console.log(
    `${name.padEnd(12)}  col ${f2(F('c0'))} / ${f2(F('c1'))} (${ns(F('c0'), F('g0'))} / ${ns(F('c1'), F('g1'))})` +
      `  copy ${f2(F('k0'))} / ${f2(F('k1'))} (${ns(F('k0'), F('p0'))} / ${ns(F('k1'), F('p1'))})` +
      `  wait ${f2(F('w0'))} / ${f2(F('w1'))}  alone ${(F('alone0') / Math.max(1, F('g0'))).toFixed(2)}` +
      `  cpu ${f2(F('cpu0'))} (${f2(F('q0'))}) / ${f2(F('cpuW'))} (${f2(F('qW'))}) rest ${f2(F('cpuRest'))}` +
      `  | ${f2(F('jobs'))} jobs: late ${f2(F('late0'))} / ${f2(F('late1'))}, tail ${f2(F('tail0'))} / ${f2(F('tail1'))}, worker absent ${f2(F('absent1'))}`,
  );
}
// the observer's entries arrive asynchronously
await new Promise((r) => setTimeout(r, 50));
console.log(
  `\ngarbage collections of the calling thread (${gcs.length} in the run) inside the timed frames: per mode, frames with one, their ms a frame`,
);
const gcBy = new Map<string, { frames: number; hit: number; ms: number }>();
for (const sp of spans) {
  const e = gcBy.get(sp.mode) ?? { frames: 0, hit: 0, ms: 0 };
  e.frames++;
  let ms = 0;
  for (const g of gcs) ms += Math.max(0, Math.min(sp.t1, g.start + g.ms) - Math.max(sp.t0, g.start));
  if (ms > 0) e.hit++;
  e.ms += ms;
  gcBy.set(sp.mode, e);
}
for (const [k, e] of gcBy)
  console.log(`${k.padEnd(12)}  ${e.hit} of ${e.frames} frames, ${f2(e.ms / e.frames)} ms a frame`);
/** The q-quantile of a rate histogram of thread t, kind k (0 first set, 1 second set, 2 copies), both and alone together. */
function quantile(h: Float64Array, t: number, k: number, q: number): string {
  const bin = k < 2 ? orderMod.ST_GROUP_BIN : orderMod.ST_COPY_BIN;
  let n = 0;
  for (const a of [k, 3 + k]) for (let i = 0; i < 256; i++) n += h[t * HN + a * 256 + i];
  if (n === 0) return '-';
  let c = 0;
  for (let i = 0; i < 256; i++) {
    c += h[t * HN + k * 256 + i] + h[t * HN + (3 + k) * 256 + i];
    if (c >= q * n) return ((i + 0.5) * bin).toFixed(2);
  }
  return '-';
}
console.log(
  "\nthe blocks' rates, quartiles by items (ns a group, first set / second set; ns a particle copied), thread 0 | thread 1",
);
for (const [name, o] of out) {
  if (name.startsWith('1:')) continue;
  const r = (t: number, k: number) => [0.25, 0.5, 0.75].map((q) => quantile(o.hist, t, k, q)).join('/');
  console.log(
    `${name.padEnd(12)}  ${r(0, 0)}  ${r(0, 1)}  ${r(0, 2)}  |  ${r(1, 0)}  ${r(1, 1)}  ${r(1, 2)}`,
  );
}
process.exit(0);
