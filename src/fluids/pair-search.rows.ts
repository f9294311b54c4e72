/**
 * The fluids' neighbour search over a sorted grid (neighbour-grid.ts's
 * NeighbourGrid: a stable counting sort of the items by cell), defined once
 * in the row-kernel language (src/kernels/rows.ts): `npm run kernels`
 * generates from this file the JavaScript functions (pair-search.generated.ts,
 * which neighbour-grid.ts buildForwardPairs and buildCrossPairs call) and
 * the WebAssembly twin of buildForwardPairRows (wasm/pair-search.generated.ts,
 * in the module of wasm/fluids.ts: FluidWasm.buildPairs and the pool's row
 * blocks, pair-blocks.ts), so that every port finds the same pairs in the
 * same order (test/fluids-wasm.test.ts, test/threads-fluids.test.ts).
 *
 * PBF (Macklin & Müller 2013, Algorithm 1 line 7; seed 000 §3.4.6) finds
 * the neighbours each step; the pairs are those closer than the kernel radius h,
 * |p_a − p_b|² < h², each unordered pair once ("forward" half of the
 * (2R + 1)³ stencil, R = the grid's reach in cells), in compressed rows:
 * row a's partners are nbr[start[a] … start[a + 1] − 1].
 */
import type { I32 } from '../kernels/rows.js';
import { VARIANT } from '../kernels/rows.js';

/** The functions the WebAssembly module exports. */
export const wasmExports = ['buildForwardPairRows'] as const;

/** Pasted into its callers in the twin (AssemblyScript `@inline`): the candidate loop. */
export const wasmInline = ['closePartners'] as const;

/** JavaScript functions made from another with a flag on. */
export const variants = {
  /**
   * closePartners over the grid's items in cell order: candidate b is the
   * item (store index) j = sorted[b], written as j − off.
   */
  closePartnersSorted: { of: 'closePartners', flag: 'SORTED' },
  /**
   * buildForwardPairRows for items in any store order: row a is the item
   * sorted[a] and its partners are written as store index − off
   * (closePartnersSorted).
   */
  buildForwardPairRowsSorted: { of: 'buildForwardPairRows', flag: 'SORTED' },
} as const;

/** The variant of closePartners (made by the generator), declared for buildForwardPairRowsSorted's calls. */
declare const closePartnersSorted: typeof closePartners;

/**
 * Rows a0 … a1 − 1 of the forward pairs of a grid whose items are in cell
 * order (item a is slot a of a range, its position pos[3a …]; the caller
 * passes the range's positions): a row block (docs/solver.md "Threads"), or
 * all the rows as one (a0 = 0, a1 = n, start[0] = 0). Row a lists the partners after it in its own cell
 * and the next cells along x (up to R), then those in the rows of cells
 * (dy, dz) after its row (dz = 0 with dy > 0, dz > 0 with any dy), each
 * [x0, x1] along x: one contiguous range of the sorted items, collected
 * per cell into `ranges` (2 (2R + 1)² entries). A row's partners depend on
 * its cell alone, so blocks of disjoint rows with their own nbr and ranges
 * may run at once. `cellStart` holds the cells' first items (nx · ny · nz
 * + 1 entries). The partners go to nbr from its first entry and
 * start[a + 1] is the count so far in this call (start[a0] is not
 * written). Returns that count, or −1 when a cell's worst case (every
 * candidate kept, plus the branch-free write) would pass `cap` (the caller
 * makes room and calls again). `off` and `sorted` are read by the variant
 * only (the twin is given 0).
 */
