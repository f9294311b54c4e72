/**
 * A long bake's memory stays flat while it simulates (issue 21): the frames
 * go to the checkpoint folder's log on disk, not to memory. The heap after a
 * full garbage collection is compared at frame 1,000 and at frame 6,000 of a
 * small cloth's bake with a statistics CSV.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { bake } from '../src/node/bake.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('bake memory', () => {
  it('the heap does not grow with the frame count while simulating', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pbdkit-bake-memory-'));
    const scene = join(dir, 'small.json');
    writeFileSync(
      scene,
      JSON.stringify({
        title: 'small cloth',
        family: 'cloth',
        world: { substeps: 2 },
        bodies: [
          {
            type: 'cloth',
            mesh: { grid: { width: 0.5, height: 0.5, cols: 6, rows: 6, plane: 'xy' } },
            transform: { translate: [0, 1, 0] },
            pins: [{ rows: [0] }],
          },
        ],
        colliders: [{ type: 'plane' }],
      }),
    );
    const heap: Record<number, number> = {};
    const frames = 6000;
    const result = await bake(
      { scene, frames, stats: join(dir, 'small.csv'), checkpointEvery: 1000 },
      {
        onFrame: (p) => {
          if (p.frame === 1000 || p.frame === frames - 1) {
            gc();
            heap[p.frame] = process.memoryUsage().heapUsed;
          }
        },
      },
    );
    expect(result.status).toBe('complete');
    // 5,000 more frames of 36 vertices would be several MB if they were kept; allow 1 MB of noise
    expect(heap[frames - 1] - heap[1000]).toBeLessThan(1e6);
  });
});
