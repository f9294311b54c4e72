/**
 * Every scene file has what the gallery needs before it is opened: a
 * thumbnail (rendered once by `npm run thumbnails`, committed, shown by the
 * index on first paint) and an up-to-date action box (scripts/scene-views.ts:
 * where its bodies go over their first seconds, which the camera frames).
 * A new or changed scene fails here until both scripts have been run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sceneDigest } from '../scripts/scene-digest.js';
import { selectKth } from '../src/math/select.js';
import { drawnBox } from '../web/src/view/bounds.js';

const scenesDir = new URL('../scenes/', import.meta.url);
const names = readdirSync(scenesDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5))
  .sort();
const views = JSON.parse(readFileSync(new URL('../web/src/scene-views.json', import.meta.url), 'utf8'));

describe('gallery assets of every scene', () => {
  for (const name of names) {
    it(`${name}: a thumbnail and a current action box`, () => {
      const thumb = new URL(`../web/thumbnails/${name}.webp`, import.meta.url);
      expect(existsSync(thumb), `${name} has no thumbnail: run npm run thumbnails -- --only ${name}`).toBe(
        true,
      );
      const bytes = readFileSync(thumb);
      // a WebP image (RIFF....WEBP), small
      expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
      expect(bytes.subarray(8, 12).toString('latin1')).toBe('WEBP');
      expect(statSync(thumb).size).toBeLessThan(60_000);
      const text = readFileSync(new URL(`${name}.json`, scenesDir), 'utf8');
      const digest = sceneDigest(text);
      const v = views[name];
      expect(
        v,
        `${name} has no entry in web/src/scene-views.json: run npm run scene-views -- --only ${name}`,
      ).toBeDefined();
      expect(
        v.digest,
        `${name} changed since its action box was measured: run npm run scene-views -- --only ${name}`,
      ).toBe(digest);
      for (let d = 0; d < 3; d++) expect(v.bodies[1][d]).toBeGreaterThanOrEqual(v.bodies[0][d]);
    });
  }

  it('no thumbnail or action box is left over from a removed scene', () => {
    const thumbs = readdirSync(new URL('../web/thumbnails/', import.meta.url)).map((f) =>
      f.replace(/\.webp$/, ''),
    );
    expect(thumbs.filter((t) => !names.includes(t))).toEqual([]);
    expect(Object.keys(views).filter((k) => !names.includes(k))).toEqual([]);
  });
});

describe('the drawn box', () => {
  it('trims a few far outliers (shreds carried away) but keeps the body', () => {
    const n = 400;
    const x = new Float64Array(3 * n);
    for (let i = 0; i < n; i++) x.set([i / n, 0, 0], 3 * i);
    x.set([50, 0, 0], 0); // one shred far away
    const [lo, hi] = drawnBox(x, 0, [], n)!;
    expect(hi[0]).toBeLessThan(1);
    expect(lo[0]).toBeGreaterThan(0);
    expect(lo[0]).toBeLessThan(0.02);
  });

  it("uses only the vertices a surface's triangles use", () => {
    const x = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 99, 99, 99]);
    expect(drawnBox(x, 0, new Uint32Array([0, 1, 2]), 4)).toEqual([
      [0, 0, 0],
      [1, 1, 0],
    ]);
  });

  it('selectKth finds the k-th smallest value, ties and sub-ranges included', () => {
    const a = Float64Array.from([5, 3, 9, 1, 7, 2, 8]);
    expect([0, 1, 2, 3, 6].map((k) => selectKth(a.slice(), 0, 6, k))).toEqual([1, 2, 3, 5, 9]);
    const t = Float64Array.from([2, 2, 1, 2, 1, 2]);
    expect([0, 1, 2, 5].map((k) => selectKth(t.slice(), 0, 5, k))).toEqual([1, 1, 2, 2]);
    // only a[2..5] is searched: the 2nd of [9, 1, 7, 2] is 2 (k counts from the array's start)
    expect(selectKth(a.slice(), 2, 5, 3)).toBe(2);
  });
});
