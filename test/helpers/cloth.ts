/**
 * The README's cloth, for the tests that need a plain cloth that swings: an
 * n × n grid in the xz plane, inextensible (XPBD, stretch compliance 0) with
 * soft dihedral bending, hung from the two corners of its first row.
 */
import { Cloth, gridMesh, type World } from '../../src/index.js';

export interface HangingClothOptions {
  /** Side of the square (m); default 2. */
  size?: number;
  /** kg/m²; default 0.2. */
  density?: number;
  /** Bending compliance; default 0.05. */
  bend?: number;
}

export function hangingCloth(world: World, n: number, options: HangingClothOptions = {}): Cloth {
  const size = options.size ?? 2;
  const cloth = new Cloth(world, {
    mesh: gridMesh({ width: size, height: size, cols: n, rows: n }),
    density: options.density ?? 0.2,
    stretch: { compliance: 0 },
    bend: { compliance: options.bend ?? 0.05 },
  });
  cloth.pin(0);
  cloth.pin(n);
  return cloth;
}

/** A 1 m square n × n grid in the xz plane (the tests' contact sheet), with soft bending (compliance 1). */
export function flatCloth(world: World, n: number, density: number): Cloth {
  return new Cloth(world, {
    mesh: gridMesh({ width: 1, height: 1, cols: n, rows: n, plane: 'xz' }),
    density,
    bend: { compliance: 1 },
  });
}
