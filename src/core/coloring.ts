/**
 * Graph colouring of constraints (survey 000 §3.8).
 *
 * Two constraints conflict when they share a particle. Constraints of one
 * colour share no particle, so a colour batch can be projected in any order,
 * or in parallel, with the same result; batches run one after another. The
 * colouring is greedy first-fit over the constraints in their given order,
 * so it is deterministic.
 *
 * Particles with inverse mass 0 never move and therefore never conflict;
 * they are ignored when `invMass` is given, which keeps pinned hubs from
 * inflating the colour count.
 */
import { PbdError } from './errors.js';

export interface Coloring {
  /** order[k] is the original index of the k-th constraint after sorting by colour. */
  order: Int32Array;
  /** Colour c holds sorted constraints [offsets[c], offsets[c + 1]). Length colours + 1. */
  offsets: Int32Array;
  /** Number of colours. */
  colors: number;
}

/**
 * Colours `count` constraints of fixed arity whose particle indices are
 * `indices[arity·c .. arity·c + arity)`.
 */
export function colorConstraints(
  indices: ArrayLike<number>,
  arity: number,
  count: number,
  particleCount: number,
  invMass?: ArrayLike<number>,
): Coloring {
  // The masks cover only the particles the constraints use, [lo, hi]: a body's
  // sets colour in time and memory of the body's size, not of the whole store
  // (a scene of a thousand cloths would otherwise clear a store-sized mask per
  // set, quadratic in the number of bodies). The colours are the same.
  const [lo, span] = indexWindow(indices, 0, arity * count, particleCount);
  let words = 2;
  let used = new Uint32Array(span * words);
  const color = new Int32Array(count);
  let colors = 0;
  for (let c = 0; c < count; c++) {
    const base = c * arity;
    let chosen = -1;
    while (chosen < 0) {
      for (let wd = 0; wd < words && chosen < 0; wd++) {
        let taken = 0;
        for (let a = 0; a < arity; a++) {
          const i = indices[base + a];
          if (invMass && invMass[i] === 0) continue;
          taken |= used[(i - lo) * words + wd];
        }
        const free = ~taken >>> 0;
        if (free !== 0) chosen = wd * 32 + (31 - Math.clz32(free & -free));
      }
      if (chosen < 0) {
        // more than 32·words colours: widen the masks
        const nw = words * 2;
        const grown = new Uint32Array(span * nw);
        for (let i = 0; i < span; i++) {
          for (let wd = 0; wd < words; wd++) grown[i * nw + wd] = used[i * words + wd];
        }
        used = grown;
        words = nw;
      }
    }
    color[c] = chosen;
    if (chosen + 1 > colors) colors = chosen + 1;
    const wd = chosen >>> 5;
    const bit = 1 << (chosen & 31);
    for (let a = 0; a < arity; a++) {
      const i = indices[base + a];
      if (invMass && invMass[i] === 0) continue;
      used[(i - lo) * words + wd] |= bit;
    }
  }
  return sortByColor(color, colors);
}

/**
 * Colours constraints with a variable number of particles each
 * (constraint c uses `indices[starts[c] .. starts[c + 1])`).
 */
export function colorVariableConstraints(
  indices: ArrayLike<number>,
  starts: ArrayLike<number>,
  count: number,
  particleCount: number,
  invMass?: ArrayLike<number>,
): Coloring {
  // last colour mark per particle: a particle may carry many colours, so keep a
  // per-colour stamp array and test the candidate colour against it.
  const [lo, span] = indexWindow(
    indices,
    count > 0 ? starts[0] : 0,
    count > 0 ? starts[count] : 0,
    particleCount,
  );
  const color = new Int32Array(count);
  const stampsByColor: Int32Array[] = [];
  let colors = 0;
  for (let c = 0; c < count; c++) {
    let chosen = 0;
    for (; ; chosen++) {
      if (chosen === stampsByColor.length) stampsByColor.push(new Int32Array(span).fill(-1));
      const stamps = stampsByColor[chosen];
      let clash = false;
      for (let k = starts[c]; k < starts[c + 1]; k++) {
        const i = indices[k];
        if (invMass && invMass[i] === 0) continue;
        if (stamps[i - lo] >= 0) {
          clash = true;
          break;
        }
      }
      if (!clash) break;
    }
    const stamps = stampsByColor[chosen];
    for (let k = starts[c]; k < starts[c + 1]; k++) stamps[indices[k] - lo] = c;
    color[c] = chosen;
    if (chosen + 1 > colors) colors = chosen + 1;
  }
  return sortByColor(color, colors);
}

/**
 * The lowest particle index of indices[from, to) and the span up to the
 * highest (0, 0 when there are none); a PbdError when one is not a particle
 * index below particleCount.
 */
function indexWindow(
  indices: ArrayLike<number>,
  from: number,
  to: number,
  particleCount: number,
): [number, number] {
  let lo = Number.POSITIVE_INFINITY,
    hi = Number.NEGATIVE_INFINITY;
  for (let k = from; k < to; k++) {
    const i = indices[k];
    if (!(i >= 0 && i < particleCount && Number.isInteger(i))) {
      throw new PbdError(
        'coloring/bad-index',
        `indices[${k}]`,
        `is ${i}, not a particle index below ${particleCount}`,
        'give each constraint the indices of existing particles',
      );
    }
    if (i < lo) lo = i;
    if (i > hi) hi = i;
  }
  return hi < lo ? [0, 0] : [lo, hi - lo + 1];
}

function sortByColor(color: Int32Array, colors: number): Coloring {
  const count = color.length;
  const offsets = new Int32Array(colors + 1);
  for (let c = 0; c < count; c++) offsets[color[c] + 1]++;
  for (let k = 0; k < colors; k++) offsets[k + 1] += offsets[k];
  const cursor = offsets.slice(0, colors);
  const order = new Int32Array(count);
  for (let c = 0; c < count; c++) order[cursor[color[c]]++] = c; // stable within a colour
  return { order, offsets, colors };
}

/** Reorders an array of per-constraint records (stride values each) by `order`. */
export function permuteRecords<T extends Float64Array | Int32Array | Uint32Array | Uint8Array>(
  data: T,
  stride: number,
  order: Int32Array,
): T {
  const out = new (data.constructor as new (n: number) => T)(data.length);
  for (let k = 0; k < order.length; k++) {
    const src = order[k] * stride;
    const dst = k * stride;
    for (let s = 0; s < stride; s++) out[dst + s] = data[src + s];
  }
  return out;
}
