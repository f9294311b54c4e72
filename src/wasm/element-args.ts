/**
 * The arguments of element-threads.ts's 'element-wasm' task, shared by the
 * calling thread and the pool's workers (moved out of element-threads.ts,
 * session 21, to keep it under 800 lines).
 */
import type { JointArgs } from './element-order.js';

/** The arguments of the 'element-wasm' task: numbers and shared arrays, the module and its shared memory. */
export interface ElementArgs {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  /** OP, KERNEL, FIRST (the colour's first group), EPOCH. */
  par: Float64Array;
  /** The fused sweep's tables, forward and backward (element-order.ts), empty when it does not fit one job. */
  fused: Int32Array;
  fusedBack: Int32Array;
  /** Per block of a fused sweep: the EPOCH of the last sweep in which it finished. */
  done: Int32Array;
  /** Per block of a fused sweep run in parts: the EPOCH of the last sweep in which a thread claimed it. */
  claim: Int32Array;
  /** The fused sweep's blocks by part (`partTable`), forward and backward. */
  parts: Int32Array;
  partsBack: Int32Array;
  uniforms: Float64Array;
  /** Per block of a colour: how many constraints it deferred. */
  listed: Int32Array;
  /** Particles of the window copied in [0] and out [1] so far (by the blocks that copy: the tests count them). */
  moved: Int32Array;
  /** The store's positions and inverse masses (shared). */
  p: Float64Array;
  w: Float64Array;
  /** The store's positions and velocities at the substep's start (shared; the velocity update in the copy-out blocks, UPDATE). */
  x: Float64Array;
  v: Float64Array;
  /** Per block of a fused sweep: the velocity update's recoveries and speed clamps (UPDATE), and its parameters. */
  counts: Int32Array;
  pass: Float64Array;
  /** The pins' placements the copy-in blocks write after their prediction (window-predict.ts; 4 numbers each). */
  places: Float64Array;
  /** aos4: the window's f64 velocities and count area, their views (the fused particle pass, UPDATE 2). */
  velAt: number;
  countAt: number;
  V: Float64Array;
  C: Int32Array;
  /** The joint sweep with the next set on this window (JOINED), or null. */
  join: JointArgs<ElementArgs> | null;
  /** The process's per-thread sweep figures (element-order.ts fusedStats), written where TIMING is 1. */
  stats: Float64Array;
  idx: number;
  rec: number;
  el: number;
  scalar: number;
  lam: number;
  slow: number;
  blk: number;
  pAt: number;
  wAt: number;
  /** An f32 window as x y z w (paired.ts, ParticleWindow.aos4): its f64 staging. */
  aos4: number;
  stageAt: number;
  stageWAt: number;
  base: number;
  range: number;
  /** The set's constraints, and its groups (of `lanes` constraints). */
  count: number;
  pairs: number;
  lanes: number;
  arity: number;
  f32: number;
  /** f64 (by-id multipliers): 1 where the lanes' real constraint ids run 0, 1, …, count − 1 in group order (element-lambda.ts: a block's λ⁰ = 0 as one range). */
  idRuns: number;
  /** 1: p and w (the store's) lie in `memory` (homed: ParticleStore.memory), so an f64 window's copies are memory.copy. */
  homed: number;
}
