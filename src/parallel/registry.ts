/**
 * The constraint set classes whose colour batches the worker pool projects
 * (src/parallel/): the element sets, whose `projectColorRange` runs their
 * generated JavaScript kernel on the store's arrays. Both sides import this
 * list; a set is sent to the workers by its index in it, and only a set
 * whose class is exactly one of these goes to the workers (others, and
 * subclasses, are projected on the calling thread).
 */
import { DihedralBending } from '../cloth/dihedral-bending.js';
import { contactBlocksTask } from '../collision/collider-contacts-blocks.js';
import { planeContactsTask } from '../collision/collider-contacts-planes.js';
import { broadBlocksTask } from '../collision/surface-broad-blocks.js';
import { broadPackTask } from '../collision/surface-broad-pack.js';
import { broadPairsTask, broadRebuildTask, broadUpdateTask } from '../collision/surface-broad-tasks.js';
import { narrowPairTask } from '../collision/surface-narrow-tasks.js';
import { untangleCrossingsTask } from '../collision/untangle-tasks.js';
import { DistanceConstraints } from '../constraints/distance.js';
import { TetVolumeConstraints, TriangleAreaConstraints } from '../constraints/volume.js';
import { IsometricBending } from '../continuum/isometric-bending.js';
import { TetFemConstraints } from '../continuum/tet-fem.js';
import { TriangleFemConstraints } from '../continuum/triangle-fem.js';
import type { ConstraintSet } from '../core/constraint-set.js';
import { predictTask, updateTask, zeroTask } from '../core/particle-tasks.js';
import { fluidGridTask } from '../fluids/grid-blocks.js';
import { fluidRowsTask } from '../fluids/row-blocks.js';
import { TriangleStrainLimits } from '../strain-limiting/triangle-limits.js';
import { ftlTask } from '../strands/follow-the-leader.js';
import { strandBlocksTask } from '../strands/strand-threads.js';
import { elementWasmTask } from '../wasm/element-threads.js';

// biome-ignore lint/suspicious/noExplicitAny: classes with different constructors
type SetClass = abstract new (...args: any[]) => ConstraintSet;

export const parallelSetClasses: readonly SetClass[] = [
  DistanceConstraints,
  DihedralBending,
  IsometricBending,
  TriangleFemConstraints,
  TetFemConstraints,
  TetVolumeConstraints,
  TriangleAreaConstraints,
  TriangleStrainLimits,
];

/**
 * The kernels of data-parallel tasks (StepContext.tasks) by name: each runs
 * block `block` = items [from, to) of a task with its shared arguments.
 */
/**
 * A task's block (or, for a task run in parts, a thread's share: it returns
 * the blocks it ran, which the pool counts as the workers' blocks).
 */
export type TaskKernel = (
  args: Record<string, unknown>,
  from: number,
  to: number,
  block: number,
) => number | undefined;

export const parallelTasks: Readonly<Record<string, TaskKernel>> = {
  'surface-broad-pairs': broadPairsTask as unknown as TaskKernel,
  'surface-broad-rebuild': broadRebuildTask as unknown as TaskKernel,
  'surface-broad-update': broadUpdateTask as unknown as TaskKernel,
  'surface-broad-blocks': broadBlocksTask as unknown as TaskKernel,
  'surface-broad-pack': broadPackTask as unknown as TaskKernel,
  'untangle-crossings': untangleCrossingsTask as unknown as TaskKernel,
  'surface-narrow-pair': narrowPairTask as unknown as TaskKernel,
  'fluid-rows': fluidRowsTask as unknown as TaskKernel,
  'follow-the-leader': ftlTask as unknown as TaskKernel,
  'element-wasm': elementWasmTask as unknown as TaskKernel,
  'collider-plane-contacts': planeContactsTask as unknown as TaskKernel,
  'particles-predict': predictTask as unknown as TaskKernel,
  'particles-update': updateTask as unknown as TaskKernel,
  'zero-f64': zeroTask as unknown as TaskKernel,
  'fluid-grid': fluidGridTask as unknown as TaskKernel,
  'collider-contacts-project': contactBlocksTask as unknown as TaskKernel,
  'strand-blocks': strandBlocksTask as unknown as TaskKernel,
};

/** Classes of other modules (registerParallelSet), after the built-in ones. */
const extra: { cls: SetClass; module: string; name: string }[] = [];

/**
 * Lets the worker pool project the colour batches of sets of a class defined
 * outside pbdkit: its `projectColorRange` must read only the set's own fields
 * and `ctx.store` (see mirror.ts). `module` is the URL of a module that
 * exports the class as `name` (usually `import.meta.url` of the class's own
 * module); each worker imports it.
 */
export function registerParallelSet(cls: SetClass, module: string, name = cls.name): void {
  if (!extra.some((e) => e.cls === cls)) extra.push({ cls, module, name });
}

/** The set's kind for the workers: its class's index (built-in first, then registered), or −1. */
export function parallelKind(set: ConstraintSet): number {
  const k = parallelSetClasses.indexOf(set.constructor as SetClass);
  if (k >= 0) return k;
  const e = extra.findIndex((x) => x.cls === set.constructor);
  return e < 0 ? -1 : parallelSetClasses.length + e;
}

/** Where a worker finds the class of a registered kind (kinds ≥ parallelSetClasses.length). */
export function kindModule(kind: number): { module: string; name: string } | null {
  const e = extra[kind - parallelSetClasses.length];
  return e ? { module: e.module, name: e.name } : null;
}
