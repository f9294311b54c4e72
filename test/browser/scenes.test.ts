/**
 * Every scene file, live in Chromium: it loads, says how fast it runs
 * against real time (and why, when offline), advances on its own, stays
 * finite, its bodies are drawn (they cover pixels of the picture), and its
 * camera frames it.
 *
 * Framing, at 1280×800 and at 390×844, in the part of the view the panels
 * leave free (which no panel covers): the recorded action box the camera
 * was fitted to (web/src/scene-views.json: where the bodies go over the
 * scene's first seconds, written by scripts/scene-views.ts from the same
 * simulation) projects inside it, and so does the drawn box of every body
 * the scene's camera follows (camera.follow; default all) at 0.5 s. The
 * page simulates 0.5 s, not the 6 s the action box covers, so that the
 * suite stays short on a loaded machine. Two pages check scenes side by
 * side; screenshots are saved under test-artifacts/scenes/.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, type ExpectStatic, inject, it } from 'vitest';
import { artifacts, type Browser, launch, openScene, state } from './browser.js';

const base = inject('galleryUrl');
const sceneDir = new URL('../../scenes/', import.meta.url);
const names = readdirSync(sceneDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();
const shots = new URL('scenes/', artifacts);
const sizes = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/**
 * Two browsers with one page each, so that each page is its browser's front tab: a background
 * tab gets no animation frames or resize observations, and the framing follows those.
 */
const browsers: Browser[] = [];
interface Slot {
  page: Page;
  browser: Browser;
}
const idle: Slot[] = [];
const waiting: ((s: Slot) => void)[] = [];

async function withPage<T>(f: (p: Page, b: Browser) => Promise<T>): Promise<T> {
  const slot = idle.pop() ?? (await new Promise<Slot>((r) => waiting.push(r)));
  try {
    return await f(slot.page, slot.browser);
  } finally {
    const next = waiting.shift();
    if (next) next(slot);
    else idle.push(slot);
  }
}

beforeAll(async () => {
  for (let k = 0; k < 2; k++) {
    const browser = await launch(sizes[0]);
    browsers.push(browser);
    idle.push({ page: await browser.newPage(), browser });
  }
  mkdirSync(shots, { recursive: true });
});

afterAll(async () => {
  for (const b of browsers) await b.close();
});

/** Whether every coordinate of every active particle is finite, and how many there are. */
function finite(page: Page) {
  return page.evaluate(() => {
    const x = window.pbdGallery.positions();
    return { finite: x.every(Number.isFinite), coordinates: x.length };
  });
}

