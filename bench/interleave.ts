/**
 * Worlds stepped interleaved in one process (the order rotating each step, after 5 warm-up
 * steps each), so that a loaded machine's minutes weigh on all of them alike: `step` steps run
 * `r`, and each timed step's wall time (ms) lands in its `wall`. Returns the medians per run.
 * (bench/pool-probe.ts, small-sets-probe.ts, small-sets-scenes.ts.)
 */
export function interleaved<R extends { wall: number[] }>(
  runs: R[],
  steps: number,
  step: (r: R) => void,
): number[] {
  for (let f = 0; f < 5; f++) for (const r of runs) step(r);
  for (let s = 0; s < steps; s++)
    for (let k = 0; k < runs.length; k++) {
      const r = runs[(k + s) % runs.length];
      const t0 = performance.now();
      step(r);
      r.wall.push(performance.now() - t0);
    }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
  return runs.map((r) => median(r.wall));
}
