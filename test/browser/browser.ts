/** Launching Debian's Chromium (scripts/chromium.ts) and watching the console. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.js';

export const artifacts = new URL('../../test-artifacts/', import.meta.url);

export interface Browser {
  context: BrowserContext;
  /** Console errors and uncaught exceptions of every page, as text. */
  errors: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launch(viewport = { width: 1100, height: 700 }): Promise<Browser> {
  const dir = mkdtempSync(join(tmpdir(), 'pbdkit-chromium-'));
  const context = await launchChromium(dir, viewport);
  // a loaded 2-core machine (several engineers' tests at once) takes far longer than Playwright's
  // 30 s to build a heavy scene in the worker; the test's own timeout still bounds every wait
  context.setDefaultTimeout(180_000);
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console error on ${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`uncaught on ${page.url()}: ${e.message}`));
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  mkdirSync(artifacts, { recursive: true });
  return {
    context,
    errors,
    newPage: async () => context.pages().find((p) => p.url() === 'about:blank') ?? context.newPage(),
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The page's test window (web/src/main.ts). */
export type GalleryHooks = Window['pbdGallery'];

/** Opens a scene and waits until it has loaded (or failed to). */
export async function openScene(page: Page, base: string, name: string): Promise<void> {
  await page.goto(`${base}#scene=${encodeURIComponent(name)}`);
  await page.waitForFunction(() => {
    const s = window.pbdGallery?.state();
    return s?.page === 'scene' && (s.ready || s.error !== null);
  });
}

export function state(page: Page) {
  return page.evaluate(() => window.pbdGallery.state());
}
