/**
 * Fuzzes the scene loader with hostile inputs (test/fuzz/scene-fuzz.ts) and
 * prints the classes of outcome:
 *
 *   npx tsx scripts/fuzz-scenes.ts [--count 1200] [--seed 1] [--steps 2] [--timeout 5000] [--list]
 *
 * Each input runs in a child process, one after the other (the clock starts
 * once the child has loaded pbdkit): loaded with the default limits, then stepped --steps times. No answer within --timeout ms
 * (loading) is a hang; a child above 3 GB of memory is stopped and counted
 * as a crash. --list prints every input that was not rejected with a path
 * or accepted cleanly.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadScene } from '../src/index.js';
import {
  type FuzzInput,
  fuzzInputs,
  type Outcome,
  type OutcomeClass,
  runInput,
} from '../test/fuzz/scene-fuzz.js';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const k = args.indexOf(`--${name}`);
  return k >= 0 ? Number(args[k + 1]) : fallback;
};
const count = opt('count', 1200);
const seed = opt('seed', 1);
const steps = opt('steps', 2);
const timeout = opt('timeout', 5000);
const maxRss = 3 * 1024 ** 3;

if (args.includes('--child')) {
  // the worker: regenerates the inputs and runs the ones it is sent
  const inputs = fuzzInputs(seed, count);
  process.on('message', (id: number) => {
    const input = inputs[id];
    let loaded = false;
    const load = (text: string, o: Record<string, unknown>) => {
      const inst = loadScene(text, o);
      loaded = true;
      process.send!({ id, loaded: true });
      return inst;
    };
    const out = runInput(input, load, {}, steps);
    if (!loaded) process.send!({ id, loaded: true });
    process.send!({ id, out });
  });
  // the parent starts an input's clock only once the worker is ready (its imports can take seconds)
  process.send!({ id: -1, ready: true });
} else {
  await main();
}

async function main(): Promise<void> {
  const inputs = fuzzInputs(seed, count);
  const results: { input: FuzzInput; out: Outcome }[] = [];
  let child: ChildProcess | null = null;
  const start = async () => {
    const c = fork(fileURLToPath(import.meta.url), [...args, '--child'], {
      execArgv: ['--import', 'tsx', '--max-old-space-size=2048'],
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    await new Promise<void>((resolve) => {
      const ready = (m: { ready?: boolean }) => {
        if (!m.ready) return;
        c.off('message', ready);
        resolve();
      };
      c.on('message', ready);
    });
    return c;
  };
  const t0 = performance.now();
  for (const input of inputs) {
    child ??= await start();
    const c = child;
    const out = await new Promise<Outcome>((resolve) => {
      let timer = setTimeout(() => finish({ cls: 'hang', message: `no answer in ${timeout} ms` }), timeout);
      const poll = setInterval(() => {
        if (rss(c.pid!) > maxRss) finish({ cls: 'crash', code: 'out of memory', message: '> 3 GB' });
      }, 25);
      const onMessage = (m: { id: number; loaded?: boolean; out?: Outcome }) => {
        if (m.id !== input.id) return;
        if (m.out) finish(m.out);
        else if (m.loaded) {
          clearTimeout(timer);
          timer = setTimeout(() => finish({ cls: 'hang', message: 'stepping' }), 4 * timeout);
        }
      };
      const onExit = (code: number | null, signal: string | null) =>
        finish({ cls: 'crash', code: 'exit', message: `child exited (${code ?? signal})` });
      function finish(o: Outcome) {
        clearTimeout(timer);
        clearInterval(poll);
        c.off('message', onMessage);
        c.off('exit', onExit);
        if (o.cls === 'hang' || (o.cls === 'crash' && (o.code === 'out of memory' || o.code === 'exit'))) {
          c.kill('SIGKILL');
          child = null;
        }
        resolve(o);
      }
      c.on('message', onMessage);
      c.on('exit', onExit);
      c.send(input.id);
    });
    results.push({ input, out });
    if (results.length % 100 === 0)
      process.stderr.write(
        `${results.length}/${inputs.length} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
      );
  }
  child?.kill();

  const classes: OutcomeClass[] = [
    'rejected with a path',
    'accepted',
    'hang',
    'crash',
    'rejected without a path',
    'accepted, then NaN',
  ];
  console.log(`${inputs.length} inputs (seed ${seed}):`);
  for (const c of classes) {
    const n = results.filter((r) => r.out.cls === c).length;
    console.log(`  ${c.padEnd(26)} ${String(n).padStart(5)}  ${((100 * n) / inputs.length).toFixed(1)} %`);
  }
  const kinds = [...new Set(inputs.map((i) => i.kind))];
  console.log('\nby mutation (rejected with a path / accepted / other):');
  for (const k of kinds) {
    const rs = results.filter((r) => r.input.kind === k);
    const n = (c: OutcomeClass) => rs.filter((r) => r.out.cls === c).length;
    const other = rs.length - n('rejected with a path') - n('accepted');
    console.log(`  ${k.padEnd(18)} ${n('rejected with a path')} / ${n('accepted')} / ${other}`);
  }
  if (args.includes('--list')) {
    console.log('');
    for (const { input, out } of results) {
      if (out.cls === 'rejected with a path' || out.cls === 'accepted') continue;
      console.log(
        `#${input.id} ${input.base} ${input.kind} ${input.what}: ${out.cls} ${out.code ?? ''} ${out.message ?? ''}`,
      );
    }
  }
}

function rss(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
