import { describe, expect, it } from 'vitest';
import { grownArray } from '../src/math/arrays.js';

describe('grownArray (src/math/arrays.ts): the growth of per-entry arrays', () => {
  it("keeps the array's kind and values, zero after them", () => {
    const a = Int8Array.from([3, -4, 5]);
    const b = grownArray(a, 6);
    expect(b).toBeInstanceOf(Int8Array);
    expect(Array.from(b)).toEqual([3, -4, 5, 0, 0, 0]);
    expect(b).not.toBe(a);
    const f = grownArray(Float64Array.from([0.1, 0.2]), 4);
    expect(f).toBeInstanceOf(Float64Array);
    expect(Array.from(f)).toEqual([0.1, 0.2, 0, 0]);
  });

  it('keeps only the entries in use when told how many values they hold', () => {
    const a = Int32Array.from([1, 2, 3, 4, 5, 6]);
    expect(Array.from(grownArray(a, 8, 4))).toEqual([1, 2, 3, 4, 0, 0, 0, 0]);
  });

  it('puts the grown array on a SharedArrayBuffer when asked (the stores that workers read), else not', () => {
    const a = Float64Array.from([1.5, -2, 3]);
    const b = grownArray(a, 5, 2, true);
    expect(b.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(b)).toEqual([1.5, -2, 0, 0, 0]);
    const c = grownArray(b, 6);
    expect(c.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(c)).toEqual([1.5, -2, 0, 0, 0, 0]);
    const i = grownArray(Uint8Array.from([7]), 3, 1, true);
    expect(i).toBeInstanceOf(Uint8Array);
    expect(i.buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});
