/**
 * ns per projection of the cloth kernels in each lane layout (bench/lanes.ts)
 * on one state of the falling cloth (bench/peers/cloth-scene.ts after 30
 * frames), sweeps of all layouts interleaved, CPU time, medians:
 *
 *   npx tsx bench/lanes-probe.ts [n] [--phi=atan2|div|poly]
 *
 * (docs/performance.md, "Lanes"). `--phi` replaces the dihedral kernel's
 * per-lane atan2 call (div: none at all, the floor; poly: an in-module
 * polynomial), for timing only.
 */

import { clothKernelDefs, type Layout, laneModule, laneSweep } from './lanes.js';
import { fallingCloth } from './peers/cloth-scene.js';

const n = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 50);
const phi = (process.argv.find((a) => a.startsWith('--phi='))?.slice(6) ?? 'atan2') as
  | 'atan2'
  | 'div'
  | 'poly';
const defs = clothKernelDefs();
const mod = await laneModule(defs, phi);
const fc = fallingCloth({ n, substeps: 5, bendCompliance: 0.01 });
for (let f = 0; f < 30; f++) fc.world.step();
const store = fc.world.store;
const bend = fc.cloth.bend!;
const stretch = fc.cloth.stretch;
const kinds = [
  {
    kind: 'bending',
    set: bend,
    def: defs.find((d) => d.name === 'projectDihedralBending')!,
    rest: bend.rest,
    u: [bend.rule.kPrime, bend.rule.alphaTilde, bend.maxStep],
  },
  {
    kind: 'stretch',
    set: stretch,
    def: defs.find((d) => d.name === 'projectDistance')!,
    rest: stretch.rest,
    u: [stretch.rule.kPrime, stretch.rule.alphaTilde, 0],
  },
];
const layouts: Layout[] = ['paired64', 'paired32', 'blocked64', 'blocked32'];
const rows: { key: string; run: () => void; count: number }[] = [];
for (const k of kinds) {
  for (const l of layouts) {
    const s = laneSweep(mod, k.def, l, k.set, k.rest, k.u);
    rows.push({ key: `${k.kind} ${l}`, run: () => s.sweep(store), count: k.set.count });
    if (l.startsWith('blocked'))
      rows.push({
        key: `${k.kind} ${l}: gathers + scatters + window only`,
        run: () => s.moves(store),
        count: k.set.count,
      });
  }
}
const p0 = store.p.slice();
const reps = 5;
const times = new Map<string, number[]>();
for (let it = 0; it < 300; it++) {
  for (const r of it % 2 === 0 ? rows : [...rows].reverse()) {
    store.p.set(p0);
    const t0 = process.cpuUsage();
    for (let i = 0; i < reps; i++) r.run();
    const dt = process.cpuUsage(t0);
    const list = times.get(r.key) ?? [];
    list.push(((dt.user + dt.system) * 1000) / (reps * r.count));
    times.set(r.key, list);
  }
}
const median = (a: number[]) => {
  const s = a.slice(50).sort((x, y) => x - y);
  return s[s.length >> 1];
};
console.log(`${n} x ${n}: ${bend.count} bends, ${stretch.count} edges; phi by ${phi}`);
for (const [k, v] of times) console.log(`${k.padEnd(56)} ${median(v).toFixed(2)} ns per projection`);
