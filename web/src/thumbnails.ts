/**
 * Thumbnails for the index: each scene is simulated for a moment in a
 * worker (its own world, not shared), then drawn once by a small offscreen
 * renderer. One at a time, in the background; results are kept for the
 * session.
 */
import { WebGLRenderer } from 'three';
import { type CatalogEntry, sceneAssets } from './catalog.js';
import { WorkerHost } from './sim/host.js';
import { Stage } from './view/stage.js';

const WIDTH = 480;
const HEIGHT = 300;
/** Simulated seconds before the picture is taken, and the wall-time budget for getting there. */
const SECONDS = 1.5;
const BUDGET_MS = 1500;

const cache = new Map<string, string>();
let host: WorkerHost | null = null;
let stage: Stage | null = null;
let queue: Promise<unknown> = Promise.resolve();

export function cachedThumbnail(name: string): string | undefined {
  return cache.get(name);
}

/** A PNG data URL of the scene, or null when it cannot be drawn (the scene page will say why). */
export function thumbnail(entry: CatalogEntry, isCancelled: () => boolean): Promise<string | null> {
  const job = queue.then(async () => {
    const hit = cache.get(entry.name);
    if (hit || isCancelled()) return hit ?? null;
    try {
      host ??= new WorkerHost();
      const files = await sceneAssets(entry);
      const info = await host.snapshot(entry.text, entry.file, files, SECONDS, BUDGET_MS);
      if (!stage) {
        const renderer = new WebGLRenderer({ antialias: true });
        renderer.setPixelRatio(1);
        stage = new Stage(renderer, { shadowMapSize: 1024 });
        stage.setSize(WIDTH, HEIGHT);
      }
      stage.setScene(info, true);
      stage.render();
      const url = stage.renderer.domElement.toDataURL('image/png');
      cache.set(entry.name, url);
      return url;
    } catch {
      return null;
    }
  });
  queue = job;
  return job;
}