export function buildForwardPairRows(
  pos: Float64Array,
  off: I32,
  sorted: Int32Array,
  cellStart: Int32Array,
  nx: I32,
  ny: I32,
  nz: I32,
  R: I32,
  r2: number,
  a0: I32,
  a1: I32,
  start: Int32Array,
  nbr: Int32Array,
  cap: I32,
  ranges: Int32Array,
): I32 {
  let k: I32 = 0;
  if (a0 >= a1) return 0;
  const nxy: I32 = nx * ny;
  const cells: I32 = nxy * nz;
  // the cell of row a0: the first whose end lies after it
  let lo: I32 = 0,
    hi: I32 = cells - 1;
  while (lo < hi) {
    const mid: I32 = (lo + hi) >>> 1;
    if (cellStart[mid + 1] > a0) hi = mid;
    else lo = mid + 1;
  }
  for (let c: I32 = lo; c < cells; c++) {
    let first: I32 = cellStart[c],
      last: I32 = cellStart[c + 1];
    if (first >= a1) break;
    if (first < a0) first = a0;
    if (last > a1) last = a1;
    if (first >= last) continue;
    const iz: I32 = (c / nxy) | 0;
    const rem: I32 = c - iz * nxy;
    const iy: I32 = (rem / nx) | 0;
    const ix: I32 = rem - iy * nx;
    const x0: I32 = Math.max(ix - R, 0);
    const x1: I32 = Math.min(ix + R, nx - 1);
    // the rest of the own row: own cell (after a) and the next cells along x, contiguous
    const ownEnd: I32 = cellStart[iy * nx + iz * nxy + x1 + 1];
    // the rows of cells (dy, dz) after the cell's own row, and the cell's worst case
    let nr: I32 = 0;
    let worst: number = ownEnd - first + 1;
    for (let dz: I32 = 0; dz <= R; dz++) {
      const cz: I32 = iz + dz;
      if (cz >= nz) break;
      for (let dy: I32 = dz === 0 ? 1 : -R; dy <= R; dy++) {
        const cy: I32 = iy + dy;
        if (cy < 0 || cy >= ny) continue;
        const base: I32 = nx * (cy + ny * cz);
        const rlo: I32 = cellStart[base + x0],
          rhi: I32 = cellStart[base + x1 + 1];
        if (rlo === rhi) continue;
        ranges[nr] = rlo;
        ranges[nr + 1] = rhi;
        nr += 2;
        worst += rhi - rlo;
      }
    }
    if (worst * (last - first) + k > cap) return -1;
    for (let a = first; a < last; a++) {
      const i3 = VARIANT.SORTED ? 3 * sorted[a] : 3 * a;
      const px = pos[i3],
        py = pos[i3 + 1],
        pz = pos[i3 + 2];
      k = VARIANT.SORTED
        ? closePartnersSorted(pos, off, sorted, px, py, pz, a + 1, ownEnd, r2, nbr, k)
        : closePartners(pos, off, sorted, px, py, pz, a + 1, ownEnd, r2, nbr, k);
      for (let q: I32 = 0; q < nr; q += 2) {
        k = VARIANT.SORTED
          ? closePartnersSorted(pos, off, sorted, px, py, pz, ranges[q], ranges[q + 1], r2, nbr, k)
          : closePartners(pos, off, sorted, px, py, pz, ranges[q], ranges[q + 1], r2, nbr, k);
      }
      start[a + 1] = k;
    }
  }
  return k;
}

/**
 * The candidates b0 … b1 − 1 of a row at (px, py, pz): each is written to
 * nbr[k] (as slot b, its position pos[3b …]) and kept (k + 1) when closer
 * than √r2. Returns the new k. `off` and `sorted` are read by the variant
 * only.
 */
export function closePartners(
  pos: Float64Array,
  off: I32,
  sorted: Int32Array,
  px: number,
  py: number,
  pz: number,
  b0: I32,
  b1: I32,
  r2: number,
  nbr: Int32Array,
  k: I32,
): I32 {
  for (let b = b0; b < b1; b++) {
    const j: I32 = VARIANT.SORTED ? sorted[b] : b;
    const j3 = 3 * j;
    const dx = px - pos[j3],
      dy = py - pos[j3 + 1],
      dz = pz - pos[j3 + 2];
    // branch-free: write always, keep it when close (acceptance is unpredictable)
    nbr[k] = VARIANT.SORTED ? j - off : b;
    k += +(dx * dx + dy * dy + dz * dz < r2);
  }
  return k;
}
