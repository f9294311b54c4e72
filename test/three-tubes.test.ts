/** The three.js adapter's tubes (src/three/body-tubes.ts): one cylinder per segment, between its particles, of their radius. */
import { Matrix4, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { BodyTubes } from '../src/three/body-tubes.js';
import type { BodySource, StoreSource } from '../src/three/sources.js';

describe('strands drawn as tubes', () => {
  it('places each segment at its midpoint, along it, as long as it and as thick as its particles', () => {
    const x = new Float64Array([9, 9, 9, 0, 0, 0, 0, 2, 0, 3, 2, 0]);
    const radius = new Float64Array([0, 0.01, 0.01, 0.02]);
    const store = { x, v: x, mass: x, invMass: x, radius, version: 0, count: 4 } as unknown as StoreSource;
    const body: BodySource = {
      offset: 1,
      count: 3,
      activeCount: 3,
      topologyVersion: 0,
      renderTriangles: () => new Uint32Array(0),
      renderLines: () => new Uint32Array([0, 1, 1, 2]),
      renderPositions: () => new Float64Array(0),
    } as unknown as BodySource;
    const tubes = new BodyTubes(body, { store });
    expect(tubes.count).toBe(2);
    // the picking map: instance s is the segment between these particles of the body
    expect(tubes.segment(1)).toEqual([1, 2]);
    const m = new Matrix4();
    const p = new Vector3();
    const q = new Quaternion();
    const s = new Vector3();
    tubes.getMatrixAt(0, m);
    m.decompose(p, q, s);
    expect(p.toArray()).toEqual([0, 1, 0].map((v) => expect.closeTo(v, 6)));
    expect(s.toArray()).toEqual([0.01, 2, 0.01].map((v) => expect.closeTo(v, 6)));
    tubes.getMatrixAt(1, m);
    m.decompose(p, q, s);
    expect(p.toArray()).toEqual([1.5, 2, 0].map((v) => expect.closeTo(v, 6)));
    expect(s.toArray()).toEqual([0.02, 3, 0.02].map((v) => expect.closeTo(v, 6)));
    // the cylinder's axis (y) turned onto the segment (+x)
    expect(new Vector3(0, 1, 0).applyQuaternion(q).toArray()).toEqual(
      [1, 0, 0].map((v) => expect.closeTo(v, 6)),
    );
    // follows the particles
    x[10] = 4;
    tubes.update();
    tubes.getMatrixAt(1, m);
    m.decompose(p, q, s);
    expect(p.y).toBeCloseTo(3, 5);
    expect(s.y).toBeCloseTo(Math.hypot(3, 2), 5);
  });
});
