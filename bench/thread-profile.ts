/**
 * Where a threaded cloth step's time goes (issue 20, docs/solver.md "Threads",
 * session 16): the jobs per step by task, the calling thread's time inside
 * each job split into its own blocks (work and dependency waits: the `own`
 * runner; the dependency waits inside a part timed apart since part20) and the wait at the job's end for the other threads' last blocks,
 * and the stages outside the jobs (the serial parts). One or more builds'
 * lib/ folders are stepped alternately in one process, so their figures are
 * taken in the same minutes.
 *
 * Since session 17 (thr22), with --timing, each fused sweep's blocks time
 * themselves on every thread (ElementThreads.timing: work in colour blocks
 * and copies, per group and per particle; dependency waits and their spun
 * loads), and the pool's spins are counted (its end-of-job spin, the
 * workers' spin for the next job); with --solo each build is also stepped
 * with the calling thread running every block itself (WorkerPool.solo), so
 * that the same blocks are timed on one thread and on two in one process.
 * --copy times a memory-bound reference instead: a plain copy of arrays the
 * size of the step's, on one thread and on two at once.
 *
 *   npx tsx bench/thread-profile.ts [--lib lib,/tmp/b/lib] [--case fall|fall-f32|fall-distbend-f32|demo|self] [--threads 2]
 *                                   [--steps 40] [--rounds 4] [--warmup 10] [--timing] [--solo] [--copy]
 *                                   [--worker-spin 2000] [--compute]
 *
 * Since session 18 (thr24): per step, each stage's and each set's projection's time less the jobs
 * inside it (the calling thread's serial time by what it is) and its time outside jobs before,
 * between and after them; `--case fall-distbend-f32` (the bench's cloth-201-fall-distbend-f32);
 * `--compute`, a compute-bound reference: whether this thread computes as fast while another
 * of ours computes (the two cores' execution units not shared).
 *
 * Since session 20 (par27, docs/collision.md "Fifteenth round"): `--case self`, the bench's
 * self-collision-6000 (a step is a frame of 10 substeps; 30 frames of warm-up unless --warmup),
 * with the world's own timers (world.timings: the broad phase's rebuilds and their set-up, the
 * narrow phase, the fail-safe) per frame besides the jobs, gaps and serial stages.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const arg = (name: string, fallback: string): string => {
  const k = process.argv.indexOf(`--${name}`);
  return k >= 0 ? process.argv[k + 1] : fallback;
};
const libs = arg('lib', 'lib').split(',');
const which = arg('case', 'fall');
const threads = Number(arg('threads', '2'));
const steps = Number(arg('steps', '40'));
const rounds = Number(arg('rounds', '4'));
const f = (v: number) => v.toFixed(2);
const flag = (name: string): boolean => process.argv.includes(`--${name}`);
const timing = flag('timing');

interface Probe {
  lib: string;
  // biome-ignore lint/suspicious/noExplicitAny: the built library's module, loaded by path
  world: any;
  jobs: Map<string, { n: number; total: number; own: number }>;
  stages: Map<string, number>;
  wall: number;
  cpu: number;
  steps: number;
  /** The calling thread's dependency waits inside fused sweeps run in parts (ms, count; builds since part20). */
  waits: { ms: number; n: number; ahead?: number } | null;
  waitMs: number;
  waitN: number;
  /** Blocks the calling thread ran ahead instead of waiting (FusedWaits.ahead, session 19). */
  aheadN: number;
  /** The world's pool (worlds of one build may share one): it reports to the probe being stepped. */
  pool: PoolLike | null;
  /** Stepped with the calling thread running every block (WorkerPool.solo). */
  solo: boolean;
  /** Stepped with this spin budget for the workers' wait for a job (WorkerPool.workerSpin; 0: the default). */
  workerSpin?: number;
  // biome-ignore lint/suspicious/noExplicitAny: the built library's classes, loaded by path
  classes: { Pool: any; Threads: any; stats: Float64Array | null };
  /** Sums over this probe's rounds: the per-thread sweep figures (fusedStats) and the spins. */
  st: Float64Array;
  spin: number[];
  /** CPU ms by thread (Linux): the calling thread, the busiest other (the pool's worker at 2 threads), the rest (V8's helpers, other workers). */
  tcpu: number[];
  /** Since session 18 (thr24): per stage and per projected set kind, the calling thread's time and the jobs' time within it (ms; the difference is serial). */
  serial: Map<string, { n: number; total: number; jobs: number }>;
  /** The calling thread's time outside jobs in a step (ms): before its first job, between its jobs (n gaps), after its last. */
  gaps: { head: number; between: number; n: number; tail: number };
  /**
   * Since session 20 (cl27), builds whose timed blocks stamp their first start and last end
   * (element-order.ts ST_T_FIRST): over the jobs with timed blocks, ms summed: jobs, how late
   * thread 0 and thread 1 ran their first block after the job was published, how long before the
   * job's end each ran its last, and the jobs thread 1 ran no block of (then its late and tail are the job's).
   */
  edges: Float64Array;
}

