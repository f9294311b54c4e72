import { readFileSync } from 'node:fs';
import { loadScene } from '../../src/index.js';
import type { BenchCase } from '../harness.js';

/** A scene file as a benchmark: its world stepped frame by frame. */
function scene(file: string): () => { step(): void; info: string } {
  return () => {
    const url = new URL(`../../../scenes/${file}`, import.meta.url); // lib/bench/cases → scenes
    const inst = loadScene(readFileSync(url, 'utf8'), { file });
    return {
      step: () => inst.world.step(),
      info: `${inst.world.store.count} particles, ${inst.world.rigids.count} rigid bodies`,
    };
  };
}

export const cases: BenchCase[] = [
  {
    name: 'cloth-rigid-tear',
    description:
      '003 Figure 10 (scenes/rigid-tear.json): a 32 × 32 sheet torn by an attached rigid cube and a thrown rigid ball, coupled two ways, 10 substeps, the first 2 s',
    setup: scene('rigid-tear.json'),
    steps: 120,
    warmup: 0,
    target: { msPerStep: 10, reference: 'issue 17' },
  },
];
