/**
 * Where hair-10k's two-thread step goes (issue 20, docs/strands.md "Hair on
 * threads, session 17"): a 1-thread and a 2-thread world of bench/cases/strands.ts's
 * hair-10k from one build's lib/, stepped in turn; per step of the 2-thread
 * world the pass's job timeline (StrandPool.timeline: each block's thread,
 * start and end), each thread's CPU (/proc/self/task/<tid>/schedstat) and
 * the time outside the job. Medians over the steps (robust to a loaded machine's
 * preemptions), and the blocks' durations against the same blocks on one thread
 * (the 2-thread world's pool off: its calling thread runs every block).
 *
 *   npx tsx bench/hair-threads-probe.ts [--lib lib] [--steps 60] [--rounds 6]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const arg = (name: string, fallback: string): string => {
  const k = process.argv.indexOf(`--${name}`);
  return k >= 0 ? process.argv[k + 1] : fallback;
};
const lib = arg('lib', 'lib');
const steps = Number(arg('steps', '60'));
const rounds = Number(arg('rounds', '6'));
const m = await import(pathToFileURL(`${resolve(lib, 'src')}/index.js`).href);

function hair(threads: number) {
  const world = new m.World({ dt: 1 / 60, substeps: 1, iterations: 1, threads });
  const motion = { oscillate: { amplitude: [0.15, 0, 0], frequency: 0.5 } };
  const head = world.addCollider(
    new m.SphereCollider({ radius: 0.1, position: [0, 1.6, 0], friction: 0.3, motion }),
  );
  const style = m.hairOnSphere({
    center: [0, 1.6, 0],
    radius: 0.1,
    count: 10_000,
    segments: 16,
    length: 0.3,
  });
  new m.Strands(world, {
    ...style,
    linearDensity: 0.001,
    radius: 0.004,
    ftl: { damping: 0.9 },
    rootMotion: head.motion ?? new m.Motion(motion),
  });
  return world;
}

/** CPU ns of each thread of this process (schedstat's first field), by tid. */
function threadCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const ns = Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      out.set(Number(t), ns);
    } catch {}
  }
  return out;
}

