import { Strands, World } from '../../src/index.js';
import type { BenchCase } from '../harness.js';
import { headOfHair, swayingHead } from '../scenes.js';

/**
 * hair-10k (issue 16): 10,000 strands × 16 segments of DFTL hair on a
 * swaying head sphere, colliding with it, 1/60 s frames in one step each (the DFTL paper takes one).
 * On `threads` threads the fused strand pass's blocks of strands run on the pool (src/strands/strand-threads.ts).
 */
function hair(strands: number, segments: number, substeps: number, threads = 1) {
  return () => {
    const world = new World({ dt: 1 / 60, substeps, iterations: 1, threads });
    const head = swayingHead(world);
    const body = headOfHair(world, { count: strands, segments, length: 0.3 }, { damping: 0.9 }, head.motion!);
    return {
      step: () => world.step(),
      world,
      projectionsPerStep: body.ftl!.count * substeps,
      info: `${body.count} particles, ${body.strands} strands × ${segments} segments`,
    };
  };
}

/**
 * rod-1k (issue 16): one Cosserat rod of 1,000 segments (1 m, 2 mm thick,
 * E = 1 GPa) clamped at one end and swinging under gravity, `substeps` of
 * one iteration per 1/60 s frame: stretch–shear and bend–twist projections
 * (Gauss–Seidel), or one direct solve of the rod per substep (`solver:
 * 'direct'`, Deul et al. 2018). The quality line is the segments' stretch
 * |ℓ/ℓ₀ − 1| after the timed frames.
 */
export function rod(segments: number, substeps: number, solver: 'gauss-seidel' | 'direct' = 'gauss-seidel') {
  return () => {
    const world = new World({ dt: 1 / 60, substeps, iterations: 1 });
    const positions: number[] = [];
    for (let j = 0; j <= segments; j++) positions.push(j / segments, 1, 0);
    const body = new Strands(world, {
      positions,
      strandStart: [0, segments + 1],
      radius: 0.001,
      rod: { youngsModulus: 1e9, density: 1100, solver },
    });
    const quality = () => {
      const x = world.store.x;
      let max = 0,
        sum = 0,
        finite = true;
      for (let j = 0; j < segments; j++) {
        const a = 3 * (body.offset + j);
        const l = Math.hypot(x[a + 3] - x[a], x[a + 4] - x[a + 1], x[a + 5] - x[a + 2]);
        const s = Math.abs(l / body.restLength[j + 1] - 1);
        if (!Number.isFinite(s)) finite = false;
        max = Math.max(max, s);
        sum += s;
      }
      return { maxStretch: max, meanStretch: sum / segments, finite };
    };
    return {
      quality,
      step: () => world.step(),
      projectionsPerStep: (body.stretchShear!.count + (body.bendTwist?.count ?? 0)) * substeps,
      info: `${body.count} particles, ${body.stretchShear!.count} stretch–shear and ${body.bendTwist?.count ?? 0} bend–twist constraints, ${solver}`,
    };
  };
}

export const cases: BenchCase[] = [
  {
    name: 'rod-1k',
    description:
      'one Cosserat rod of 1,000 segments, clamped, swinging under gravity; 10 substeps × 1 iteration a frame',
    setup: rod(1000, 10),
    steps: 200,
    warmup: 30,
    target: { msPerStep: 1, reference: 'issue 16' },
  },
  {
    name: 'rod-1k-direct',
    description:
      "rod-1k with the direct solver (rod.solver 'direct', Deul et al. 2018) at 1 substep × 1 iteration a frame: stiffer than the Gauss–Seidel rod at 10 (see the stretch line)",
    setup: rod(1000, 1, 'direct'),
    steps: 200,
    warmup: 30,
    target: { msPerStep: 1, reference: 'issue 16' },
  },
  {
    name: 'hair-10k',
    description:
      '10,000 DFTL strands × 16 segments (170,000 particles) on a swaying head sphere with contacts, one step per frame (as the DFTL paper)',
    setup: hair(10_000, 16, 1),
    setupThreads: (t) => hair(10_000, 16, 1, t)(),
    steps: 60,
    warmup: 30,
    target: { msPerStep: 8, reference: 'the DFTL paper: 47k strands at 25 fps on a GPU' },
  },
];
