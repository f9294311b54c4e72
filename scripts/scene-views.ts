/**
 * Where each shipped scene's action happens: the box its bodies fill over
 * their first seconds — those its camera follows (camera.follow), or all —
 * and the box of its bounded colliders, which the
 * gallery's camera fits into the part of the window the panels leave free.
 * Written to web/src/scene-views.json, keyed by scene name, with a digest
 * of the scene text so that a test can tell when a scene changed and its
 * entry must be made again.
 *
 *   npx tsx scripts/scene-views.ts [--seconds 6] [--only name,name]
 *
 * Run it after adding or changing a scene (then `npm run thumbnails`); the
 * unit test test/gallery-assets.test.ts fails while a scene has no entry or
 * a stale one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Collider } from '../src/collision/colliders.js';
import type { Body } from '../src/core/body.js';
import { loadScene } from '../src/index.js';
import { colliderMesh } from '../src/io/collider-meshes.js';
import { quatRotate } from '../src/math/quat.js';
import { drawnBox } from '../web/src/view/bounds.js';
import { sceneDigest } from './scene-digest.js';
import { scriptOption as opt, sceneFiles, sceneText } from './shipped-scenes.js';

const seconds = Number(opt('seconds') ?? 6);
const only = opt('only')?.split(',');
/** Wall-time budget per scene (s): slower scenes are measured as far as it gets. */
const budget = Number(opt('budget') ?? 120);

const outFile = new URL('../web/src/scene-views.json', import.meta.url);

export interface SceneView {
  /** The digest of the scene's physics (scripts/scene-digest.ts). */
  digest: string;
  /** Simulated seconds the boxes cover. */
  seconds: number;
  /**
   * The box the bodies filled as drawn (web/src/view/bounds.ts: drawnBox): [lo, hi]; all of
   * them at the start, then the ones the scene's camera follows (camera.follow; default all).
   */
  bodies: [number[], number[]];
  /** The box of the bounded colliders (spheres, boxes, capsules, meshes, containers: their surfaces) over the same time, or null. */
  colliders: [number[], number[]] | null;
}

const views: Record<string, SceneView> = existsSync(outFile) ? JSON.parse(readFileSync(outFile, 'utf8')) : {};
const files = sceneFiles(only);

const round = (v: number) => Math.round(v * 1000) / 1000;

for (const f of files) {
  const name = f.replace(/\.json$/, '');
  const text = sceneText(f);
  const t0 = performance.now();
  const inst = loadScene(text, { file: f, readFile: sceneText });
  const w = inst.world;
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  const clo = [Infinity, Infinity, Infinity];
  const chi = [-Infinity, -Infinity, -Infinity];
  // the bodies the camera follows (the scene's camera.follow; default all); every body counts at the start
  const follow = inst.spec.camera?.follow;
  const followed = inst.bodies.filter((b) => !follow || follow.includes(b.name));
  // bounded colliders as their meshes in their local frames, placed at each sample's pose; a
  // container (a mesh whose inside is the free space: its bounding radius is infinite) by its surface
  const shapes = w.colliders
    .filter((c) => c.type !== 'plane')
    .map((c) => ({ c, mesh: colliderMesh(c as Collider, 1) }))
    .filter(({ c, mesh }) => mesh !== null || Number.isFinite(c.boundingRadius()));
  const p = new Float64Array(3);
  const sample = (bodies: readonly Body[]) => {
    for (const b of bodies) {
      const x = b.hasRenderMesh ? b.renderPositions() : w.store.x;
      const base = b.hasRenderMesh ? 0 : 3 * b.offset;
      const count = b.hasRenderMesh ? x.length / 3 : b.activeCount;
      const box = drawnBox(x, base, b.renderTriangles(), count);
      if (!box) continue;
      for (let d = 0; d < 3; d++) {
        lo[d] = Math.min(lo[d], box[0][d]);
        hi[d] = Math.max(hi[d], box[1][d]);
      }
    }
    for (const { c, mesh } of shapes) {
      if (!mesh) {
        // a shape without a mesh: its bounding sphere
        const r = c.boundingRadius();
        for (let d = 0; d < 3; d++) {
          clo[d] = Math.min(clo[d], c.position[d] - r);
          chi[d] = Math.max(chi[d], c.position[d] + r);
        }
        continue;
      }
      const v = mesh.positions;
      for (let i = 0; i < v.length; i += 3) {
        quatRotate(p, 0, c.rotation, 0, v[i], v[i + 1], v[i + 2]);
        for (let d = 0; d < 3; d++) {
          clo[d] = Math.min(clo[d], c.position[d] + p[d]);
          chi[d] = Math.max(chi[d], c.position[d] + p[d]);
        }
      }
    }
  };
  sample(inst.bodies);
  const steps = Math.ceil(seconds / w.dt - 1e-9);
  let k = 0;
  for (; k < steps && (performance.now() - t0) / 1000 < budget; k++) {
    w.step();
    sample(followed);
  }
  if (w.stats.recoveries > 0) {
    // the gallery's browser test simulates only the first half second: the recording vouches for the rest
    console.error(`${name}: ${w.stats.recoveries} non-finite recoveries in ${round(k * w.dt)} s`);
    process.exitCode = 1;
  }
  views[name] = {
    digest: sceneDigest(text),
    seconds: round(k * w.dt),
    bodies: [lo.map(round), hi.map(round)],
    colliders: Number.isFinite(clo[0]) ? [clo.map(round), chi.map(round)] : null,
  };
  console.log(
    `${name.padEnd(34)} ${views[name].seconds} s  bodies ${JSON.stringify(views[name].bodies)}  ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}

const sorted = Object.fromEntries(Object.entries(views).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(outFile, `${JSON.stringify(sorted, null, 2)}\n`);
// in the repository's format (Biome's), so that a re-run changes only the entries that changed
execFileSync(fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url)), [
  'format',
  '--write',
  fileURLToPath(outFile),
]);
