/**
 * `npm run bench [-- name-filter…]`: runs every case in bench/cases, prints
 * a table and writes bench/results.json.
 */
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchCase, type BenchResult, runCase } from './harness.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const filters = process.argv.slice(2);
const cases: BenchCase[] = [];
for (const f of readdirSync(`${here}cases`)
  .filter((f) => f.endsWith('.js'))
  .sort()) {
  const mod = (await import(pathToFileURL(`${here}cases/${f}`).href)) as { cases: BenchCase[] };
  cases.push(...mod.cases);
}
const selected = cases.filter((c) => filters.length === 0 || filters.some((f) => c.name.includes(f)));
if (selected.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}; known: ${cases.map((c) => c.name).join(', ')}`);
  process.exit(2);
}

const results: BenchResult[] = [];
const pad = (s: string, n: number) => s.padEnd(n);
// the name column fits the longest selected name
const nameWidth = Math.max(24, ...selected.map((c) => c.name.length + 2));
console.log(
  `${pad('benchmark', nameWidth)}${pad('median ms', 11)}${pad('min', 9)}${pad('max', 9)}${pad('proj/s', 10)}target`,
);
for (const c of selected) {
  const r = runCase(c);
  results.push(r);
  const pps = r.projectionsPerSecond ? `${(r.projectionsPerSecond / 1e6).toFixed(1)}M` : '—';
  const target = r.targetMs === null ? '' : `≤ ${r.targetMs} ms ${r.meetsTarget ? 'met' : 'MISSED'}`;
  console.log(
    `${pad(r.name, nameWidth)}${pad(r.medianMs.toFixed(3), 11)}${pad(r.minMs.toFixed(3), 9)}${pad(r.maxMs.toFixed(3), 9)}${pad(pps, 10)}${target}`,
  );
  if (r.info) console.log(`${' '.repeat(nameWidth)}${r.info}`);
  if (r.referenceMedianMs !== undefined) {
    const e = r.referenceEngine;
    const ratio = r.medianMs / r.referenceMedianMs;
    const cpuRatio = (r.cpuMedianMs ?? 0) / (r.referenceCpuMedianMs ?? 1);
    console.log(
      `${' '.repeat(nameWidth)}${e}, interleaved: ${r.referenceMedianMs.toFixed(3)} ms; pbdkit/${e} = ${ratio.toFixed(2)}`,
    );
    console.log(
      `${' '.repeat(nameWidth)}CPU time per step: pbdkit ${r.cpuMedianMs?.toFixed(3)} ms, ${e} ${r.referenceCpuMedianMs?.toFixed(3)} ms; pbdkit/${e} = ${cpuRatio.toFixed(2)}`,
    );
  }
}

const out = fileURLToPath(new URL('../../bench/results.json', import.meta.url)); // lib/bench → bench
const doc = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  results,
};
writeFileSync(`${out}.tmp`, `${JSON.stringify(doc, null, 2)}\n`);
renameSync(`${out}.tmp`, out);
console.log(`\nwrote ${out}`);
