import {
  buildPaths,
  icosphere,
  Lattice,
  LatticeSummation,
  meshAdjacency,
  NaiveSummation,
  OctreeSummation,
  PathSummation,
  type RegionSummation,
  ringRegions,
} from '../../src/index.js';
import { type BenchCase, sceneSetup } from '../harness.js';
import { ballOctree } from '../scenes.js';

/**
 * Fast summation against naive region sums (survey 000 §4.3): one "step" is
 * what one shape-matching projection sums — a gather of the 12 per-particle
 * values into every region and a scatter of 12 per-region values back to
 * every particle. The naive cost grows with the region size (ω³ on a
 * lattice, ω² on a mesh); FastLSM and the octree stay flat, mesh paths grow
 * like ω. The octree cases give every particle the width k × its own cell
 * size (k = 1.5, 3, 5); a region is resolved at the octree level whose cells
 * are the largest not wider than its width, so it has at most 64 summation
 * nodes (here 13–14 on average) whatever k is, while its members, and the
 * naive cost, grow about as k³ (see src/shape-matching/octree.ts).
 */
function sums(make: () => RegionSummation): () => { step(): void; info: string } {
  return () => {
    const s = make();
    const S = 12;
    const pv = new Float64Array(S * s.particles).map((_, k) => Math.sin(k));
    const rv = new Float64Array(S * s.regions).map((_, k) => Math.cos(k));
    const out1 = new Float64Array(S * s.regions),
      out2 = new Float64Array(S * s.particles);
    let members = 0;
    if (s instanceof NaiveSummation) members = s.memberIndex.length;
    const terms =
      s instanceof OctreeSummation ? `, ${s.nodesPerRegion.toFixed(1)} summation nodes per region` : '';
    return {
      step: () => {
        s.gather(pv, out1, S);
        s.scatter(rv, out2, S);
      },
      info: `${s.kind}: ${s.particles} particles, ${s.regions} regions${members ? `, ${(members / s.regions).toFixed(1)} members per region` : ''}${terms}`,
    };
  };
}

// a 24³-node block minus a spherical cavity (≈ 12,000 particles)
const lattice = Lattice.fromInside(
  [0, 0, 0],
  [2.3, 2.3, 2.3],
  0.1,
  (x, y, z) => Math.hypot(x - 1.15, y - 1.15, z - 1.15) > 0.5,
);
// an octree over a ball: fine at the surface, coarse inside
const tree = ballOctree();
const mesh = icosphere(1, 5); // 10,242 vertices
const adj = meshAdjacency(mesh.positions.length / 3, mesh.triangles);
const paths = buildPaths(mesh.positions, adj);

const latticeCases: BenchCase[] = [1, 2, 3, 4].flatMap((w) => [
  {
    name: `sm-sum-lattice-naive-w${w}`,
    description: `naive region sums over lattice cubes of half-width ${w}`,
    setup: sums(() => NaiveSummation.of(new LatticeSummation(lattice, w))),
    steps: 20,
    warmup: 3,
  },
  {
    name: `sm-sum-lattice-fast-w${w}`,
    description: `FastLSM (bars, plates, cubes) over lattice cubes of half-width ${w}`,
    setup: sums(() => new LatticeSummation(lattice, w)),
    steps: 20,
    warmup: 3,
  },
]);

const octreeCases: BenchCase[] = [1.5, 3, 5].flatMap((k) => {
  const widths = tree.cellSizes().map((s) => k * s);
  return [
    {
      name: `sm-sum-octree-naive-x${k}`,
      description: `naive sums over octree regions of width ${k}× the cell size`,
      setup: sums(() => NaiveSummation.of(new OctreeSummation(tree, widths))),
      steps: 20,
      warmup: 3,
    },
    {
      name: `sm-sum-octree-fast-x${k}`,
      description: `octree summation nodes, regions of width ${k}× the cell size`,
      setup: sums(() => new OctreeSummation(tree, widths)),
      steps: 20,
      warmup: 3,
    },
  ];
});

const meshCases: BenchCase[] = [1, 2, 4, 6].flatMap((w) => {
  const lists = () => ringRegions(adj, w);
  const n = mesh.positions.length / 3;
  return [
    {
      name: `sm-sum-mesh-naive-r${w}`,
      description: `naive sums over the ${w}-rings of a 10,242-vertex sphere`,
      setup: sums(() => NaiveSummation.fromLists(n, lists())),
      steps: 20,
      warmup: 3,
    },
    {
      name: `sm-sum-mesh-paths-r${w}`,
      description: `disjoint paths with prefix sums over the ${w}-rings`,
      setup: sums(() => new PathSummation(n, lists(), paths.order, paths.pathStart)),
      steps: 20,
      warmup: 3,
    },
  ];
});

const scene = (file: string) =>
  sceneSetup(file, (inst) => `${inst.world.store.count} particles, ${inst.bodies.length} bodies`);

const sceneCases: BenchCase[] = [
  ['sm-scene-ducks', 'shape-matching-ducks.json', 'Figure 14: six lattice bodies (FastLSM) in a pile'],
  [
    'sm-scene-squeeze',
    'shape-matching-squeeze.json',
    'Figure 20: four surface spheres with volume conservation',
  ],
  ['sm-scene-plants', 'shape-matching-plants.json', 'Figure 18: oriented-particle plants and fins'],
  [
    'sm-scene-cloth',
    'shape-matching-cloth.json',
    'Figure 21: three 25 × 25 shape-matching cloths, 1/2/4 levels',
  ],
  ['sm-scene-plastic', 'shape-matching-plastic.json', 'plastic block dented by rigid-cluster balls'],
].map(([name, file, description]) => ({ name, description, setup: scene(file), steps: 60, warmup: 60 }));

export const cases: BenchCase[] = [...latticeCases, ...octreeCases, ...meshCases, ...sceneCases];
