/**
 * The surgical thread (000 §6, after Kubiak et al.): a Cosserat thread,
 * straight at rest, tied into a loose overhand knot and pulled tight by two
 * kinematic grippers (clamped end segments moving apart). Its segments
 * collide as capsules (SegmentContacts); an independent check
 * (collision-check.ts) watches every substep for segment pairs passing
 * through each other.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enableCollisions, loadScene, Motion, overhandKnot, Strands, World } from '../src/index.js';
import { watchStrands } from './collision-check.js';

const lengthOf = (x: Float64Array, from: number, n: number): number => {
  let len = 0;
  for (let i = from + 1; i < from + n; i++)
    len += Math.hypot(x[3 * i] - x[3 * i - 3], x[3 * i + 1] - x[3 * i - 2], x[3 * i + 2] - x[3 * i - 1]);
  return len;
};

/**
 * An overhand knot in a 1 mm thread, in the air (the knot, not the thread's
 * sag under gravity between the grippers), held by two grippers: each holds
 * an end segment (position and orientation) and pulls at 4 cm/s for 1 s.
 */
function pulledKnot(r: number): { world: World; thread: Strands; n: number; pts: number[] } {
  const pts = overhandKnot({ size: 0.004, tail: 0.05, segment: 0.002 });
  const n = pts.length / 3;
  const world = new World({ dt: 1 / 60, substeps: 20, iterations: 2, damping: 0.5, gravity: [0, 0, 0] });
  const thread = new Strands(world, {
    positions: pts,
    strandStart: [0, n],
    radius: r,
    pinRoots: false,
    rod: { youngsModulus: 1e6, density: 1100, restShape: 'straight', extensible: false, damping: 0.05 },
  });
  thread.clamp(0, new Motion({ velocity: [-0.04, 0, 0], end: 1 }));
  thread.clamp(n - 2, new Motion({ velocity: [0.04, 0, 0], end: 1 }));
  return { world, thread, n, pts };
}

describe('surgical thread', () => {
  it('an overhand knot pulled tight by grippers: no pass-through, and it stays tied', () => {
    const r = 0.001;
    const { world, thread, n, pts } = pulledKnot(r);
    const contacts = enableCollisions(world, { friction: 0.2 }).add(thread);
    const check = watchStrands(world, [thread]);
    const x = world.store.x;
    const off = thread.offset;
    const D = 2 * r;
    // length taken up by the knot: thread length minus the grippers' distance, in diameters
    const consumed = (): number =>
      (lengthOf(x, off, n) -
        Math.hypot(
          x[3 * off] - x[3 * (off + n - 1)],
          x[3 * off + 1] - x[3 * (off + n - 1) + 1],
          x[3 * off + 2] - x[3 * (off + n - 1) + 2],
        )) /
      D;
    const loose = consumed();
    for (let f = 0; f < 60; f++) world.step();
    const pulled = consumed();
    for (let f = 0; f < 15; f++) world.step();
    const held = consumed();
    // no segment pair went through another in any substep, and no two centrelines came closer than the radii
    expect(check.substeps).toBe(75 * 20);
    expect(check.crossings).toBe(0);
    expect(check.minGap).toBeGreaterThan(0.95);
    // tightened: the knot gave up more than half of its loose length to the tails …
    expect(loose).toBeGreaterThan(50);
    expect(pulled).toBeLessThan(0.5 * loose);
    // … and is still tied: it keeps a knot's worth of thread (an untied thread would take up ~0), in contact with itself
    expect(pulled).toBeGreaterThan(10);
    expect(Math.abs(held - pulled)).toBeLessThan(0.1 * pulled);
    expect(contacts.segments.count).toBeGreaterThan(10);
    // the thread is nearly inextensible while pulled tight (a few per cent, from one Gauss–Seidel sweep)
    expect(lengthOf(x, off, n) / lengthOf(Float64Array.from(pts), 0, n)).toBeLessThan(1.08);
  });

  it('scenes/strands-knot: an open overhand loop tied tight by keyframed grippers, and it holds', () => {
    const file = 'scenes/strands-knot.json';
    const scene = loadScene(readFileSync(file, 'utf8'), { file });
    const { world } = scene;
    const thread = scene.bodies[0] as Strands;
    const check = watchStrands(world, [thread]);
    const x = world.store.x;
    const off = thread.offset;
    const n = thread.count;
    const D = 2 * world.store.radius[off];
    const e2e = (): number =>
      Math.hypot(
        x[3 * off] - x[3 * (off + n - 1)],
        x[3 * off + 1] - x[3 * (off + n - 1) + 1],
        x[3 * off + 2] - x[3 * (off + n - 1) + 2],
      );
    const straight = lengthOf(x, off, n);
    // the loop's extent: the thread it takes up (its length minus the grippers' distance), in diameters
    const loop = (): number => (lengthOf(x, off, n) - e2e()) / D;
    const open = loop();
    // the grippers pull for 1.5 s (90 frames), then hold for 0.5 s
    for (let f = 0; f < 90; f++) world.step();
    const pulled = loop();
    for (let f = 90; f < scene.frames; f++) world.step();
    const held = loop();
    // no pair of segments went through each other in any substep, and no two centrelines came within 0.9 × 2r
    expect(check.substeps).toBe(scene.frames * 20);
    expect(check.crossings).toBe(0);
    expect(check.minGap).toBeGreaterThanOrEqual(0.9);
    // it starts open (the loop takes up more than 80 diameters) and closes to less than a third of that …
    expect(open).toBeGreaterThan(80);
    expect(pulled).toBeLessThan(open / 3);
    // … and stays tied: the ends are clamped and nothing passed through, so the crossing cannot come undone;
    // the knot keeps a tight knot's worth of thread (the ends stay > 8 D short of the straight length) while held
    expect(e2e()).toBeLessThan(straight - 8 * D);
    expect(held).toBeGreaterThan(8);
    expect(Math.abs(held - pulled)).toBeLessThan(0.15 * pulled);
    // the thread is nearly inextensible while pulled tight
    expect(lengthOf(x, off, n) / straight).toBeLessThan(1.08);
  });

  it('the same pull without contacts lets the thread pass through itself (the check can fail)', () => {
    const { world, thread } = pulledKnot(0.001);
    const check = watchStrands(world, [thread]);
    for (let f = 0; f < 30; f++) world.step();
    expect(check.crossings).toBeGreaterThan(0);
  });
});
