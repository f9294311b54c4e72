/**
 * Rigid bodies in the gallery: drawn at their poses, dragged with the mouse
 * (a soft constraint on the point under the cursor) and thrown with the key t.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Browser, launch, openScene, state } from './browser.js';

const base = inject('galleryUrl');

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launch();
  page = await browser.newPage();
  page.setDefaultNavigationTimeout(180_000);
});

afterAll(async () => {
  await browser?.close();
});

const ball = async () => (await page.evaluate(() => window.pbdGallery.rigidBodies()))[0];

describe('rigid bodies in the gallery', () => {
  it('drags the ball of the drum scene with the mouse and throws it with the key t', {
    timeout: 480_000,
  }, async () => {
    await openScene(page, base, 'rigid-drum');
    expect((await state(page)).error).toBeNull();
    await page.evaluate(() => window.pbdGallery.runUntil(1));
    // pause, so that the ball stays under the cursor while it is picked
    await page.keyboard.press(' ');
    await expect.poll(async () => (await state(page)).paused, { timeout: 20_000 }).toBe(true);
    const b0 = await ball();
    expect(b0.rigid).toBe(0);
    // press on the ball and pull the cursor up by 120 px
    const p0 = await page.evaluate((p) => window.pbdGallery.projectPoint(p), b0.pose.slice(0, 3));
    await page.mouse.move(p0.x, p0.y);
    await page.mouse.down();
    await expect.poll(async () => (await state(page)).lastPick, { timeout: 20_000 }).toMatch(/^rigid /);
    await page.keyboard.press(' ');
    await expect.poll(async () => (await state(page)).paused, { timeout: 20_000 }).toBe(false);
    await page.mouse.move(p0.x, p0.y - 120, { steps: 10 });
    const target = (await page.evaluate(() => window.pbdGallery.dragTarget()))!;
    expect(target[1]).toBeGreaterThan(b0.pose[1] + 0.1);
    // the ball rises to the target under the cursor (a loaded machine runs the gallery in slow
    // motion, MAX_STEPS_PER_FRAME: the wait is for simulated time, so it is long; a fresh-clone CI
    // run with two browser files at once once stopped at 7.6 cm after 60 s, alone it takes 15 s)
    // the target is read again at each poll: the page may take the last of the 10 mouse moves after
    // the read above (two fresh-clone CI runs stopped 7.6 and 8.0 cm from a target read one move early,
    // where others reached it in 20 s)
    const gap = async () => {
      const [b, t] = await Promise.all([ball(), page.evaluate(() => window.pbdGallery.dragTarget())]);
      return Math.abs(b.pose[1] - t![1]);
    };
    await expect.poll(gap, { timeout: 180_000, interval: 250 }).toBeLessThan(0.05);
    await page.mouse.up();
    // t throws the last body dragged away from the camera: it moves away along the view direction
    const before = await ball();
    const cam = await page.evaluate(() => window.pbdGallery.cameraPosition());
    await page.keyboard.press('t');
    await expect.poll(async () => (await state(page)).lastPick, { timeout: 20_000 }).toMatch(/^threw rigid /);
    const dist = (p: number[]) => Math.hypot(p[0] - cam[0], p[1] - cam[1], p[2] - cam[2]);
    await expect
      .poll(async () => dist((await ball()).pose) - dist(before.pose), { timeout: 120_000, interval: 250 })
      .toBeGreaterThan(0.3);
    const s = await state(page);
    expect(s.speedClamps ?? 0).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
