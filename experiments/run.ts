/** `npm run experiment -- <name> [outDir]`: runs an experiment of experiments/index.ts. */
import { experiments, runExperiment } from './index.js';

const [name, out = 'experiment-results'] = process.argv.slice(2);
if (!name) {
  console.error(
    `usage: npm run experiment -- <name> [outDir]\n${experiments.map((e) => `  ${e.name}  ${e.title}`).join('\n')}\n  all   every experiment`,
  );
  process.exit(2);
}
const t0 = performance.now();
const r = await runExperiment(name, out);
console.log(r.summary);
console.log(`\nwrote ${r.files.length} files to ${out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
