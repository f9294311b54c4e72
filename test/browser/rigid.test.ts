/**
 * Rigid bodies in the gallery: drawn at their poses, dragged with the mouse
 * (a soft constraint on the point under the cursor) and thrown with the key t.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type QuatRotation, quatRotate, quatRotateInverse } from '../../src/math/quat.js';
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

/** v rotated by the unit quaternion q = (x, y, z, w), or by its inverse. */
function rotate(q: number[], v: number[], rotation: QuatRotation = quatRotate): number[] {
  const out = [0, 0, 0];
  rotation(out, 0, q, 0, v[0], v[1], v[2]);
  return out;
}

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
    // and the last batch in flight has landed and been drawn: the ball on screen is at b0's pose
    // (the page grabs the point picked on the drawn pose, in that pose's frame, however far a loaded
    // worker has stepped past it: web/src/scene-page.ts pickRigid, grabRigidBody's `local`)
    await expect.poll(async () => (await state(page)).idle, { timeout: 60_000 }).toBe(true);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
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
    // the grabbed point rises to the target under the cursor. The point is on the ball's surface (the
    // ray through the centre's pixel meets the sphere at c0 + r (camera − c0) / |camera − c0|), fixed in
    // the body: held there, the ball swings until its centre hangs below it, r = 8 cm under the target.
    // (Measuring the centre, as this test once did, failed whenever the ball had swung before the poll
    // looked: 7.6 and 8.0 cm in loaded fresh-clone CI runs.) A loaded machine runs the gallery in slow
    // motion (MAX_STEPS_PER_FRAME), so the wait is long; the target is read again at each poll, since the
    // page may take the last of the 10 mouse moves after the read above.
    const cam0 = await page.evaluate(() => window.pbdGallery.cameraPosition());
    const c0 = b0.pose.slice(0, 3);
    const toCam = [cam0[0] - c0[0], cam0[1] - c0[1], cam0[2] - c0[2]];
    const n0 = Math.hypot(toCam[0], toCam[1], toCam[2]);
    const radius = 0.08; // scenes/rigid-drum.json
    const q0 = b0.pose.slice(3, 7);
    const local = rotate(
      q0,
      toCam.map((d) => (radius * d) / n0),
      quatRotateInverse,
    );
    const gap = async () => {
      const [b, t] = await Promise.all([ball(), page.evaluate(() => window.pbdGallery.dragTarget())]);
      const a = rotate(b.pose.slice(3, 7), local);
      return Math.hypot(b.pose[0] + a[0] - t![0], b.pose[1] + a[1] - t![1], b.pose[2] + a[2] - t![2]);
    };
    await expect.poll(gap, { timeout: 180_000, interval: 250 }).toBeLessThan(0.02);
    // and it has risen: the centre is within a radius of the target
    const [held, t1] = await Promise.all([ball(), page.evaluate(() => window.pbdGallery.dragTarget())]);
    expect(Math.abs(held.pose[1] - t1![1])).toBeLessThan(radius + 0.02);
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
