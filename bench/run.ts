/**
 * `npm run bench [-- name-filter…]`: runs every case in bench/cases, prints
 * a table and writes bench/results.json.
 */
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchCase, type BenchResult, type Quality, runCase } from './harness.js';

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
const indent = ' '.repeat(nameWidth);
const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
const stretch = (q: Quality) =>
  !q.finite
    ? 'NON-FINITE'
    : q.drift !== undefined && q.penetration !== undefined
      ? `over the timed frames: max drift ${(1000 * q.drift).toFixed(2)} mm, max penetration ${(1000 * q.penetration).toFixed(2)} mm`
      : `edge stretch max ${(100 * q.maxStretch).toFixed(1)} %, mean ${(100 * q.meanStretch).toFixed(2)} %`;
console.log(
  `${pad('benchmark', nameWidth)}${pad('median ms', 11)}${pad('min', 9)}${pad('max', 9)}${pad('proj/s', 10)}target`,
);
for (const c of selected) {
  const r = await runCase(c);
  results.push(r);
  const pps = r.projectionsPerSecond ? `${(r.projectionsPerSecond / 1e6).toFixed(1)}M` : '—';
  const target = r.targetMs === null ? '' : `≤ ${r.targetMs} ms ${met(r.medianMs <= r.targetMs)}`;
  console.log(
    `${pad(r.name, nameWidth)}${pad(r.medianMs.toFixed(3), 11)}${pad(r.minMs.toFixed(3), 9)}${pad(r.maxMs.toFixed(3), 9)}${pad(pps, 10)}${target}`,
  );
  if (r.anchor) console.log(`${indent}anchor: ${r.anchor}`);
  if (r.info) console.log(`${indent}${r.info}`);
  if (r.kinds.length > 0) {
    const kinds = r.kinds.map(
      (k) =>
        `${k.kind} ${k.nsPerProjection.toFixed(1)}${k.targetNs === null ? '' : ` (≤ ${k.targetNs} ${met(k.nsPerProjection <= k.targetNs)})`}`,
    );
    console.log(`${indent}ns per projection: ${kinds.join(', ')}`);
    const stages = r.stages
      .filter((s) => s.msPerStep >= 0.01 * r.medianMs)
      .map((s) => `${s.name} ${s.msPerStep.toFixed(3)}`);
    console.log(`${indent}ms per step by stage (profiled steps): ${stages.join(', ')}`);
  }
  if (r.quality) console.log(`${indent}pbdkit: ${stretch(r.quality)}`);
  if (r.threads) {
    const t = r.threads;
    console.log(
      `${indent}threads: 1 → ${r.medianMs.toFixed(3)} ms, ${t.threads} → ${t.medianMs.toFixed(3)} ms, 1/${t.threads} time ratio ${t.ratio.toFixed(2)} (frames interleaved${r.peers.length > 0 ? ' with the peers' : ''})${t.bitIdentical ? ', bit-identical' : ', NOT BIT-IDENTICAL'}${t.cpuMs === null || t.threadsCpuMs === null ? '' : `; CPU per step ${t.cpuMs.toFixed(1)} / ${t.threadsCpuMs.toFixed(1)} ms`}`,
    );
    const o = t.pbdkitOnly;
    if (o)
      console.log(
        `${indent}threads, pbdkit only (${o.steps} further frames, only the 1- and ${t.threads}-thread worlds interleaved): 1 → ${o.medianMs.toFixed(3)} ms, ${t.threads} → ${o.threadsMedianMs.toFixed(3)} ms, 1/${t.threads} time ratio ${o.ratio.toFixed(2)}${o.bitIdentical ? ', bit-identical' : ', NOT BIT-IDENTICAL'}`,
      );
  }
  for (const p of r.peers) {
    const t = p.targetRatio === null ? '' : ` (≤ ${p.targetRatio} ${met(p.meetsTarget === true)})`;
    console.log(
      `${indent}${p.name}: ${p.medianMs.toFixed(3)} ms, pbdkit/${p.name} ${p.ratio.toFixed(2)}${t}; ${stretch(p.quality)} — ${p.what}`,
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
