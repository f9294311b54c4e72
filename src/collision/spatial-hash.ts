/**
 * A spatial hash for axis-aligned boxes (003 §4.3: "we use spatial hashing
 * to find vertex triangle collisions [THM*03]").
 *
 * Items are boxes (6 numbers each: min xyz, max xyz; a point is a box of zero
 * size). Space is cut into cubic cells of `cellSize` and every cell is hashed
 * (Teschner et al. 2003) into a table of 2^k buckets. Each item is stored
 * once, in the bucket of the cell that holds its box's minimum corner. The
 * table is dense: `build` counts the items per bucket, turns the counts into
 * offsets by a prefix sum and scatters the item ids into one array — O(n), no
 * linked lists, and no allocation once the arrays are large enough.
 *
 * Since no stored item is larger than a cell, an item overlapping a query box
 * Q has its minimum corner in [Q.min − cellSize, Q.max], so a query visits
 * those cells only and returns every item whose box overlaps Q, each once (a
 * stamp per item skips the repeats that hash collisions produce).
 *
 * Items larger than a cell ("big": fast-moving vertices with long boxes) go
 * to a second, coarser hash of the same kind, or, when few, to a list that
 * every query tests. Items whose boxes change after a build can be
 * registered with `moved`: queries test them directly until the next build,
 * so that a few changed boxes do not force a rebuild.
 */
import { grownArray } from '../math/arrays.js';
import { selectKth } from '../math/select.js';

/** No limit on the items of a query. */
const NO_LIMIT = 0x7fffffff;

export class SpatialHash {
  /** Edge length of a cell; items larger than this in any axis are "big". */
  cellSize: number;
  private inv: number;
  private tableSize = 0;
  private mask = 0;
  /** Bucket b holds entries[cellStart[b] .. cellStart[b + 1]). */
  private cellStart = new Int32Array(1);
  private entries = new Int32Array(0);
  private bucketOf = new Int32Array(0);
  private cursor = new Int32Array(0);
  private extent = new Float64Array(0);
  private big = new Int32Array(0);
  private bigCount = 0;
  /** Boxes of the big items and a coarser hash over them (built when there are many). */
  private bigBoxes = new Float64Array(0);
  private child: SpatialHash | null = null;
  private childUsed = false;
  private readonly depth: number;
  /** The boxes of the last build (not copied: keep them unchanged until the next build). */
  private boxes: Float64Array = new Float64Array(0);
  private count = 0;
  private stamp = new Int32Array(0);
  private stampId = 0;
  /** Results of the last query: result[0 .. resultCount). */
  result: Int32Array = new Int32Array(64);
  resultCount = 0;
  /** Whether the last query stopped at its limit (more items may overlap its box). */
  truncated = false;
  /** Stored entries examined by queries since the hash was made (the work of the broad phase). */
  visits = 0;
  /** Items whose boxes changed since the build: every query tests them directly. */
  private overflow = new Int32Array(0);
  private overflowCount = 0;
  private inOverflow = new Uint8Array(0);

  constructor(cellSize: number, depth = 0) {
    this.cellSize = cellSize;
    this.inv = 1 / cellSize;
    this.depth = depth;
  }

  setCellSize(cellSize: number): void {
    if (!(cellSize > 0) || !Number.isFinite(cellSize)) return;
    this.cellSize = cellSize;
    this.inv = 1 / cellSize;
  }

  /**
   * Chooses the cell size for the given boxes: the 75th percentile of their
   * largest extents (at least `min`). The larger quarter goes to a second,
   * coarser level, which sizes its cells the same way: a few fast-moving
   * items with large boxes then cost little.
   */
  fitCellSize(boxes: Float64Array, count: number, min = 0): void {
    if (this.extent.length < count) this.extent = new Float64Array(Math.max(count, 2 * this.extent.length));
    const ext = this.extent;
    let m = 0;
    for (let i = 0; i < count; i++) {
      const o = 6 * i;
      const e = Math.max(boxes[o + 3] - boxes[o], boxes[o + 4] - boxes[o + 1], boxes[o + 5] - boxes[o + 2]);
      if (!Number.isNaN(e)) ext[m++] = e;
    }
    let c = min;
    if (m > 0) {
      const k = Math.min(m - 1, Math.floor(0.75 * m));
      c = Math.max(c, selectKth(ext, 0, m - 1, k));
    }
    if (c > 0 && Number.isFinite(c)) this.setCellSize(c);
  }

