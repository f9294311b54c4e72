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
 * neighbour-grid.ts buildForwardPairs for a body range already in cell order
 * (the `contiguous` case: item a is slot a), with forwardRanges and
 * contiguousRows inlined: the same pairs in the same order. `pos` holds the
 * range's positions (24 bytes per slot), `cellStart` the grid's cell starts,
 * `ranges` scratch for 2 (2R + 1)² i32. Writes rows into start/nbr and
 * returns the number of pairs, or −1 when a cell's worst case would pass
 * `cap` pairs (the caller makes room and calls again).
 */
export function buildForwardPairs(
  pos: usize,
  cellStart: usize,
  nx: i32,
  ny: i32,
  nz: i32,
  R: i32,
  r2: f64,
  start: usize,
  nbr: usize,
  cap: i32,
  ranges: usize,
): i32 {
  let k: i32 = 0;
  store<i32>(start, 0);
  const nxy = nx * ny;
  const cells = nxy * nz;
  for (let c: i32 = 0; c < cells; c++) {
    const first = load<i32>(cellStart + ((<usize>c) << 2)),
      last = load<i32>(cellStart + ((<usize>c) << 2), 4);
    if (first === last) continue;
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
        const lo = load<i32>(cellStart + ((<usize>(base + x0)) << 2)),
          hi = load<i32>(cellStart + ((<usize>(base + x1 + 1)) << 2));
        if (lo === hi) continue;
        store<i32>(ranges + ((<usize>nr) << 2), lo);
        store<i32>(ranges + ((<usize>nr) << 2), hi, 4);
        nr += 2;
        worst += hi - lo;
      }
    }
    if (<i64>k + <i64>worst * <i64>(last - first) > <i64>cap) return -1;
    // contiguousRows
    for (let a = first; a < last; a++) {
      const pa = pos + <usize>a * 24;
      const px = load<f64>(pa, 0),
        py = load<f64>(pa, 8),
        pz = load<f64>(pa, 16);
      for (let b = a + 1; b < ownEnd; b++) {
        const pb = pos + <usize>b * 24;
        const dx = px - load<f64>(pb, 0),
          dy = py - load<f64>(pb, 8),
          dz = pz - load<f64>(pb, 16);
        store<i32>(nbr + ((<usize>k) << 2), b);
        k += i32(dx * dx + dy * dy + dz * dz < r2);
      }
      for (let q: i32 = 0; q < nr; q += 2) {
        const e = load<i32>(ranges + ((<usize>q) << 2), 4);
        for (let b = load<i32>(ranges + ((<usize>q) << 2)); b < e; b++) {
          const pb = pos + <usize>b * 24;
          const dx = px - load<f64>(pb, 0),
            dy = py - load<f64>(pb, 8),
            dz = pz - load<f64>(pb, 16);
          store<i32>(nbr + ((<usize>k) << 2), b);
          k += i32(dx * dx + dy * dy + dz * dz < r2);
        }
      }
      store<i32>(start + ((<usize>(a + 1)) << 2), k);
    }
  }
  return k;
}
