/**
 * Every constraint set that reports a violation says in which unit, so that
 * readouts and plots never mix metres with radians: checked on the sets of
 * every shipped scene (a new family's scene is checked as soon as it ships).
 */
import { describe, expect, it } from 'vitest';
import { loadShippedScene, sceneFiles } from '../scripts/shipped-scenes.js';

const files = sceneFiles();
const units = ['m', 'rad', 'm²', 'm³', 'relative'];

describe('violation units', () => {
  it('every set with maxViolation in every scene names its unit', () => {
    const missing: string[] = [];
    const seen = new Map<string, string>();
    for (const f of files) {
      const inst = loadShippedScene(f);
      for (const s of inst.world.sets) {
        if (!s.maxViolation) continue;
        if (!s.violationUnit || !units.includes(s.violationUnit)) missing.push(`${f}: ${s.kind}`);
        else {
          // one kind, one unit
          expect(seen.get(s.kind) ?? s.violationUnit, s.kind).toBe(s.violationUnit);
          seen.set(s.kind, s.violationUnit);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(seen.get('stretch')).toBe('m');
    expect(seen.get('dihedral-bending')).toBe('rad');
    expect(seen.get('fluid-density')).toBe('relative');
  });
});
