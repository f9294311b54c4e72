/** The gallery's simulation core with rigid bodies (web/src/sim/core.ts): drawn as colliders, dragged and thrown. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
});