interface PoolLike {
  probe?: Probe;
  spins?: { endLoads: number; endSleeps: number };
  workerSpins?: { loads: number; sleeps: number };
}

/** CPU ticks (user + system, /proc/self/task/<tid>/stat) per thread of this process now (Linux; empty elsewhere). */
function threadTicks(): Map<string, number> {
  const m = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const st = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      m.set(tid, Number(f[11]) + Number(f[12]));
    }
  } catch {
    // not Linux
  }
  return m;
}

/** The spin counters now: end-of-job loads and sleeps (calling thread), the workers' loads and sleeps. */
function spinsNow(pool: PoolLike | null): number[] {
  const e = pool?.spins,
    w = pool?.workerSpins;
  return [e?.endLoads ?? 0, e?.endSleeps ?? 0, w?.loads ?? 0, w?.sleeps ?? 0];
}

/** The job being run (the task's kind, or 'colours' for a set's colour ranges) and its calling thread's own-block time. */
let current = '';
/** The probe being stepped (a solo probe shares its world's stage timers). */
let stepping: Probe | null = null;
let ownTime = 0;
/** The jobs' time (ms) since the probe started, for the serial time of a stage or a set's projection: its time less the jobs' within it. */
let jobClock = 0;
/** When the step being timed began and when its last job ended (−1: no job yet in this step). */
let stepStart = 0;
let lastEnd = -1;
function serialAdd(p: Probe, key: string, total: number, jobs: number): void {
  const e = p.serial.get(key) ?? { n: 0, total: 0, jobs: 0 };
  e.n++;
  e.total += total;
  e.jobs += jobs;
  p.serial.set(key, e);
}