interface R {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
const overlaps = (a: R, b: R) =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
const inside = (a: R, b: R) =>
  a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
const show = (r: R) =>
  `[${r.left.toFixed(0)}, ${r.right.toFixed(0)}] × [${r.top.toFixed(0)}, ${r.bottom.toFixed(0)}]`;

/**
 * At each window size: the action box and the drawn box of every followed body lie in the free part of
 * the view, which no panel covers.
 */
async function checkFraming(
  page: Page,
  name: string,
  time: number,
  follow: string[] | undefined,
  expect: ExpectStatic,
): Promise<void> {
  for (const size of sizes) {
    await page.setViewportSize(size);
    // the layout and the camera follow the window on the next frames
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const f = await page.evaluate(() => window.pbdGallery.framing());
    const where = `${name} at ${time} s, ${size.width}×${size.height}`;
    expect(f.canvas.right - f.canvas.left, `${where}: the scene fills the window`).toBe(size.width);
    expect(f.canvas.bottom - f.canvas.top).toBe(size.height);
    expect(inside(f.free, f.canvas), `${where}: free part ${show(f.free)} within the canvas`).toBe(true);
    for (const p of f.panels) {
      expect(overlaps(f.free, p), `${where}: ${p.name} ${show(p)} covers the free part ${show(f.free)}`).toBe(
        false,
      );
    }
    const remake = `(after changing a scene: npm run scene-views -- --only ${name}, then npm run thumbnails -- --only ${name})`;
    expect(f.action, `${where}: no action box was framed ${remake}`).not.toBeNull();
    expect(
      inside(f.action!, f.free),
      `${where}: the action box ${show(f.action!)} leaves the free part ${show(f.free)} ${remake}`,
    ).toBe(true);
    for (const b of f.bodies) {
      if (follow && !follow.includes(b.name)) continue;
      expect(b.rect, `${where}: body ${b.name} is behind the camera`).not.toBeNull();
      expect(
        inside(b.rect!, f.free),
        `${where}: body ${b.name} ${show(b.rect!)} leaves the free part ${show(f.free)}`,
      ).toBe(true);
    }
  }
  await page.setViewportSize(sizes[0]);
}

describe.concurrent('every scene in Chromium', () => {
  for (const name of names) {
    const json = JSON.parse(readFileSync(new URL(`${name}.json`, sceneDir), 'utf8'));
    // concurrent tests must use their own `expect`
    it(
      `${name}: framed on wide and narrow windows, drawn, advancing and finite`,
      ({ expect }) =>
        withPage(async (page, browser) => {
          const errorsBefore = browser.errors.length;
          await page.setViewportSize(sizes[0]);
          await openScene(page, base, name);
          const s0 = await state(page);
          expect(s0.error).toBeNull();
          expect(s0.mode).toBe('worker');
          // every page says how fast it runs against real time, and an offline scene says why it is slow
          await expect
            .poll(() => page.locator('[data-testid=pace]').textContent())
            .toMatch(/× real time|paused/);
          if (json.offline) {
            expect(await page.locator('[data-testid=offline]').textContent()).toContain(json.offline);
          }
          // it runs on its own
          await expect.poll(async () => (await state(page)).steps, { timeout: 60_000 }).toBeGreaterThan(2);
          await page.keyboard.press(' ');
          await expect.poll(async () => (await state(page)).paused).toBe(true);
          const before = await page.evaluate(() => window.pbdGallery.positions());
          expect(before.length).toBeGreaterThan(0);
          // at least half a second in, and a quarter second past where it was paused (a light scene on a
          // quiet machine may have run past 0.5 s on its own)
          const t = Math.max(0.5, ((await state(page)).time ?? 0) + 0.25);
          await page.evaluate((t) => window.pbdGallery.runUntil(t), t);
          const f = await finite(page);
          expect(f.finite, `${name}: non-finite coordinates at ${t} s`).toBe(true);
          const s = await state(page);
          expect(s.nonFinite).toBe(0);
          expect(s.recoveries).toBe(0);
          await checkFraming(page, name, t, json.camera?.follow, expect);
          const after = await page.evaluate(() => window.pbdGallery.positions());
          let moved = 0;
          for (let k = 0; k < Math.min(before.length, after.length); k++) {
            moved = Math.max(moved, Math.abs(after[k] - before[k]));
          }
          // 10 µm: continuum-hard-volume moves only 65 µm in its first half second
          expect(moved, `${name}: nothing moved`).toBeGreaterThan(1e-5);
          await page.evaluate(() => window.pbdGallery.setPixelRatio(1)); // full resolution for the picture
          // the bodies are drawn: hiding them changes a visible part of the picture
          const px = await page.evaluate(() => window.pbdGallery.bodyPixels());
          expect(px.bodyPixels / (px.width * px.height), `${name}: bodies cover no pixels`).toBeGreaterThan(
            0.002,
          );
          expect(px.colours).toBeGreaterThan(20);
          await page.screenshot({ path: new URL(`${name}.png`, shots).pathname });
          expect(browser.errors.slice(errorsBefore)).toEqual([]);
        }),
      // the clock runs while a test waits for one of the two pages: at a load of 30–50 on 2 cores the
      // queue held tests 8 minutes (five timed out at 480 s); this bound is only a hang guard
      1_800_000,
    );
  }
});
