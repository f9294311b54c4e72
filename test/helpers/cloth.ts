/**
 * The README's cloth, for the tests that need a plain cloth that swings: an
 * n × n grid in the xz plane, inextensible (XPBD, stretch compliance 0) with
 * soft dihedral bending, hung from the two corners of its first row.
 */
import { foldingSheet } from '../../bench/scenes.js';
import {
  Cloth,
  enableCollisions,
  gridMesh,
  PlaneCollider,
  World,
  type WorldOptions,
} from '../../src/index.js';

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

/** foldingCloth's sheets (bench/scenes.ts foldingSheet: size, cells, lift): the WebAssembly tests' and the thread tests'. */
const FOLDING_SHEETS = {
  '30x50': [[0.6, 1.0], [30, 50], 0.55],
  '40x60': [[0.8, 1.2], [40, 60], 0.65],
} as const;

/**
 * A cloth let go just above the ground (a plane, friction 0.6 unless `ground`
 * says otherwise): it folds onto itself (self collision on). The surface
 * broad and narrow phases' WebAssembly tests and the collision thread tests
 * step it; `world` overrides the step (1/60 s, 5 substeps).
 */
export function foldingCloth(
  threads = 1,
  sheet: keyof typeof FOLDING_SHEETS = '30x50',
  world: Partial<WorldOptions> = {},
  ground: ConstructorParameters<typeof PlaneCollider>[0] = { friction: 0.6 },
): World {
  const w = new World({ dt: 1 / 60, substeps: 5, damping: 0.2, threads, ...world });
  const [size, cells, lift] = FOLDING_SHEETS[sheet];
  const mesh = foldingSheet([...size], [...cells], lift, [0.03, 5]);
  const cloth = new Cloth(w, { mesh, density: 0.2, bend: { compliance: 0.5 } });
  w.addCollider(new PlaneCollider(ground));
  enableCollisions(w, { thickness: 0.006, friction: 0.4 }).add(cloth);
  return w;
}