const w1 = hair(1);
const w2 = hair(2);
// biome-ignore lint/suspicious/noExplicitAny: the built library's pass
const pass2 = (w2 as any).substepPasses[0];
pass2.pool.timeline = true;
if (process.env.STAGE_ALL) pass2.pool.stageAll = true;
await w2.threadsReady();
for (let k = 0; k < 20; k++) {
  w1.step();
  w2.step();
}
const med = (a: number[]) => (a.length ? [...a].sort((x, y) => x - y)[a.length >> 1] : Number.NaN);
const sum = (a: number[]) => a.reduce((s, v) => s + v, 0);
const min = (a: number[]) => a.reduce((s, v) => Math.min(s, v), Number.POSITIVE_INFINITY);
const S = {
  wall1: [] as number[],
  wall2: [] as number[],
  cpu1: [] as number[],
  cpuMain2: [] as number[],
  cpuWork2: [] as number[],
  job: [] as number[],
  outside: [] as number[],
  pre: [] as number[],
  post: [] as number[],
  kern1: [] as number[],
  mainBlocks: [] as number[],
  workBlocks: [] as number[],
  mainN: [] as number[],
  workStart: [] as number[],
  mainEndWait: [] as number[],
  workEndIdle: [] as number[],
  block2: [] as number[],
  staged: [] as number[],
  stagedBlock: [] as number[],
  plainBlock: [] as number[],
  firstWork: [] as number[],
};
const pid = process.pid;
// the 1-thread world's kernel pass (runKernels) timed, the rest of its step is the serial part
let kern = 0;
// biome-ignore lint/suspicious/noExplicitAny: the built library's pass
const pass1 = (w1 as any).substepPasses[0];
const rk = pass1.runKernels;
pass1.runKernels = function (this: unknown, ...a: unknown[]) {
  const t = performance.now();
  const r = rk.apply(this, a);
  kern += performance.now() - t;
  return r;
};
const load0 = loadavg()[0];
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? [1, 2] : [2, 1];
  for (const which of order) {
    for (let k = 0; k < steps / rounds; k++) {
      const c0 = threadCpu();
      const e0 = performance.timeOrigin + performance.now();
      const t0 = performance.now();
      kern = 0;
      (which === 1 ? w1 : w2).step();
      const wall = performance.now() - t0;
      const e1 = performance.timeOrigin + performance.now();
      const c1 = threadCpu();
      let main = 0,
        other = 0;
      for (const [tid, ns] of c1) {
        const d = (ns - (c0.get(tid) ?? 0)) / 1e6;
        if (tid === pid) main += d;
        else other += d;
      }
      if (which === 1) {
        S.wall1.push(wall);
        S.cpu1.push(main + other);
        S.kern1.push(kern);
        continue;
      }
      S.wall2.push(wall);
      S.cpuMain2.push(main);
      S.cpuWork2.push(other);
      const A = pass2.pool.args;
      const tl: Float64Array = A.tl;
      const res: Int32Array = A.res;
      const nb = pass2.pool.blockCount;
      const job = tl[1] - tl[0];
      S.job.push(job);
      S.outside.push(wall - job);
      S.pre.push(tl[0] - e0);
      S.post.push(e1 - tl[1]);
      let mb = 0,
        wb = 0,
        mn = 0,
        mEnd = tl[0],
        wEnd = tl[0],
        wStart = Number.POSITIVE_INFINITY,
        wFirst = -1,
        st = 0;
      for (let j = 0; j < nb; j++) {
        const d = tl[4 + 3 * j] - tl[3 + 3 * j];
        // the blocks' medians over full blocks (256 strands; the last of a set are smaller)
        const last = A.blk[8 * j + 2] - A.blk[8 * j + 1] !== 256;
        if (!last) S.block2.push(d);
        if (res[5 * j + 4] === 1) {
          st++;
          if (!last) S.stagedBlock.push(d);
        } else if (!last) S.plainBlock.push(d);
        if (tl[2 + 3 * j] === 0) {
          mb += d;
          mn++;
          mEnd = Math.max(mEnd, tl[4 + 3 * j]);
        } else {
          wb += d;
          wEnd = Math.max(wEnd, tl[4 + 3 * j]);
          if (tl[3 + 3 * j] < wStart) wFirst = d;
          wStart = Math.min(wStart, tl[3 + 3 * j]);
        }
      }
      S.mainBlocks.push(mb);
      S.workBlocks.push(wb);
      S.mainN.push(mn);
      S.workStart.push(wStart - tl[0]);
      S.mainEndWait.push(tl[1] - mEnd);
      S.workEndIdle.push(tl[1] - wEnd);
      S.staged.push(st);
      S.firstWork.push(wFirst);
    }
  }
}
// the same blocks on one thread: the 2-thread world's calling thread runs them all (the runner's
// pool refuses while `inStep` is false: a step with the pool's beginStep skipped)
const sched = w2.scheduler;
const begin = sched.beginStep;
const oneBlock: number[] = [];
sched.beginStep = () => {};
const pool = sched.pool;
pool.endStep();
for (let k = 0; k < 20; k++) {
  w2.step();
  const tl: Float64Array = pass2.pool.args.tl;
  const nb = pass2.pool.blockCount;
  const blk: Int32Array = pass2.pool.args.blk;
  for (let j = 0; j < nb; j++)
    if (blk[8 * j + 2] - blk[8 * j + 1] === 256) oneBlock.push(tl[4 + 3 * j] - tl[3 + 3 * j]);
}
sched.beginStep = begin;
const f = (v: number) => v.toFixed(3);
const load1 = loadavg()[0];
console.log(
  `hair-10k, ${lib}, ${S.wall2.length} steps each in ${rounds} rounds, load ${load0.toFixed(1)} -> ${load1.toFixed(1)} (${cpus().length} cores); medians per step, ms`,
);
console.log(
  `1 thread: wall ${f(med(S.wall1))}, CPU ${f(med(S.cpu1))}; its blocks (runKernels) ${f(med(S.kern1))}, outside ${f(med(S.wall1.map((v, i) => v - S.kern1[i])))}`,
);
console.log(
  `2 threads: wall ${f(med(S.wall2))}, CPU calling ${f(med(S.cpuMain2))} + others ${f(med(S.cpuWork2))} = ${f(med(S.cpuMain2.map((v, i) => v + S.cpuWork2[i])))}`,
);
console.log(
  `  job ${f(med(S.job))}, outside the job ${f(med(S.outside))} (before ${f(med(S.pre))}, after ${f(med(S.post))})`,
);
console.log(
  `  minima: before the job ${f(min(S.pre))}, after ${f(min(S.post))}, calling thread's CPU ${f(min(S.cpuMain2))}; 1 thread outside its blocks ${f(min(S.wall1.map((v, i) => v - S.kern1[i])))}`,
);
console.log(
  `  calling thread's blocks ${f(med(S.mainBlocks))} (${med(S.mainN)} blocks), worker's ${f(med(S.workBlocks))}; worker's first block starts ${f(med(S.workStart))} after the job`,
);
console.log(
  `  worker's first block ${f(med(S.firstWork))}; job end: calling thread waits ${f(med(S.mainEndWait))}, worker idle (spins) ${f(med(S.workEndIdle))}; staged blocks ${med(S.staged)}/step`,
);
console.log(
  `  a block (256 strands) on 2 threads ${f(med(S.block2))} (staged ${f(med(S.stagedBlock))}, placed ${f(med(S.plainBlock))}); alone on one thread ${f(med(oneBlock))}; sum of blocks ${f(sum(S.block2) / S.wall2.length)} vs ${f((sum(oneBlock) / oneBlock.length) * (S.block2.length / S.wall2.length))}`,
);
w1.dispose();
w2.dispose();