  /** Builds the table over `count` boxes (boxes[6i .. 6i + 5]). */
  build(boxes: Float64Array, count: number): void {
    this.boxes = boxes;
    this.count = count;
    const inv = this.inv;
    const c = this.cellSize;
    let size = 16;
    while (size < 2 * count) size *= 2;
    if (size !== this.tableSize) {
      this.tableSize = size;
      this.mask = size - 1;
      this.cellStart = new Int32Array(size + 1);
      this.cursor = new Int32Array(size);
    } else {
      this.cellStart.fill(0);
    }
    if (this.entries.length < count) {
      const cap = Math.max(count, 2 * this.entries.length);
      this.entries = new Int32Array(cap);
      this.bucketOf = new Int32Array(cap);
      this.big = new Int32Array(cap);
    }
    if (this.stamp.length < count) {
      this.stamp = new Int32Array(Math.max(count, 2 * this.stamp.length));
      this.stampId = 0;
    }
    if (this.inOverflow.length < count) {
      this.inOverflow = new Uint8Array(Math.max(count, 2 * this.inOverflow.length));
      this.overflow = new Int32Array(this.inOverflow.length);
    } else {
      for (let k = 0; k < this.overflowCount; k++) this.inOverflow[this.overflow[k]] = 0;
    }
    this.overflowCount = 0;
    const start = this.cellStart,
      mask = this.mask,
      bucketOf = this.bucketOf;
    let nb = 0;
    for (let i = 0; i < count; i++) {
      const o = 6 * i;
      const x0 = boxes[o],
        y0 = boxes[o + 1],
        z0 = boxes[o + 2];
      // not (extent ≤ cell): also catches NaN boxes, which then never overlap anything
      if (!(boxes[o + 3] - x0 <= c && boxes[o + 4] - y0 <= c && boxes[o + 5] - z0 <= c)) {
        this.big[nb++] = i;
        bucketOf[i] = -1;
        continue;
      }
      const b = hashCell(Math.floor(x0 * inv), Math.floor(y0 * inv), Math.floor(z0 * inv), mask);
      bucketOf[i] = b;
      start[b + 1]++;
    }
    this.bigCount = nb;
    for (let b = 0; b < size; b++) start[b + 1] += start[b];
    // many big items: a second, coarser level over them (its own big items: the 1 % beyond)
    this.childUsed = false;
    if (nb > 16 && this.depth < 4) {
      if (this.bigBoxes.length < 6 * nb) this.bigBoxes = new Float64Array(12 * nb);
      const bb = this.bigBoxes;
      for (let k = 0; k < nb; k++) {
        const o = 6 * this.big[k];
        for (let j = 0; j < 6; j++) bb[6 * k + j] = boxes[o + j];
      }
      if (!this.child) this.child = new SpatialHash(c, this.depth + 1);
      this.child.fitCellSize(bb, nb, c);
      this.child.build(bb, nb);
      this.childUsed = true;
    }
    // scatter in ascending item order (deterministic bucket contents)
    const cursor = this.cursor;
    cursor.set(start.subarray(0, size));
    const entries = this.entries;
    for (let i = 0; i < count; i++) {
      const b = bucketOf[i];
      if (b >= 0) entries[cursor[b]++] = i;
    }
  }

  /**
   * Item i's box (in the array given to build) has changed: queries test it
   * directly from now on, until the next build. Returns the number of such
   * items, so that the caller can rebuild when they become many.
   */
  moved(i: number): number {
    if (this.inOverflow[i] === 0) {
      this.inOverflow[i] = 1;
      this.overflow[this.overflowCount++] = i;
    }
    return this.overflowCount;
  }

  private nextStamp(): number {
    if (++this.stampId === 0x7fffffff) {
      this.stamp.fill(0);
      this.stampId = 1;
    }
    return this.stampId;
  }

