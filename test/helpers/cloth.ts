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

/**
 * hangingCloth(world, n) between free particles (`before` allocated before the cloth's, `after`
 * after them: its kernel window leaves them out), each of mass 1 and moving at its own speed.
 */
export function clothAmongFree(world: World, n: number, before: number, after: number): Cloth {
  const free = (count: number) => {
    const a = world.store.allocate(count, 0);
    for (let i = a; i < a + count; i++) {
      world.store.setMass(i, 1);
      world.store.x[3 * i] = 3 + 0.01 * i;
      world.store.v[3 * i + 2] = 0.1 * (i % 7);
    }
  };
  free(before);
  const cloth = hangingCloth(world, n);
  free(after);
  return cloth;
}