async function build(lib: string): Promise<Probe> {
  const root = resolve(lib, 'src');
  const m = await import(pathToFileURL(`${root}/index.js`).href);
  const pool = await import(pathToFileURL(`${root}/parallel/pool.js`).href);
  const sched = await import(pathToFileURL(`${root}/parallel/scheduler.js`).href);
  const order = await import(pathToFileURL(`${root}/wasm/element-order.js`).href);
  const probe: Probe = {
    lib,
    world: null,
    jobs: new Map(),
    stages: new Map(),
    wall: 0,
    cpu: 0,
    steps: 0,
    waits: order.FusedWaits ?? null,
    waitMs: 0,
    waitN: 0,
    aheadN: 0,
    pool: null,
    solo: false,
    classes: { Pool: pool.WorkerPool, Threads: null, stats: null },
    st: new Float64Array(0),
    spin: [0, 0, 0, 0],
    tcpu: [0, 0, 0],
    serial: new Map(),
    gaps: { head: 0, between: 0, n: 0, tail: 0 },
    edges: new Float64Array(6),
  };
  const threadsMod = await import(pathToFileURL(`${root}/wasm/element-threads.js`).href);
  probe.classes.Threads = threadsMod.ElementThreads;
  if (timing && order.fusedStats && threadsMod.ElementThreads.timing !== undefined) {
    threadsMod.ElementThreads.timing = true;
    probe.classes.stats = order.fusedStats();
    probe.st = new Float64Array(probe.classes.stats!.length);
  }
  const tag = Symbol.for(`thread-profile:${root}`);
  const P = pool.WorkerPool.prototype;
  const S = sched.ThreadedScheduler.prototype;
  if (!P[tag]) {
    P[tag] = true;
    const run = P.run;
    P.run = function (this: unknown, ...a: unknown[]) {
      const own = a[6] as (from: number, to: number, block: number) => void;
      a[6] = (from: number, to: number, block: number) => {
        const t = performance.now();
        own(from, to, block);
        ownTime += performance.now() - t;
      };
      const t0 = performance.now();
      const g = stepping?.gaps;
      if (g) {
        if (lastEnd < 0) g.head += t0 - stepStart;
        else {
          g.between += t0 - lastEnd;
          g.n++;
        }
      }
      ownTime = 0;
      const S = probe.classes.stats,
        TF = order.ST_T_FIRST as number | undefined,
        SL = order.STAT_SLOTS as number;
      if (S && TF !== undefined) {
        S[TF] = 0;
        S[SL + TF] = 0;
      }
      run.apply(this, a);
      lastEnd = performance.now();
      const E = (this as { probe?: Probe }).probe?.edges;
      if (S && TF !== undefined && E && S[TF] !== 0) {
        // the job's edges on the shared clock (timeOrigin + now): thread 0's and thread 1's first and last blocks
        const o = performance.timeOrigin;
        E[0]++;
        E[1] += S[TF] - (o + t0);
        E[3] += o + lastEnd - S[TF + 1];
        const w = S[SL + TF] !== 0;
        E[2] += w ? S[SL + TF] - (o + t0) : lastEnd - t0;
        E[4] += w ? o + lastEnd - S[SL + TF + 1] : lastEnd - t0;
        if (!w) E[5]++;
      }
      const total = lastEnd - t0;
      jobClock += total;
      const key = current || 'colours';
      const p = (this as { probe?: Probe }).probe;
      if (p) {
        const e = p.jobs.get(key) ?? { n: 0, total: 0, own: 0 };
        e.n++;
        e.total += total;
        e.own += ownTime;
        p.jobs.set(key, e);
      }
    };
    // each set's projection through the scheduler: its time and its jobs' (the rest is serial: a set
    // projected on the calling thread, the deferral of a joined sweep, the calls around a job)
    const project = S.project;
    S.project = function (this: unknown, set: { kind: string }, ctx: unknown) {
      const t = performance.now(),
        j = jobClock;
      try {
        return project.call(this, set, ctx);
      } finally {
        if (stepping) serialAdd(stepping, `project:${set.kind}`, performance.now() - t, jobClock - j);
      }
    };
    const runTask = S.runTask;
    S.runTask = function (this: unknown, task: { kind: string }, n: number, blocks: number, lead?: unknown) {
      current = task.kind;
      try {
        return runTask.call(this, task, n, blocks, lead);
      } finally {
        current = '';
      }
    };
  }
  const n = 201;
  let world: { step(): void; pipeline: { stages: { name: string; run: (...a: unknown[]) => void }[] } };
  if (which === 'demo') {
    world = new m.World({
      threads,
      dt: 0.005,
      substeps: 5,
      iterations: 1,
      solver: 'pbd',
      sweep: 'forward',
      gravity: [0, -9.81, 0],
    });
    const cloth = new m.Cloth(world, {
      mesh: m.gridMesh({ width: 10, height: 10, cols: n, rows: n, plane: 'xy', diagonals: 'uniform' }),
      density: 1,
      stretch: { stiffness: 1 },
      bend: { stiffness: 0.1 },
    });
    cloth.pin(0);
    cloth.pin(n - 1);
  } else if (which === 'fall-distbend-f32') {
    // bench/cases/cloth-fall.ts's cloth-201-fall-distbend-f32 (fallingCloth with the distance bending
    // matched to ammo.js's links: α = h² (1/k − 1) w, k = 0.1, w = 2 (n − 1)² / (ρ L²))
    const peers = await import(pathToFileURL(resolve(lib, 'bench/peers/cloth-scene.js')).href);
    world = peers.fallingCloth({
      n,
      substeps: 5,
      bendModel: 'distance',
      bendCompliance: (1 / 300) ** 2 * (1 / 0.1 - 1) * ((2 * (n - 1) * (n - 1)) / (0.2 * 2 * 2)),
      precision: 'f32',
      threads,
    }).world;
  } else if (which === 'self') {
    // bench/cases/collision.ts's self-collision-6000 (session 20, par27): the 6,000-vertex folding
    // sheet with self collision, 10 substeps a frame (a "step" here is a frame)
    const scenes = await import(pathToFileURL(resolve(lib, 'bench/scenes.js')).href);
    const w = new m.World({ dt: 1 / 60, substeps: 10, sweep: 'symmetric', damping: 0.2, threads });
    const mesh = scenes.foldingSheet([1.2, 2], [60, 100], 1.05, [0.04, 4]);
    const cloth = new m.Cloth(w, { mesh, density: 0.2, bend: { compliance: 0.5 } });
    w.addCollider(new m.PlaneCollider({ friction: 0.6 }));
    m.enableCollisions(w, { thickness: 0.006, friction: 0.4 }).add(cloth);
    world = w;
  } else {
    world = new m.World({
      dt: 1 / 60,
      substeps: 5,
      iterations: 1,
      solver: 'xpbd',
      sweep: 'forward',
      gravity: [0, -9.81, 0],
      precision: which === 'fall-f32' ? 'f32' : 'f64',
      threads,
    });
    const cloth = new m.Cloth(world, {
      mesh: m.gridMesh({ width: 2, height: 2, cols: n, rows: n, plane: 'xz' }),
      density: 0.2,
      stretch: { compliance: 0 },
      bend: { model: 'dihedral', compliance: 0.01 },
    });
    cloth.pin(0);
    cloth.pin(n - 1);
  }
  await (world as unknown as { threadsReady(): Promise<void> }).threadsReady();
  // this world's pool reports to the probe being stepped
  const sc = (world as unknown as { scheduler: { pool: { probe?: Probe } } }).scheduler;
  probe.pool = sc.pool ?? null;
  for (const st of world.pipeline.stages) {
    const r = st.run;
    st.run = function (this: unknown, ...a: unknown[]) {
      const t = performance.now(),
        j = jobClock;
      r.apply(this, a);
      const to = stepping ?? probe;
      const d = performance.now() - t;
      to.stages.set(st.name, (to.stages.get(st.name) ?? 0) + d);
      serialAdd(to, `stage ${st.name}`, d, jobClock - j);
    };
  }
  probe.world = world;
  return probe;
}

