/** The three.js adapter's rigid bodies (src/three/rigid-bodies.ts): shape in the body frame, pose from the store. */
import { Box3, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { World } from '../src/core/world.js';
import { RigidBody } from '../src/rigid/rigid-body.js';
import { createRigidBodyObject, updateRigidBodyObject } from '../src/three/rigid-bodies.js';

describe('rigid bodies in three.js', () => {
  it('draws a box and a convex hull at their store poses, and follows them', () => {
    const world = new World({ gravity: [0, 0, 0] });
    const box = new RigidBody(world, {
      shape: { type: 'box', halfExtents: [0.3, 0.2, 0.1] },
      position: [1, 2, 3],
      rotation: [30, 0, 10],
      velocity: [1, 0, 0],
      angularVelocity: [0, 2, 0],
    });
    // the hull of a 0.4 × 0.2 × 0.6 box's corners, off its origin
    const pts: number[] = [];
    for (let c = 0; c < 8; c++) pts.push(c & 1 ? 0.7 : 0.3, c & 2 ? 0.1 : -0.1, c & 4 ? 0.3 : -0.3);
    const hull = new RigidBody(world, { shape: { type: 'convex', points: pts }, position: [0, 1, 0] });
    const a = createRigidBodyObject(box)!;
    const b = createRigidBodyObject(hull)!;
    a.geometry.computeBoundingBox();
    expect(a.geometry.boundingBox!.getSize(new Vector3()).toArray()).toEqual(
      [0.6, 0.4, 0.2].map((v) => expect.closeTo(v, 6)),
    );
    // the hull is drawn in its principal frame about its centre of mass, placed where the points were
    b.updateMatrixWorld();
    const world3 = new Box3().setFromObject(b);
    expect(world3.min.toArray()).toEqual([0.3, 0.9, -0.3].map((v) => expect.closeTo(v, 6)));
    expect(world3.max.toArray()).toEqual([0.7, 1.1, 0.3].map((v) => expect.closeTo(v, 6)));
    for (let k = 0; k < 30; k++) world.step();
    updateRigidBodyObject(a, box);
    const c = box.centerOfMass();
    expect(a.position.toArray()).toEqual(Array.from(c));
    const q = world.rigids.q.subarray(4 * box.index, 4 * box.index + 4);
    expect(a.quaternion.toArray()).toEqual(Array.from(q));
    expect(c[0]).toBeCloseTo(1.5, 6);
  });
});
