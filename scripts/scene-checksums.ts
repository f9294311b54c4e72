/**
 * Checksums of every shipped scene after N frames: a refactoring that must
 * not change a number is checked by comparing these before and after.
 *
 *   npx tsx scripts/scene-checksums.ts [--frames 60] [--only name,name] [--out file.json]
 *
 * Prints one line per scene (hash of positions and velocities of every
 * particle, hash of the world's saved state) and, with --out, writes them as
 * JSON. Compare two files with `diff`.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadShippedScene, scriptOption as opt, sceneFiles } from './shipped-scenes.js';

const frames = Number(opt('frames') ?? 60);
const only = opt('only')?.split(',');
const out = opt('out');

const files = sceneFiles(only);

const result: Record<string, string> = {};
for (const f of files) {
  const t0 = performance.now();
  const inst = loadShippedScene(f);
  const w = inst.world;
  for (let k = 0; k < frames; k++) w.step();
  const n = w.store.count;
  const h = createHash('sha1');
  h.update(new Uint8Array(w.store.x.buffer, w.store.x.byteOffset, 24 * n));
  h.update(new Uint8Array(w.store.v.buffer, w.store.v.byteOffset, 24 * n));
  for (const b of w.bodies) {
    const r = b.renderPositions();
    h.update(new Uint8Array(r.buffer, r.byteOffset, r.byteLength));
  }
  const name = f.replace(/\.json$/, '');
  result[name] = h.digest('hex').slice(0, 16);
  console.log(`${name.padEnd(36)} ${result[name]}  ${(performance.now() - t0).toFixed(0)} ms`);
}
if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
