/**
 * Renders the index's thumbnails: every scene in headless Chromium (Debian's,
 * through playwright-core) with the gallery's own renderer and framing,
 * `--time` simulated seconds in, saved as small WebP images in
 * web/thumbnails/<scene>.webp (committed; the index shows them at once).
 *
 *   npm run thumbnails [-- --only name,name] [--time 2]
 *   npx tsx scripts/thumbnails.ts --shots DIR [--time 2]
 *       full-window screenshots instead, at 1280×800 and 390×844 (DIR/<scene>-<w>x<h>.png)
 *
 * Run it after adding or changing a scene (after scripts/scene-views.ts, which
 * places the camera); test/gallery-assets.test.ts fails while a scene has no
 * thumbnail.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { build, preview } from 'vite';
import { launchChromium } from './chromium.js';
import { scriptOption as opt, sceneFiles } from './shipped-scenes.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const only = opt('only')?.split(',');
const time = Number(opt('time') ?? 2);
const shots = opt('shots');
const outDir = join(repo, 'web', 'thumbnails');
const names = sceneFiles(only).map((f) => f.slice(0, -5));

const configFile = join(repo, 'web', 'vite.config.ts');
const dist = mkdtempSync(join(tmpdir(), 'pbdkit-thumbs-'));
await build({ configFile, logLevel: 'error', build: { outDir: dist, emptyOutDir: true } });
const server = await preview({
  configFile,
  logLevel: 'error',
  build: { outDir: dist },
  preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
});
const base = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/`;
const profile = mkdtempSync(join(tmpdir(), 'pbdkit-thumbs-chromium-'));
const context = await launchChromium(profile);
const page = context.pages()[0] ?? (await context.newPage());
page.on('pageerror', (e) => console.error(`page error: ${e.message}`));

async function open(p: Page, url: string): Promise<void> {
  await p.goto(url);
  await p.waitForFunction(
    () => {
      const s = window.pbdGallery?.state();
      return s?.page === 'scene' && (s.ready || s.error !== null);
    },
    null,
    { timeout: 120_000 },
  );
  await p.evaluate((t) => window.pbdGallery.runUntil(t), time);
  await p.keyboard.press(' ');
  await p.evaluate(() => window.pbdGallery.setPixelRatio(1));
  await p.waitForTimeout(300);
}

if (shots) mkdirSync(shots, { recursive: true });
else mkdirSync(outDir, { recursive: true });
for (const name of names) {
  const t0 = performance.now();
  if (shots) {
    for (const [w, h] of [
      [1280, 800],
      [390, 844],
    ]) {
      await page.setViewportSize({ width: w, height: h });
      await open(page, `${base}#scene=${name}`);
      await page.screenshot({ path: join(shots, `${name}-${w}x${h}.png`) });
    }
  } else {
    await page.setViewportSize({ width: 480, height: 300 });
    await open(page, `${base}?still#scene=${name}`);
    const url = await page.evaluate(() => window.pbdGallery.still('image/webp', 0.8));
    const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    writeFileSync(join(outDir, `${name}.webp`), bytes);
  }
  console.log(`${name.padEnd(34)} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
await context.close();
await server.close();
rmSync(dist, { recursive: true, force: true });
rmSync(profile, { recursive: true, force: true });
