/**
 * The WebAssembly module of the fluids, compiled by scripts/build-kernels.ts
 * into src/wasm/fluids.generated.ts: the pair passes, generated from their
 * one definition (src/fluids/pair-passes.rows.ts, into
 * wasm/pair-passes.generated.ts) together with the JavaScript functions
 * FluidDensity runs where WebAssembly is missing, so that both give the same
 * numbers bit for bit (test/fluids-wasm.test.ts); the neighbour search for
 * a body range in cell order, generated likewise from
 * src/fluids/pair-search.rows.ts (wasm/pair-search.generated.ts, the twin
 * of the search neighbour-grid.ts buildForwardPairs runs, checked pair for
 * pair by the same test); and the join of the pool's row blocks, below.
 *
 * Arguments named like the JS arrays are byte addresses in the module's
 * (imported) memory.
 */
export {
  fluidCorrectionPass,
  fluidDensityPass,
  vorticityGradientPass,
  xsphVorticityPass,
} from './pair-passes.generated';
export { buildForwardPairRows } from './pair-search.generated';

/**
 * Joins a row block built by buildForwardPairRows (pair-search.rows.ts) into the pair list: its
 * `count` partners move from `src` to nbr[prefix …] and start[a0 + 1 … a1]
 * gain `prefix` (the pairs of the blocks before it). Blocks may run at once.
 */
export function joinPairRows(start: usize, a0: i32, a1: i32, nbr: usize, src: usize, count: i32, prefix: i32): void {
  memory.copy(nbr + ((<usize>prefix) << 2), src, (<usize>count) << 2);
  for (let a = a0 + 1; a <= a1; a++) {
    const at = start + ((<usize>a) << 2);
    store<i32>(at, load<i32>(at) + prefix);
  }
}
