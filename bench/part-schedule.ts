/**
 * The waits of a fused sweep run in parts on two threads, in a model free of the machine's load
 * (session 16, part20; docs/solver.md "Threads"): each block costs its items (groups of a colour,
 * `copyCost` per particle of a copy), thread 1 runs `slow` times slower than thread 0; each thread
 * runs its part in the partTable's order, a dependency no thread has claimed is run first by the
 * thread that needs it, a claimed one is waited for, and a thread done with its part takes the
 * unclaimed blocks in serial order (element-threads.ts runParts, runFused). Prints, per set of a
 * 201 × 201 cloth on 2 threads (each set's sweep, and the two sets' joint sweep), the sweep's length and the threads' dependency waits with boundary
 * blocks first and in serial order.
 *
 *   npx tsx bench/part-schedule.ts [--n 201] [--copy-cost 0.05] [--slow 1,1.05,1.2]
 */
import { World } from '../src/index.js';
import { fusedBlock, partTable } from '../src/wasm/element-order.js';

const arg = (name: string, fallback: string): string => {
  const k = process.argv.indexOf(`--${name}`);
  return k >= 0 ? process.argv[k + 1] : fallback;
};
const n = Number(arg('n', '201'));
const copyCost = Number(arg('copy-cost', '0.05'));
const slows = arg('slow', '1,1.05,1.2').split(',').map(Number);

/**
 * Q with each part's piece of each run (blocks of one op and colour) reordered boundary blocks
 * first: part 0 from its cut down, the last part from its cut up, a middle part from both in turn
 * (the order tried in session 16, part20, branch part20-experiment; a colour's blocks share no
 * particle, so any order within a piece gives the same bits).
 */
function boundaryFirst(T: Int32Array, Q: Int32Array): Int32Array {
  const out = Q.slice();
  const parts = Q[0];
  for (let p = 0; p < parts; p++)
    for (let a = Q[1 + p]; a < Q[2 + p]; ) {
      const key = (i: number) => `${fusedBlock(T, Q[i]).op}:${fusedBlock(T, Q[i]).first}`;
      let z = a + 1;
      while (z < Q[2 + p] && key(z) === key(a)) z++;
      let lo = Q[a],
        hi = Q[z - 1];
      for (let i = a, turn = 0; i < z; i++, turn++)
        out[i] = p < parts - 1 && (p === 0 || turn % 2 === 0) ? hi-- : lo++;
      a = z;
    }
  return out;
}

/** The modelled sweep: its length and each thread's dependency waits (in groups' time). */
function schedule(
  T: Int32Array,
  Q: Int32Array,
  slow: number,
): { span: number; waits: number[]; stolen: number } {
  const nb = T[0];
  const finish = new Float64Array(nb).fill(-1);
  const now = [0, 0];
  const waits = [0, 0];
  const at = [Q[1], Q[2]];
  let stolen = 0;
  const cost = (k: number, th: number): number => {
    const b = fusedBlock(T, k);
    return (b.to - b.from) * (b.op === 1 || b.op === 3 ? 1 : copyCost) * (th === 1 ? slow : 1);
  };
  const run = (k: number, th: number): void => {
    finish[k] = Number.POSITIVE_INFINITY; // claimed
    for (const d of fusedBlock(T, k).deps) {
      if (finish[d] < 0) {
        run(d, th);
        stolen++;
      }
      if (finish[d] > now[th]) {
        waits[th] += finish[d] - now[th];
        now[th] = finish[d];
      }
    }
    now[th] += cost(k, th);
    finish[k] = now[th];
  };
  let serial = 0;
  for (;;) {
    // the thread behind in time acts next
    const th = now[0] <= now[1] ? 0 : 1;
    let k = -1;
    while (at[th] < Q[2 + th] && k < 0) {
      const c = Q[at[th]++];
      if (finish[c] < 0) k = c;
    }
    while (k < 0 && serial < nb) if (finish[serial++] < 0) k = serial - 1;
    if (k < 0) break;
    run(k, th);
  }
  return { span: Math.max(now[0], now[1]), waits, stolen };
}

const world = new World({
  threads: 2,
  dt: 1 / 60,
  substeps: 5,
  iterations: 1,
  solver: 'xpbd',
  sweep: 'forward',
});
const { Cloth, gridMesh } = await import('../src/index.js');
const cloth = new Cloth(world, {
  mesh: gridMesh({ width: 2, height: 2, cols: n, rows: n, plane: 'xz' }),
  density: 0.2,
  stretch: { compliance: 0 },
  bend: { model: 'dihedral', compliance: 0.01 },
});
cloth.pin(0);
cloth.pin(n - 1);
await world.threadsReady();
world.step();
type Args = { fused: Int32Array; join: { fwd: Int32Array } | null };
const args = world.sets
  .map((s) => (s as unknown as { threads: { task: { args: Args } } | null }).threads)
  .filter((t) => t !== null && t !== undefined && t.task.args.fused.length > 0)
  .map((t) => t!.task.args);
// each set's own sweep, and the joint sweep of both (pool21) where the step made one
const tables = [...args.map((a) => a.fused), ...args.filter((a) => a.join !== null).map((a) => a.join!.fwd)];
const f = (v: number) => v.toFixed(0);
for (const T of tables) {
  let work = 0;
  for (let k = 0; k < T[0]; k++) {
    const b = fusedBlock(T, k);
    work += (b.to - b.from) * (b.op === 1 || b.op === 3 ? 1 : copyCost);
  }
  console.log(`\n${T[0]} blocks, work ${f(work)} (one thread), even half ${f(work / 2)}`);
  for (const slow of slows)
    for (const first of [true, false]) {
      const Q = partTable(T, 2);
      const r = schedule(T, first ? boundaryFirst(T, Q) : Q, slow);
      console.log(
        `  thread 1 ×${slow} ${first ? 'boundary first' : 'serial order  '}: span ${f(r.span)}, waits ${f(r.waits[0])} / ${f(r.waits[1])}, dependencies run by the other thread ${r.stolen}`,
      );
    }
}
world.dispose();