if (flag('copy')) {
  await copyReference();
  process.exit(0);
}
if (flag('compute')) {
  await computeReference();
  process.exit(0);
}
const probes: Probe[] = [];
for (const lib of libs) {
  const p = await build(lib);
  probes.push(p);
  // the same world with the workers' spin budget for a job set, and stepped with the calling
  // thread running every block (where the build has them): probes of their own on p's world
  const variant = (v: Partial<Probe>): Probe => ({
    ...p,
    jobs: new Map(),
    stages: new Map(),
    st: new Float64Array(p.st.length),
    spin: [0, 0, 0, 0],
    tcpu: [0, 0, 0],
    serial: new Map(),
    gaps: { head: 0, between: 0, n: 0, tail: 0 },
    edges: new Float64Array(6),
    ...v,
  });
  const spin = Number(arg('worker-spin', '0'));
  if (spin > 0 && p.classes.Pool.workerSpin !== undefined) probes.push(variant({ workerSpin: spin }));
  if (flag('solo') && p.classes.Pool.solo !== undefined) probes.push(variant({ solo: true }));
}
// warm-up, then reset (self: the bench's 30 frames, so that the cloth has folded)
const warmup = Number(arg('warmup', which === 'self' ? '30' : '10'));
for (let k = 0; k < warmup; k++) for (const p of probes) p.world.step();
/** --case self: each probe's world.timings per step summed (ms by timer: the collision's sub-stages). */
const subStages = new Map<Probe, Map<string, number>>();
for (const p of probes) {
  p.jobs.clear();
  p.stages.clear();
  p.serial.clear();
  p.gaps = { head: 0, between: 0, n: 0, tail: 0 };
  p.edges.fill(0);
}
const load0 = loadavg()[0];
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? probes : [...probes].reverse();
  for (const p of order) {
    if (p.pool) p.pool.probe = p;
    p.classes.Pool.solo = p.solo;
    if (p.classes.Pool.workerSpin !== undefined) p.classes.Pool.workerSpin = p.workerSpin ?? 0;
    stepping = p;
    const s0 = p.classes.stats ? p.classes.stats.slice() : null;
    const sp0 = spinsNow(p.pool);
    const tk0 = threadTicks();
    const c0 = process.cpuUsage();
    const w0 = p.waits ? p.waits.ms : 0,
      n0 = p.waits ? p.waits.n : 0,
      a0 = p.waits?.ahead ?? 0;
    const t0 = performance.now();
    for (let k = 0; k < steps / rounds; k++) {
      lastEnd = -1;
      stepStart = performance.now();
      p.world.step();
      p.gaps.tail += performance.now() - (lastEnd < 0 ? stepStart : lastEnd);
      if (which === 'self') {
        const acc = subStages.get(p) ?? new Map<string, number>();
        for (const [key, v] of Object.entries(p.world.timings.lastStep() as Record<string, number>))
          acc.set(key, (acc.get(key) ?? 0) + v);
        subStages.set(p, acc);
      }
    }
    p.wall += performance.now() - t0;
    if (p.waits) {
      p.waitMs += p.waits.ms - w0;
      p.waitN += p.waits.n - n0;
      p.aheadN += (p.waits.ahead ?? 0) - a0;
    }
    const c = process.cpuUsage(c0);
    p.cpu += (c.user + c.system) / 1000;
    p.steps += steps / rounds;
    p.classes.Pool.solo = false;
    const S = p.classes.stats;
    if (S && s0) for (let i = 0; i < S.length; i++) p.st[i] += S[i] - s0[i];
    const tk = threadTicks();
    const tick = 1000 / 100;
    const others: number[] = [];
    for (const [tid, v] of tk) {
      const d = (v - (tk0.get(tid) ?? 0)) * tick;
      if (tid === String(process.pid)) p.tcpu[0] += d;
      else others.push(d);
    }
    others.sort((a, b) => b - a);
    p.tcpu[1] += others[0] ?? 0;
    for (let i = 1; i < others.length; i++) p.tcpu[2] += others[i];
    const sp = spinsNow(p.pool);
    for (let i = 0; i < 4; i++) p.spin[i] += sp[i] - sp0[i];
  }
}
console.log(
  `${which === 'self' ? 'self-collision-6000 (steps are frames)' : `cloth-201 ${which}`}, ${threads} threads, ${steps} steps per build in ${rounds} rounds; load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)} (${cpus().length} cores)`,
);
for (const p of probes) {
  const s = p.steps;
  console.log(
    `\n== ${p.lib}${p.solo ? ' (solo: the calling thread runs every block)' : ''}${p.workerSpin ? ` (the workers spin ${p.workerSpin} for a job)` : ''}: wall ${f(p.wall / s)} ms/step, CPU (all threads) ${f(p.cpu / s)} ms/step`,
  );
  let jobs = 0,
    inJobs = 0,
    own = 0;
  for (const [k, e] of p.jobs) {
    jobs += e.n;
    inJobs += e.total;
    own += e.own;
    console.log(
      `  job ${k.padEnd(20)} ${(e.n / s).toFixed(1).padStart(5)}/step  ${f(e.total / s)} ms  own blocks ${f(e.own / s)} ms  end wait ${f((e.total - e.own) / s)} ms`,
    );
  }
  console.log(
    `  jobs ${(jobs / s).toFixed(1)}/step, ${f(inJobs / s)} ms in jobs (own ${f(own / s)}, end waits ${f((inJobs - own) / s)})`,
  );
  if (p.waits)
    console.log(
      `  of the own blocks, dependency waits in parted sweeps ${f(p.waitMs / s)} ms (${(p.waitN / s).toFixed(1)}/step; blocks run ahead instead of waiting ${(p.aheadN / s).toFixed(1)}/step)`,
    );
  else console.log('  (this build does not time its dependency waits)');
  for (const [k, t] of p.stages) console.log(`  stage ${k.padEnd(22)} ${f(t / s)} ms`);
  const stageSum = [...p.stages.values()].reduce((a, b) => a + b, 0);
  console.log(
    `  outside jobs (stages − jobs) ${f((stageSum - inJobs) / s)} ms, outside stages ${f((p.wall - stageSum) / s)} ms`,
  );
  const G = p.gaps;
  console.log(
    `  calling thread outside jobs: before the first job ${f(G.head / s)} ms/step, between jobs ${f(G.between / s)} ms/step (${(G.n / s).toFixed(1)} gaps, ${((1000 * G.between) / Math.max(1, G.n)).toFixed(1)} µs each), after the last ${f(G.tail / s)} ms/step`,
  );
  const E = p.edges;
  if (E[0] > 0)
    console.log(
      `  the sweeps' jobs' edges (${(E[0] / s).toFixed(1)} jobs/step): first block after the job's start, thread 0 ${f(E[1] / s)} ms/step, thread 1 ${f(E[2] / s)}; last block before the job's end, thread 0 ${f(E[3] / s)}, thread 1 ${f(E[4] / s)} (jobs without thread 1: ${(E[5] / s).toFixed(1)}/step)`,
    );
  // the calling thread's serial time by what it is: each stage's and each set's projection's time less its jobs'
  for (const [k, e] of p.serial)
    if (e.total - e.jobs >= 0.001 * s)
      console.log(
        `  serial ${k.padEnd(26)} ${f((e.total - e.jobs) / s)} ms/step (${(e.n / s).toFixed(1)} calls/step, ${((1000 * (e.total - e.jobs)) / e.n).toFixed(1)} µs a call)`,
      );
  if (p.st.length > 0) {
    // fusedStats' slots per thread (element-order.ts): work, groups, copy, particles, wait, waits, loads,
    // then the blocks' rates (ns per group, per particle), weighted by items
    const SL = p.st.length / 16;
    const q = (o: number, bin: number, at: number) => {
      let n = 0;
      for (let i = 0; i < 256; i++) n += p.st[o + i];
      let c = 0;
      for (let i = 0; i < 256; i++) {
        c += p.st[o + i];
        if (c >= at * n) return ((i + 0.5) * bin).toFixed(2);
      }
      return '-';
    };
    for (let t = 0; t < threads; t++) {
      const o = SL * t;
      const S = p.st;
      if (S[o + 1] === 0 && S[o + 3] === 0 && S[o + 5] === 0) continue;
      console.log(
        `  thread ${t}: colour blocks ${f(S[o] / s)} ms (${(S[o + 1] / s).toFixed(0)} groups, ${((1e6 * S[o]) / Math.max(1, S[o + 1])).toFixed(2)} ns/group), copies ${f(S[o + 2] / s)} ms (${(S[o + 3] / s).toFixed(0)} particles, ${((1e6 * S[o + 2]) / Math.max(1, S[o + 3])).toFixed(2)} ns each), dependency waits ${f(S[o + 4] / s)} ms (${(S[o + 5] / s).toFixed(1)}, ${(S[o + 6] / s).toFixed(0)} loads)`,
      );
      // the blocks' rates: with another thread in a block all through (both) and the others (alone)
      const H = o + 9;
      const items = (h: number) => {
        let n = 0;
        for (let i = 0; i < 256; i++) n += p.st[h + i];
        return n;
      };
      for (const [name, off] of [
        ['both', 0],
        ['alone', 3 * 256],
      ] as const)
        console.log(
          `    ${name.padEnd(5)} block rates (quartiles, by items; share of items): first set ns/group ${q(H + off, 1, 0.25)} / ${q(H + off, 1, 0.5)} / ${q(H + off, 1, 0.75)} (${(items(H + off) / Math.max(1, items(H) + items(H + 768))).toFixed(2)}), second set ${q(H + off + 256, 1, 0.25)} / ${q(H + off + 256, 1, 0.5)} / ${q(H + off + 256, 1, 0.75)} (${(items(H + off + 256) / Math.max(1, items(H + 256) + items(H + 1024))).toFixed(2)}), ns/particle copied ${q(H + off + 512, 0.25, 0.25)} / ${q(H + off + 512, 0.25, 0.5)} / ${q(H + off + 512, 0.25, 0.75)} (${(items(H + off + 512) / Math.max(1, items(H + 512) + items(H + 1280))).toFixed(2)})`,
        );
    }
    let w = 0,
      g = 0;
    for (let t = 0; t < threads; t++) {
      w += p.st[SL * t];
      g += p.st[SL * t + 1];
    }
    console.log(
      `  all threads: colour blocks ${f(w / s)} ms, ${((1e6 * w) / Math.max(1, g)).toFixed(2)} ns/group`,
    );
  }
  console.log(
    `  CPU by thread (Linux ticks of 10 ms): calling thread ${f(p.tcpu[0] / s)} ms/step, busiest other (the worker) ${f(p.tcpu[1] / s)}, the rest ${f(p.tcpu[2] / s)}`,
  );
  for (const [key, t] of subStages.get(p) ?? [])
    if (t >= 0.05 * s) console.log(`  world.timings ${key.padEnd(34)} ${f(t / s)} ms/step`);
  console.log(
    `  spins per step: end of job ${(p.spin[0] / s).toFixed(0)} loads, ${(p.spin[1] / s).toFixed(1)} sleeps; workers' wait for a job ${(p.spin[2] / s).toFixed(0)} loads, ${(p.spin[3] / s).toFixed(1)} sleeps`,
  );
}
for (const p of probes) p.world.dispose();

