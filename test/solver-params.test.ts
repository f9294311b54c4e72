import { describe, expect, it } from 'vitest';
import { PbdError } from '../src/core/errors.js';
import { ProjectionRule } from '../src/core/solver.js';

function thrown(f: () => unknown): PbdError {
  try {
    f();
  } catch (e) {
    if (e instanceof PbdError) return e;
    throw e;
  }
  throw new Error('no PbdError thrown');
}

describe('ProjectionRule parameters', () => {
  it('takes finite non-negative compliance and damping', () => {
    const r = new ProjectionRule({ stiffness: 0.5, compliance: 1e-6, damping: 0.2 }, 'bend');
    expect([r.stiffness, r.compliance, r.damping]).toEqual([0.5, 1e-6, 0.2]);
  });

  it('names the field and the fix of a bad compliance or damping', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const c = thrown(() => new ProjectionRule({ compliance: bad }, 'bend'));
      expect([c.code, c.where, c.detail]).toEqual([
        'params/compliance-range',
        'bend.compliance',
        `compliance must be a finite number ≥ 0, got ${bad}`,
      ]);
      expect(c.hint).toBe('compliance is 1/stiffness in SI units; 0 means rigid');
      const d = thrown(() => new ProjectionRule({ damping: bad }, 'stretch'));
      expect([d.code, d.where, d.detail, d.hint]).toEqual([
        'params/damping-range',
        'stretch.damping',
        `damping must be a finite number ≥ 0, got ${bad}`,
        '',
      ]);
    }
  });
});
