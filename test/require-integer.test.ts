import { describe, expect, it } from 'vitest';
import { MeshCollider } from '../src/collision/mesh-collider.js';
import { PbdError, requireIntegerIn } from '../src/core/errors.js';
import { icosphere } from '../src/mesh/generators.js';
import { tetrahedralize } from '../src/softbody/tetrahedralize.js';
import { thrown } from './helpers.js';

describe('requireIntegerIn (the mesh collider’s and tetrahedralize’s resolution checks)', () => {
  it('accepts the bounds and rejects fractions, NaN and values outside', () => {
    expect(() => requireIntegerIn(4, 4, 512, 'x/y', 'w')).not.toThrow();
    expect(() => requireIntegerIn(512, 4, 512, 'x/y', 'w')).not.toThrow();
    for (const v of [3, 513, 4.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => requireIntegerIn(v, 4, 512, 'x/y', 'w')).toThrow(PbdError);
    }
  });

  it('keeps each caller’s code, place and message', () => {
    const a = thrown(() => new MeshCollider({ mesh: icosphere(1, 1), resolution: 3.5 }));
    expect([a.code, a.message]).toEqual([
      'collider/invalid',
      'mesh collider.resolution: must be an integer in 4…512, got 3.5',
    ]);
    const b = thrown(() => tetrahedralize(icosphere(1, 1), { resolution: 500 }));
    expect([b.code, b.message]).toEqual([
      'tetrahedralize/resolution',
      'tetrahedralize.resolution: must be an integer in 1…200, got 500',
    ]);
  });
});