/**
 * A memory-bound reference: a plain copy between two shared Float64Arrays of the sizes a
 * cloth-201 step streams (40,401 particles: p, x, v as 3 doubles each, about 1 MB each; and 8 MB
 * and 32 MB, past the L2 and near the L3), this thread copying the first half, timed alone and
 * while a worker copies the second half (three times over): the same bytes per thread and the
 * same footprint, as a sweep's two parts have, so what differs is only the two cores streaming
 * at once. On a loaded machine the two threads rarely run at once, so each
 * round's interval is compared with the worker's (absolute clocks: timeOrigin + now) and only the
 * rounds the worker's copying covers count as "with the other thread"; the minimum of each kind
 * (a round not descheduled) is compared, and the median for the record.
 */
async function copyReference(): Promise<void> {
  const { Worker } = await import('node:worker_threads');
  const sizes = [3 * 40401 * 3, 1 << 20, 4 << 20];
  const sync = new Int32Array(new SharedArrayBuffer(16));
  const span = new Float64Array(new SharedArrayBuffer(16));
  const code = `
    const { workerData } = require('node:worker_threads');
    const { sync, span } = workerData;
    for (;;) {
      Atomics.wait(sync, 0, 0);
      const n = Atomics.load(sync, 1), reps = Atomics.load(sync, 2);
      if (n === 0) break;
      const a = new Float64Array(workerData.bufs[n].a, 8 * (n >> 1)), b = new Float64Array(workerData.bufs[n].b, 8 * (n >> 1));
      span[0] = performance.timeOrigin + performance.now();
      for (let r = 0; r < reps; r++) { b.set(a); a.set(b); }
      span[1] = performance.timeOrigin + performance.now();
      Atomics.store(sync, 0, 0);
      Atomics.store(sync, 3, 1);
      Atomics.notify(sync, 3);
    }`;
  const bufs: Record<number, { a: SharedArrayBuffer; b: SharedArrayBuffer }> = {};
  for (const n of sizes) {
    bufs[n] = { a: new SharedArrayBuffer(8 * n), b: new SharedArrayBuffer(8 * n) };
    new Float64Array(bufs[n].a).fill(1.5);
  }
  const w = new Worker(code, { eval: true, workerData: { sync, span, bufs } });
  await new Promise((r) => setTimeout(r, 200));
  console.log(
    `memory-bound reference: copies (a → b, b → a) on 1 and 2 threads; load ${loadavg()[0].toFixed(1)}`,
  );
  const rounds = Number(arg('copy-rounds', '400'));
  for (const n of sizes) {
    const a = new Float64Array(bufs[n].a, 0, n >> 1),
      b = new Float64Array(bufs[n].b, 0, n >> 1);
    const reps = Math.max(1, Math.round(2e6 / (8 * n)));
    const one: number[] = [],
      two: number[] = [];
    let rest = 0;
    for (let round = 0; round < rounds; round++) {
      const both = round % 2 === 1;
      if (both) {
        Atomics.store(sync, 1, n);
        Atomics.store(sync, 2, 3 * reps);
        Atomics.store(sync, 3, 0);
        Atomics.store(sync, 0, 1);
        Atomics.notify(sync, 0);
        // the worker's copying under way first
        const t = performance.now();
        while (span[0] === 0 && performance.now() - t < 5);
      }
      const s0 = performance.timeOrigin + performance.now();
      for (let r = 0; r < reps; r++) {
        b.set(a);
        a.set(b);
      }
      const s1 = performance.timeOrigin + performance.now();
      if (both) {
        while (Atomics.load(sync, 3) === 0) Atomics.wait(sync, 3, 0, 10);
        if (span[0] !== 0 && span[0] <= s0 && span[1] >= s1) two.push(s1 - s0);
        else rest++;
        span[0] = 0;
        span[1] = 0;
      } else one.push(s1 - s0);
    }
    one.sort((x, y) => x - y);
    two.sort((x, y) => x - y);
    const gb = (ms: number) => ((8 * n * reps * 2) / ms / 1e6).toFixed(1);
    const m1 = one[0],
      m2 = two[0] ?? Number.NaN;
    const d1 = one[one.length >> 1],
      d2 = two[two.length >> 1] ?? Number.NaN;
    console.log(
      `  ${((8 * n) / 1e6).toFixed(2)} MB ×2 arrays, half each, ${reps} copies a round: alone min ${f(m1)} ms (${gb(m1)} GB/s read+write), median ${f(d1)}; with the other thread copying all through (${two.length} of ${two.length + rest} rounds) min ${f(m2)} ms (${gb(m2)} GB/s), median ${f(d2)}; min ×${(m2 / m1).toFixed(3)}`,
    );
  }
  Atomics.store(sync, 1, 0);
  Atomics.store(sync, 0, 1);
  Atomics.notify(sync, 0);
  await w.terminate();
}

