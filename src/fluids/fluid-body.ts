import type { World } from '../core/world.js';

/** Which other bodies the fluid interacts with. */
export type FluidCoupling = 'all' | 'none' | string[];

/**
 * What a fluid's constraint sets (density.ts, contacts.ts) read of their
 * body: its range of the store, its parameters, its emitters. `Fluid`
 * (fluid.ts) implements it; the sets depend on this interface rather than
 * on fluid.ts, so that fluid.ts can build them without an import cycle.
 */
export interface FluidBody {
  readonly name: string;
  /** The world the fluid lives in (its attachments and bodies). */
  readonly world: World;
  /** First store index of the range (fluid slots, then boundary particles). */
  readonly offset: number;
  /** Active fluid particles (slots 0 … activeCount − 1). */
  readonly activeCount: number;
  /** Fluid particles the range can hold. */
  readonly capacity: number;
  /** Store index of the first static boundary particle, and how many there are. */
  readonly boundaryOffset: number;
  readonly boundaryCount: number;
  /** Particle spacing d, rest density ρ0, kernel radius h, particle mass m and contact radius d/2. */
  readonly spacing: number;
  readonly restDensity: number;
  readonly kernelRadius: number;
  readonly particleMass: number;
  readonly particleRadius: number;
  /** Σ_j |∇_{p_j} C_i|² inside a rest lattice (m⁻²). */
  readonly restGradientSquared: number;
  /** Neighbours of a particle inside a rest lattice. */
  readonly restNeighbours: number;
  readonly relaxation: number;
  readonly unilateral: boolean;
  readonly artificialPressureK: number;
  readonly artificialPressureN: number;
  readonly artificialPressureDeltaQ: number;
  readonly viscosity: number;
  readonly vorticity: number;
  readonly couple: FluidCoupling;
  readonly emitters: readonly unknown[];
  /** Particle id of each slot and slot of each id (Fluid.ids, slotOf): permute moves them, the pool too. */
  readonly ids: Int32Array;
  readonly slotOf: Int32Array;
  /** Runs the emitters at `time`; returns how many particles they added. */
  emit(time: number): number;
  /** Reorders the active range by `order` (store indices), see Fluid.permute (`pooled`: what the pool did already). */
  permute(order: Int32Array, scratch: Float64Array, scratchInt: Int32Array, pooled?: number): void;
}
