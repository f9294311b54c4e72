/** The gallery's simulation core with rigid bodies (web/src/sim/core.ts): drawn as colliders, dragged and thrown. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { quatRotate, quatRotateInverse } from '../src/math/quat.js';
import { SimCore } from '../web/src/sim/core.js';

describe('rigid bodies in the gallery core', () => {
  it('draws the ball of rigid-drum as a moving collider, drags it up to the target and throws it', () => {
    const core = new SimCore();
    const text = readFileSync(new URL('../scenes/rigid-drum.json', import.meta.url), 'utf8');
    const info = core.load(text, 'rigid-drum.json', {}, false);
    const k = info.colliders.findIndex((c) => c.rigid >= 0);
    expect(k).toBeGreaterThanOrEqual(0);
    expect(info.colliders[k].kinematic).toBe(true);
    let f = core.step(60, 1e9);
    const y0 = f.colliderPoses[7 * k + 1];
    // grab the ball's centre and pull it 0.4 m up, with the gallery's default pull
    const p: [number, number, number] = [f.colliderPoses[7 * k], y0, f.colliderPoses[7 * k + 2]];
    expect(core.grabRigid(k, p, 1)).toBe(true);
    core.dragTo([p[0], y0 + 0.4, p[2]]);
    f = core.step(60, 1e9);
    expect(f.colliderPoses[7 * k + 1]).toBeCloseTo(y0 + 0.4, 2);
    core.releaseParticle();
    // thrown sideways at 3 m/s: it flies off the skin
    expect(core.throwRigid(k, [3, 0, 0])).toBe(true);
    const x0 = f.colliderPoses[7 * k];
    f = core.step(6, 1e9);
    expect(f.colliderPoses[7 * k] - x0).toBeGreaterThan(0.2);
    // the skin (a collider that is no rigid body) cannot be grabbed as one
    expect(
      core.grabRigid(
        info.colliders.findIndex((c) => c.rigid < 0),
        p,
        1,
      ),
    ).toBe(false);
    expect(f.speedClamps + f.recoveries).toBe(0);
  });

  it('grabs the point picked on the drawn pose when the world has stepped past it', () => {
    // The page picks on the frame it drew while a worker may have stepped on: the grab names the
    // picked point in the body's frame of the drawn pose, and that body point is what follows the
    // cursor (test/browser/rigid.test.ts measures the same on the page).
    const core = new SimCore();
    const text = readFileSync(new URL('../scenes/rigid-drum.json', import.meta.url), 'utf8');
    const info = core.load(text, 'rigid-drum.json', {}, false);
    const k = info.colliders.findIndex((c) => c.rigid >= 0);
    const drawn = core.step(20, 1e9).colliderPoses.slice(7 * k, 7 * k + 7);
    const r = 0.08; // scenes/rigid-drum.json
    // the top of the ball as drawn, in world and in the drawn pose's frame
    const picked: [number, number, number] = [drawn[0], drawn[1] + r, drawn[2]];
    const local = [0, 0, 0];
    quatRotateInverse(local, 0, drawn, 3, 0, r, 0);
    // the world steps one frame past the drawn one: the ball falls ~5 cm in it
    const ahead = core.step(1, 1e9).colliderPoses.slice(7 * k, 7 * k + 7);
    const worldPoint = (pose: Float64Array, l: number[]) => {
      const a = [0, 0, 0];
      quatRotate(a, 0, pose, 3, l[0], l[1], l[2]);
      return [pose[0] + a[0], pose[1] + a[1], pose[2] + a[2]];
    };
    // the body point under `picked` at the world's pose is another point of the ball (the top's
    // neighbourhood moved down): a grab by the world point alone would hold that one
    const under = [0, 0, 0];
    quatRotateInverse(under, 0, ahead, 3, picked[0] - ahead[0], picked[1] - ahead[1], picked[2] - ahead[2]);
    expect(Math.hypot(under[0] - local[0], under[1] - local[1], under[2] - local[2])).toBeGreaterThan(0.03);
    expect(core.grabRigid(k, picked, 1, local as [number, number, number])).toBe(true);
    const target: [number, number, number] = [picked[0], picked[1] + 0.3, picked[2]];
    core.dragTo(target);
    const held = core.step(90, 1e9).colliderPoses.slice(7 * k, 7 * k + 7);
    const p = worldPoint(held, local);
    // pull 1 is a hard constraint: the picked point reaches the target (20 substeps, the ball hangs
    // from it); the centre hangs a radius below it
    expect(Math.hypot(p[0] - target[0], p[1] - target[1], p[2] - target[2])).toBeLessThan(2e-3);
    expect(Math.hypot(held[0] - target[0], held[1] - (target[1] - r), held[2] - target[2])).toBeLessThan(
      0.01,
    );
  });
});
