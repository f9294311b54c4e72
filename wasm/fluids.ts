/**
 * The WebAssembly module of the fluids, compiled by scripts/build-kernels.ts
 * into src/wasm/fluids.generated.ts: the pair passes, generated from their
 * one definition (src/fluids/pair-passes.rows.ts, into
 * wasm/pair-passes.generated.ts) together with the JavaScript functions
 * FluidDensity runs where WebAssembly is missing, so that both give the same
 * numbers bit for bit (test/fluids-wasm.test.ts); and the neighbour search
 * for a body range in cell order, below, written in AssemblyScript (a port
 * of neighbour-grid.ts buildForwardPairs, checked pair for pair by the same
 * test).
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

/**
 * The partners b0 … b1 − 1 of a row at (px, py, pz) (contiguousRows' walk
 * over one run of slots): every partner is written to nbr[k], and kept
 * (k + 1) when closer than √r2. Returns the new k.
 */
@inline function rowPartners(pos: usize, px: f64, py: f64, pz: f64, b0: i32, b1: i32, r2: f64, nbr: usize, k: i32): i32 {
  for (let b = b0; b < b1; b++) {
    const pb = pos + <usize>b * 24;
    const dx = px - load<f64>(pb, 0),
      dy = py - load<f64>(pb, 8),
      dz = pz - load<f64>(pb, 16);
    store<i32>(nbr + ((<usize>k) << 2), b);
    k += i32(dx * dx + dy * dy + dz * dz < r2);
  }
  return k;
}

/**
 * Rows a0 … a1 − 1 of neighbour-grid.ts buildForwardPairs for a body range
 * already in cell order (the `contiguous` case: item a is slot a), with
 * forwardRanges and contiguousRows inlined: a row block (docs/solver.md
 * "Threads"), or all the rows as one (FluidWasm.buildPairs: a0 = 0, a1 = n,
 * with start[0] = 0 and nbr the list itself). The same candidates in the
 * same order, since a row's pairs depend on its cell alone. `pos` holds the
 * range's positions (24 bytes per slot), `cellStart` the grid's cell starts,
 * `ranges` scratch for 2 (2R + 1)² i32. The partners go to nbr from its
 * first entry and start[a + 1] (a0 ≤ a < a1) is the count so far in this
 * call; start[a0] is not written (it is the end of the block before).
 * Returns the block's count, or −1 when a cell's worst case would pass
 * `cap` (the caller makes room and calls again). Blocks of disjoint rows
 * with their own nbr and ranges may run at once.
 */
export function buildForwardPairRows(
  pos: usize,
  cellStart: usize,
  nx: i32,
  ny: i32,
  nz: i32,
  R: i32,
  r2: f64,
  a0: i32,
  a1: i32,
  start: usize,
  nbr: usize,
  cap: i32,
  ranges: usize,
): i32 {
  let k: i32 = 0;
  if (a0 >= a1) return 0;
  const nxy = nx * ny;
  const cells = nxy * nz;
  // the cell of row a0: the first whose end lies after it
  let lo: i32 = 0,
    hi: i32 = cells - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (load<i32>(cellStart + ((<usize>(mid + 1)) << 2)) > a0) hi = mid;
    else lo = mid + 1;
  }
  for (let c: i32 = lo; c < cells; c++) {
    let first = load<i32>(cellStart + ((<usize>c) << 2)),
      last = load<i32>(cellStart + ((<usize>c) << 2), 4);
    if (first >= a1) break;
    if (first < a0) first = a0;
    if (last > a1) last = a1;
    if (first >= last) continue;
    const iz = c / nxy;
    const rem = c - iz * nxy;
    const iy = rem / nx;
    const ix = rem - iy * nx;
    const x0 = max<i32>(ix - R, 0);
    const x1 = min<i32>(ix + R, nx - 1);
    const ownEnd = load<i32>(cellStart + ((<usize>(iy * nx + iz * nxy + x1 + 1)) << 2));
    // forwardRanges: the rows of cells (dy, dz) after the cell's own row, [x0, x1] along x
    let nr: i32 = 0;
    let worst = ownEnd - first + 1;
    for (let dz: i32 = 0; dz <= R; dz++) {
      const cz = iz + dz;
      if (cz >= nz) break;
      for (let dy: i32 = dz === 0 ? 1 : -R; dy <= R; dy++) {
        const cy = iy + dy;
        if (cy < 0 || cy >= ny) continue;
        const base = nx * (cy + ny * cz);
        const rlo = load<i32>(cellStart + ((<usize>(base + x0)) << 2)),
          rhi = load<i32>(cellStart + ((<usize>(base + x1 + 1)) << 2));
        if (rlo === rhi) continue;
        store<i32>(ranges + ((<usize>nr) << 2), rlo);
        store<i32>(ranges + ((<usize>nr) << 2), rhi, 4);
        nr += 2;
        worst += rhi - rlo;
      }
    }
    if (<i64>k + <i64>worst * <i64>(last - first) > <i64>cap) return -1;
    // contiguousRows
    for (let a = first; a < last; a++) {
      const pa = pos + <usize>a * 24;
      const px = load<f64>(pa, 0),
        py = load<f64>(pa, 8),
        pz = load<f64>(pa, 16);
      k = rowPartners(pos, px, py, pz, a + 1, ownEnd, r2, nbr, k);
      for (let q: i32 = 0; q < nr; q += 2) {
        const rq = ranges + ((<usize>q) << 2);
        k = rowPartners(pos, px, py, pz, load<i32>(rq), load<i32>(rq, 4), r2, nbr, k);
      }
      store<i32>(start + ((<usize>(a + 1)) << 2), k);
    }
  }
  return k;
}

/**
 * Joins a row block built by buildForwardPairRows into the pair list: its
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
