/**
 * Where a threaded cloth step's time goes (issue 20, docs/solver.md "Threads",
 * session 16): the jobs per step by task, the calling thread's time inside
 * each job split into its own blocks (work and dependency waits: the `own`
 * runner; the dependency waits inside a part timed apart since part20) and the wait at the job's end for the other threads' last blocks,
 * and the stages outside the jobs (the serial parts). One or more builds'
 * lib/ folders are stepped alternately in one process, so their figures are
 * taken in the same minutes.
 *
 *   npx tsx bench/thread-profile.ts [--lib lib,/tmp/b/lib] [--case fall|demo] [--threads 2]
 *                                   [--steps 40] [--rounds 4]
 */
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
  waits: { ms: number; n: number } | null;
  waitMs: number;
  waitN: number;
  /** The world's pool (worlds of one build may share one): it reports to the probe being stepped. */
  pool: { probe?: Probe } | null;
}

/** The job being run (the task's kind, or 'colours' for a set's colour ranges) and its calling thread's own-block time. */
let current = '';
let ownTime = 0;

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
    pool: null,
  };
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
      ownTime = 0;
      run.apply(this, a);
      const total = performance.now() - t0;
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
    const runTask = S.runTask;
    S.runTask = function (this: unknown, task: { kind: string }, n: number, blocks: number) {
      current = task.kind;
      try {
        return runTask.call(this, task, n, blocks);
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
      const t = performance.now();
      r.apply(this, a);
      probe.stages.set(st.name, (probe.stages.get(st.name) ?? 0) + performance.now() - t);
    };
  }
  probe.world = world;
  return probe;
}

const probes: Probe[] = [];
for (const lib of libs) probes.push(await build(lib));
// warm-up, then reset
for (let k = 0; k < 10; k++) for (const p of probes) p.world.step();
for (const p of probes) {
  p.jobs.clear();
  p.stages.clear();
}
const load0 = loadavg()[0];
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? probes : [...probes].reverse();
  for (const p of order) {
    if (p.pool) p.pool.probe = p;
    const c0 = process.cpuUsage();
    const w0 = p.waits ? p.waits.ms : 0,
      n0 = p.waits ? p.waits.n : 0;
    const t0 = performance.now();
    for (let k = 0; k < steps / rounds; k++) p.world.step();
    p.wall += performance.now() - t0;
    if (p.waits) {
      p.waitMs += p.waits.ms - w0;
      p.waitN += p.waits.n - n0;
    }
    const c = process.cpuUsage(c0);
    p.cpu += (c.user + c.system) / 1000;
    p.steps += steps / rounds;
  }
}
const f = (v: number) => v.toFixed(2);
console.log(
  `cloth-201 ${which}, ${threads} threads, ${steps} steps per build in ${rounds} rounds; load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)} (${cpus().length} cores)`,
);
for (const p of probes) {
  const s = p.steps;
  console.log(`\n== ${p.lib}: wall ${f(p.wall / s)} ms/step, CPU (all threads) ${f(p.cpu / s)} ms/step`);
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
      `  of the own blocks, dependency waits in parted sweeps ${f(p.waitMs / s)} ms (${(p.waitN / s).toFixed(1)}/step)`,
    );
  else console.log('  (this build does not time its dependency waits)');
  for (const [k, t] of p.stages) console.log(`  stage ${k.padEnd(22)} ${f(t / s)} ms`);
  const stageSum = [...p.stages.values()].reduce((a, b) => a + b, 0);
  console.log(
    `  outside jobs (stages − jobs) ${f((stageSum - inJobs) / s)} ms, outside stages ${f((p.wall - stageSum) / s)} ms`,
  );
}
for (const p of probes) p.world.dispose();