/**
 * A compute-bound reference (session 18, thr24): 12 independent multiply-add chains in registers
 * (no memory traffic), this thread's rounds of 1e6 iterations timed alone and while a worker runs
 * the same loop, a round counted as "with the worker" only where the worker's chunk counter shows
 * it ran at least 90 % as many iterations in it (on a loaded machine the two rarely run at once).
 * Equal rates: two of our threads compute at full rate at once; ×1.2–1.5: the two cores share
 * execution units (SMT siblings behind the hypervisor), a cap no schedule can lift.
 */
async function computeReference(): Promise<void> {
  const { Worker } = await import('node:worker_threads');
  const SPIN =
    'function spin(n){let a=1.1,b=1.2,c=1.3,d=1.4,e=1.5,f=1.6,g=1.7,h=1.8,j=1.9,k=2.0,l=2.1,m=2.2;' +
    'for(let i=0;i<n;i++){a=a*0.9999999+1e-7;b=b*0.9999999+1e-7;c=c*0.9999999+1e-7;d=d*0.9999999+1e-7;' +
    'e=e*0.9999999+1e-7;f=f*0.9999999+1e-7;g=g*0.9999999+1e-7;h=h*0.9999999+1e-7;j=j*0.9999999+1e-7;' +
    'k=k*0.9999999+1e-7;l=l*0.9999999+1e-7;m=m*0.9999999+1e-7;}return a+b+c+d+e+f+g+h+j+k+l+m;}';
  const CHUNK = 20000;
  // control: [0] run, [1] quit, [2] stopped, [3] chunks done
  const sync = new Int32Array(new SharedArrayBuffer(16));
  const code = `const { workerData: sync } = require('node:worker_threads'); ${SPIN}
    for (let k = 0; k < 20; k++) spin(1e6);
    for (;;) { Atomics.wait(sync, 0, 0); if (Atomics.load(sync, 1) === 1) break;
      while (Atomics.load(sync, 0) === 1) { spin(${CHUNK}); Atomics.add(sync, 3, 1); }
      Atomics.store(sync, 2, 1); Atomics.notify(sync, 2); }`;
  const spin = new Function(`${SPIN}; return spin;`)() as (n: number) => number;
  const w = new Worker(code, { eval: true, workerData: sync });
  await new Promise((r) => setTimeout(r, 300));
  for (let k = 0; k < 20; k++) spin(1e6);
  const N = 1e6;
  const rounds = Number(arg('compute-rounds', '100'));
  const alone: number[] = [],
    both: number[] = [];
  let skipped = 0;
  const l0 = loadavg()[0];
  for (let r = 0; r < rounds; r++) {
    const on = r % 2 === 1;
    if (on) {
      Atomics.store(sync, 2, 0);
      Atomics.store(sync, 3, 0);
      Atomics.store(sync, 0, 1);
      Atomics.notify(sync, 0);
      // the worker under way first (else it could miss the round and wait for the next)
      const t = performance.now();
      while (Atomics.load(sync, 3) === 0)
        if (performance.now() - t > 5000) throw new Error('the worker did not start');
    }
    const k0 = Atomics.load(sync, 3);
    const t0 = performance.now();
    spin(N);
    const t1 = performance.now();
    const k1 = Atomics.load(sync, 3);
    if (!on) {
      alone.push(t1 - t0);
      continue;
    }
    Atomics.store(sync, 0, 0);
    while (Atomics.load(sync, 2) === 0) Atomics.wait(sync, 2, 0, 5);
    if ((k1 - k0) * CHUNK >= 0.9 * N) both.push(t1 - t0);
    else skipped++;
  }
  Atomics.store(sync, 1, 1);
  Atomics.store(sync, 0, 1);
  Atomics.notify(sync, 0);
  await w.terminate();
  alone.sort((a, b) => a - b);
  both.sort((a, b) => a - b);
  const ns = (ms: number | undefined) => (ms === undefined ? '-' : ((1e6 * ms) / N).toFixed(3));
  const at = (a: number[], q: number) => a[Math.min(a.length - 1, Math.floor(q * a.length))];
  console.log(
    `compute-bound reference (12 multiply-add chains), load ${l0.toFixed(1)} → ${loadavg()[0].toFixed(1)}: alone (${alone.length} rounds) ns/iteration min ${ns(alone[0])}, quartile ${ns(at(alone, 0.25))}, median ${ns(at(alone, 0.5))}; with the worker computing all through (${both.length} rounds, ${skipped} not covered) min ${ns(both[0])}, quartile ${ns(at(both, 0.25))}, median ${ns(at(both, 0.5))}; min ×${both.length ? (both[0] / alone[0]).toFixed(3) : '-'}`,
  );
}
