/**
 * Debian's Chromium through playwright-core, launched one way for the
 * browser tests (test/browser/browser.ts) and the thumbnail and screenshot
 * script (scripts/thumbnails.ts): headless, sandbox off (containers), no
 * network chatter, and SwiftShader allowed so that WebGL works without a GPU.
 */
import { type BrowserContext, chromium } from 'playwright-core';

/** The command-line flags (the design notes' list). */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-unsafe-swiftshader',
];

/** A persistent context on the profile folder `profile` (the caller makes and removes it). */
export function launchChromium(
  profile: string,
  viewport?: { width: number; height: number },
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    ...(viewport ? { viewport } : {}),
    args: chromiumArgs,
  });
}
