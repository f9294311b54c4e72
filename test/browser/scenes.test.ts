/**
 * Every scene file, live in Chromium: it loads, its bodies are drawn (they
 * cover pixels of the picture), it advances, and it runs for 5 seconds as a
 * visitor sees it (in real time, as fast as the page manages) without a
 * single non-finite coordinate. Two pages check scenes side by side; each
 * scene's screenshot is saved under test-artifacts/scenes/.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { artifacts, type Browser, launch, openScene, state } from './browser.js';

const base = inject('galleryUrl');
const names = readdirSync(new URL('../../scenes/', import.meta.url))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();
const shots = new URL('scenes/', artifacts);

let browser: Browser;
const idle: Page[] = [];
const waiting: ((p: Page) => void)[] = [];

async function withPage<T>(f: (p: Page) => Promise<T>): Promise<T> {
  const page = idle.pop() ?? (await new Promise<Page>((r) => waiting.push(r)));
  try {
    return await f(page);
  } finally {
    const next = waiting.shift();
    if (next) next(page);
    else idle.push(page);
  }
}

beforeAll(async () => {
  browser = await launch({ width: 960, height: 600 });
  idle.push(await browser.newPage(), await browser.context.newPage());
  mkdirSync(shots, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

/** Whether every coordinate of every active particle is finite, and how many there are. */
function finite(page: Page) {
  return page.evaluate(() => {
    const x = window.pbdGallery.positions();
    return { finite: x.every(Number.isFinite), coordinates: x.length };
  });
}

describe.concurrent('every scene in Chromium', () => {
  for (const name of names) {
    // concurrent tests must use their own `expect`
    it(`${name}: renders, advances and stays finite for 5 s`, ({ expect }) =>
      withPage(async (page) => {
        const errorsBefore = browser.errors.length;
        await openScene(page, base, name);
        const s0 = await state(page);
        expect(s0.error).toBeNull();
        expect(s0.mode).toBe('worker');
        // it runs on its own, in real time
        await expect.poll(async () => (await state(page)).steps, { timeout: 60_000 }).toBeGreaterThan(2);
        const before = await page.evaluate(() => window.pbdGallery.positions());
        expect(before.length).toBeGreaterThan(0);
        for (let second = 1; second <= 5; second++) {
          await page.waitForTimeout(1000);
          const f = await finite(page);
          expect(f.finite, `${name}: non-finite coordinates after ${second} s`).toBe(true);
          const s = await state(page);
          expect(s.nonFinite).toBe(0);
          expect(s.recoveries).toBe(0);
        }
        expect((await state(page)).steps ?? 0, `${name}: it kept running`).toBeGreaterThan(
          (s0.steps ?? 0) + 3,
        );
        await page.keyboard.press(' ');
        await expect.poll(async () => (await state(page)).paused).toBe(true);
        const after = await page.evaluate(() => window.pbdGallery.positions());
        let moved = 0;
        for (let k = 0; k < Math.min(before.length, after.length); k++) {
          moved = Math.max(moved, Math.abs(after[k] - before[k]));
        }
        expect(moved, `${name}: nothing moved`).toBeGreaterThan(1e-4);
        await page.evaluate(() => window.pbdGallery.setPixelRatio(1)); // full resolution for the picture
        // the bodies are drawn: hiding them changes a visible part of the picture
        const px = await page.evaluate(() => window.pbdGallery.bodyPixels());
        expect(px.bodyPixels / (px.width * px.height), `${name}: bodies cover no pixels`).toBeGreaterThan(
          0.002,
        );
        expect(px.colours).toBeGreaterThan(20);
        await page.screenshot({ path: new URL(`${name}.png`, shots).pathname });
        expect(browser.errors.slice(errorsBefore)).toEqual([]);
      }));
  }
});