  /**
   * All items whose box overlaps [min, max] (closed boxes), each once, into
   * `result[0 .. resultCount)`; returns resultCount. Items with index ≤
   * `after` are skipped (pass −1 for all; pass i to get only pairs (i, j > i)).
   *
   * `limit` bounds the work of one query whatever the positions (bodies
   * started on top of each other put every item in the same cells, and a
   * query would return them all): the query stops once it holds `limit`
   * items or has examined 8 × `limit` stored entries, and sets `truncated`.
   * The items it returns are then the first ones of the full answer's order.
   */
  query(
    minx: number,
    miny: number,
    minz: number,
    maxx: number,
    maxy: number,
    maxz: number,
    after = -1,
    limit = NO_LIMIT,
  ): number {
    const boxes = this.boxes;
    const stamp = this.stamp;
    const id = this.nextStamp();
    const inv = this.inv;
    let result = this.result;
    let n = 0;
    // entries examined: the budget is 8 × limit (no limit: never reached)
    let seen = 0;
    const budget = limit === NO_LIMIT ? NO_LIMIT : 8 * limit;
    this.truncated = false;
    const x0 = Math.floor(minx * inv) - 1,
      y0 = Math.floor(miny * inv) - 1,
      z0 = Math.floor(minz * inv) - 1;
    const x1 = Math.floor(maxx * inv),
      y1 = Math.floor(maxy * inv),
      z1 = Math.floor(maxz * inv);
    const cells = (x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1);
    if (!(cells <= this.tableSize)) {
      // a query larger than the table (or NaN): test every item
      for (let i = after + 1; i < this.count; i++) {
        if (n === limit || seen === budget) {
          this.truncated = true;
          break;
        }
        seen++;
        const o = 6 * i;
        if (!overlaps(boxes, o, minx, miny, minz, maxx, maxy, maxz)) continue;
        if (n === result.length) result = this.growResult();
        result[n++] = i;
      }
      this.visits += seen;
      this.resultCount = n;
      return n;
    }
    const start = this.cellStart,
      entries = this.entries,
      mask = this.mask;
    scan: for (let ix = x0; ix <= x1; ix++) {
      const hx = Math.imul(ix, 73856093);
      for (let iy = y0; iy <= y1; iy++) {
        const hxy = hx ^ Math.imul(iy, 19349663);
        for (let iz = z0; iz <= z1; iz++) {
          const b = (hxy ^ Math.imul(iz, 83492791)) & mask;
          const end = start[b + 1];
          let k = start[b];
          if (end - k > 8 && after >= 0) {
            // a crowded bucket: its entries ascend, so those ≤ after (skipped) are found by bisection, unvisited
            let hi = end;
            while (k < hi) {
              const mid = (k + hi) >> 1;
              if (entries[mid] <= after) k = mid + 1;
              else hi = mid;
            }
          }
          for (; k < end; k++) {
            if (n === limit || seen === budget) break scan;
            seen++;
            const i = entries[k];
            if (i <= after || stamp[i] === id) continue;
            stamp[i] = id;
            const o = 6 * i;
            if (!overlaps(boxes, o, minx, miny, minz, maxx, maxy, maxz)) continue;
            if (n === result.length) result = this.growResult();
            result[n++] = i;
          }
        }
      }
    }
    if (n === limit || seen === budget) {
      this.visits += seen;
      this.truncated = true;
      this.resultCount = n;
      return n;
    }
    for (let k = 0; k < this.overflowCount; k++) {
      if (n === limit) break;
      const i = this.overflow[k];
      if (i <= after || stamp[i] === id) continue;
      stamp[i] = id;
      const o = 6 * i;
      if (!overlaps(boxes, o, minx, miny, minz, maxx, maxy, maxz)) continue;
      if (n === result.length) result = this.growResult();
      result[n++] = i;
    }
    if (this.childUsed) {
      const ch = this.child!;
      const m = ch.query(minx, miny, minz, maxx, maxy, maxz, -1, limit);
      if (ch.truncated) this.truncated = true;
      const cr = ch.result,
        big = this.big;
      for (let k = 0; k < m; k++) {
        if (n === limit) break;
        const i = big[cr[k]];
        if (i <= after || stamp[i] === id) continue;
        stamp[i] = id;
        if (n === result.length) result = this.growResult();
        result[n++] = i;
      }
    } else {
      for (let k = 0; k < this.bigCount; k++) {
        if (n === limit) break;
        const i = this.big[k];
        if (i <= after || stamp[i] === id) continue;
        const o = 6 * i;
        if (!overlaps(boxes, o, minx, miny, minz, maxx, maxy, maxz)) continue;
        if (n === result.length) result = this.growResult();
        result[n++] = i;
      }
    }
    if (n === limit) this.truncated = true;
    this.visits += seen;
    this.resultCount = n;
    return n;
  }

  private growResult(): Int32Array {
    this.result = grownArray(this.result, 2 * this.result.length);
    return this.result;
  }

  /** Number of items of the last build. */
  get size(): number {
    return this.count;
  }

  /** Items that did not fit a cell in the last build (tested by every query). */
  get bigItems(): number {
    return this.bigCount;
  }
}

/** Teschner et al. 2003: (x·p1 xor y·p2 xor z·p3) mod n, with n a power of two. */
function hashCell(ix: number, iy: number, iz: number, mask: number): number {
  return (Math.imul(ix, 73856093) ^ Math.imul(iy, 19349663) ^ Math.imul(iz, 83492791)) & mask;
}

/**
 * Whether box o of `boxes` (min xyz, max xyz at 6o) overlaps [min, max]
 * (closed boxes): the item test of this hash's queries and of the BVH's
 * (bvh-self-pairs.ts queryNodes).
 */
export function overlaps(
  boxes: Float64Array,
  o: number,
  minx: number,
  miny: number,
  minz: number,
  maxx: number,
  maxy: number,
  maxz: number,
): boolean {
  return (
    boxes[o] <= maxx &&
    boxes[o + 3] >= minx &&
    boxes[o + 1] <= maxy &&
    boxes[o + 4] >= miny &&
    boxes[o + 2] <= maxz &&
    boxes[o + 5] >= minz
  );
}
