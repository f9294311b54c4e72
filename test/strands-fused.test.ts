/**
 * The fused strand pass (src/strands/fused-pass.ts): a hair-only world's
 * substep run strand block by strand block gives the pipeline's numbers bit
 * for bit, runs only where its plan holds, and keeps FTL's exact lengths.
 */
import { describe, expect, it } from 'vitest';
import { headOfHair, headSway } from '../bench/scenes.js';
import { findColliderContacts } from '../src/collision/collider-contacts.js';
import { Cloth, gridMesh, Motion, PlaneCollider, SphereCollider, World } from '../src/index.js';
import { FusedStrandPass, fusedStrandSystem } from '../src/strands/fused-pass.js';

interface HairCase {
  substeps?: number;
  iterations?: number;
  maxStretch?: number;
  damping?: number;
  /** Head centre: y 1.6 by default; inside the hair's roots puts particles deep inside. */
  headY?: number;
  friction?: number;
  /** ColliderContacts.maxDepenetrationSpeed (m/s). */
  depenetration?: number;
  /** A soft attachment (the gallery's drag) on a strand's tip from step 20 on. Default true. */
  drag?: boolean;
  /** Substeps expected to run as one pass over the blocks (FusedStrandPass.ranOnePass). */
  onePass?: number;
  /** Threads of the fused world (the calling thread runs the pass); the pipeline's world has one. */
  threads?: number;
  /** Particles of three radii (the contacts then read each particle's; otherwise all share one). */
  radii?: boolean;
  /**
   * The roots turn about a centre off the head's and sway (the head's own motion a sway only, so
   * that its contacts stay the kernels'): one pass takes their targets from rootTargets, not from
   * Attachments.beginStep (FusedStrandPass.rootsAlone).
   */
  spin?: boolean;
}

function hair(fused: boolean, o: HairCase = {}) {
  const world = new World({
    dt: 1 / 60,
    substeps: o.substeps ?? 2,
    iterations: o.iterations ?? 1,
    threads: fused ? (o.threads ?? 1) : 1,
  });
  const motion = headSway;
  const head = world.addCollider(
    new SphereCollider({
      radius: 0.1,
      position: [0, o.headY ?? 1.6, 0],
      friction: o.friction ?? 0.3,
      restitution: 0.5,
      motion,
    }),
  );
  // strands of different lengths, so that the blocks and the contacts' cursor meet uneven strands
  const body = headOfHair(
    world,
    { count: 150, segments: 7, length: 0.25 },
    { damping: o.damping ?? 0.9, maxStretch: o.maxStretch ?? 1 },
    o.spin
      ? new Motion({ spin: { axis: [0.3, 1, 0.2], speed: 1.7, center: [0.02, 1.55, -0.01] }, ...motion })
      : (head.motion ?? new Motion(motion)),
  );
  if (o.radii)
    for (let j = 0; j < body.count; j++) world.store.radius[body.offset + j] = 0.002 * (1 + (j % 3));
  if (o.depenetration !== undefined) findColliderContacts(world)!.maxDepenetrationSpeed = o.depenetration;
  const pass = world.system(fusedStrandSystem);
  pass.enabled = fused;
  return { world, body, pass };
}

function differing(a: World, b: World): number {
  const n = 3 * a.store.count;
  let d = 0;
  for (let i = 0; i < n; i++) {
    if (!Object.is(a.store.x[i], b.store.x[i])) d++;
    if (!Object.is(a.store.v[i], b.store.v[i])) d++;
  }
  return d;
}

describe('the fused strand pass', () => {
  it.each<[string, HairCase]>([
    [
      '1 substep × 1 iteration (hair-10k): one pass over the blocks',
      { substeps: 1, drag: false, onePass: 60 },
    ],
    ['1 substep, maxStretch 1.05: one pass', { substeps: 1, drag: false, maxStretch: 1.05, onePass: 60 }],
    ['1 substep, particles of three radii: one pass', { substeps: 1, drag: false, radii: true, onePass: 60 }],
    ['1 substep with a drag from step 20: one pass until then', { substeps: 1, onePass: 20 }],
    ['2 substeps × 3 iterations', { substeps: 2, iterations: 3 }],
    ['maxStretch 1.05, plain FTL', { maxStretch: 1.05, damping: 0 }],
    ['no friction', { friction: 0 }],
    ['a head placed over the hair (particles deep inside)', { headY: 1.75, depenetration: 0.5 }],
    [
      '1 substep, roots on a turning motion: one pass, their targets from rootTargets',
      { substeps: 1, drag: false, onePass: 60, spin: true },
    ],
    [
      'a world on 2 threads: one pass on the calling thread',
      { substeps: 1, drag: false, onePass: 60, threads: 2 },
    ],
  ])('gives the pipeline numbers bit for bit: %s', async (_, o) => {
    const a = hair(false, o),
      b = hair(true, o);
    await b.world.threadsReady();
    // a soft attachment (the gallery's drag) on a strand's tip from step 20 on
    const tip = b.body.offset + 7;
    let deepSeen = 0;
    for (let s = 0; s < 60; s++) {
      if (s === 20 && o.drag !== false)
        for (const w of [a.world, b.world])
          w.attachments.attach(tip, { target: [0.2, 1.9, 0], compliance: 1e-4 });
      a.world.step();
      b.world.step();
      const cc = findColliderContacts(b.world)!;
      for (let k = 0; k < cc.count; k++) deepSeen += cc.deep[k];
    }
    expect(b.pass.ran).toBe(60 * (o.substeps ?? 2));
    expect(a.pass.ran).toBe(0);
    expect(b.pass.ranOnePass).toBe(o.onePass ?? 0);
    if (o.spin) expect(b.pass.rootsAlone).toBe(60);
    expect(differing(a.world, b.world)).toBe(0);
    // the contacts were real (the hair lies on the head) and the lengths exact
    expect(b.world.stats.recoveries).toBe(0);
    const cc = findColliderContacts(b.world)!;
    expect(cc.count).toBeGreaterThan(20);
    if (o.depenetration !== undefined) expect(deepSeen).toBeGreaterThan(0);
    if ((o.maxStretch ?? 1) === 1) expect(b.body.ftl!.maxViolation(b.world.store)).toBeLessThan(1e-9);
    b.world.dispose();
  });

  it('stands aside where its plan does not hold: another body, a plane, a second collider, BDF2', () => {
    const variants: ((w: World) => void)[] = [
      (w) => new Cloth(w, { mesh: gridMesh({ width: 0.2, height: 0.2, cols: 2, rows: 2 }), density: 0.1 }),
      (w) => w.addCollider(new PlaneCollider({ normal: [0, 1, 0], position: [0, 0, 0] })),
      (w) => w.addCollider(new SphereCollider({ radius: 0.05, position: [1, 0, 0] })),
      (w) => w.configure({ integrator: 'bdf2' }),
    ];
    for (const add of variants) {
      const { world, pass } = hair(true);
      world.step();
      expect(pass.ran).toBe(2);
      add(world);
      world.step();
      expect(pass.ran).toBe(2);
    }
  });

  it('is installed once per world by the strands with FTL', () => {
    const { world } = hair(true);
    expect(world.substepPasses.filter((p) => p instanceof FusedStrandPass)).toHaveLength(1);
  });
});
