/**
 * The gallery's entry: routes `#scene=<name>` to a scene page and anything
 * else to the index, and runs scene files dropped on the page.
 */
import { WebGLRenderer } from 'three';
import { parseSceneText, SceneError } from '../../src/index.js';
import { addDroppedScene, findScene } from './catalog.js';
import { IndexPage } from './index-page.js';
import { ScenePage } from './scene-page.js';
import { describeError } from './sim/core.js';
import { canShareMemory } from './sim/host.js';
import { SourcesPage } from './sources-page.js';
import { hideError, showError } from './ui/errors.js';
import { measureBodyPixels, measureSurface } from './view/measure.js';
import './style.css';

const app = document.getElementById('app')!;
let page: IndexPage | ScenePage | SourcesPage | null = null;
let renderer: WebGLRenderer | null = null;

function sceneRenderer(): WebGLRenderer {
  if (!renderer) {
    renderer = new WebGLRenderer({ antialias: true, powerPreference: 'high-performance' });
    renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
  }
  return renderer;
}

function route(): void {
  page?.dispose();
  page = null;
  hideError();
  const src = /^#sources(?:\/(\w+))?$/.exec(location.hash);
  if (src) {
    document.title = 'Sources · pbdkit gallery';
    page = new SourcesPage(app, src[1] ?? null);
    return;
  }
  const m = /^#scene=(.+)$/.exec(location.hash);
  if (m) {
    const name = decodeURIComponent(m[1]);
    const entry = findScene(name);
    document.title = entry ? `${entry.title} · pbdkit gallery` : 'pbdkit gallery';
    if (entry) {
      page = new ScenePage(app, entry, sceneRenderer());
      return;
    }
    showError({
      file: name,
      code: 'gallery/unknown-scene',
      message: `There is no scene '${name}' in scenes/ (dropped scenes last only until the page is reloaded).`,
      issues: [],
    });
  }
  document.title = 'pbdkit gallery';
  page = new IndexPage(app, canShareMemory());
}

window.addEventListener('hashchange', route);
// `?still`: the picture without panels (scripts/thumbnails.ts renders thumbnails this way)
document.body.classList.toggle('still', new URLSearchParams(location.search).has('still'));

// ---- dropping scene files -----------------------------------------------------

window.addEventListener('dragover', (e) => {
  e.preventDefault();
  document.body.classList.add('drop-target');
});
window.addEventListener('dragleave', (e) => {
  if (e.relatedTarget === null) document.body.classList.remove('drop-target');
});
window.addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('drop-target');
  const files = [...(e.dataTransfer?.files ?? [])];
  void runDropped(files);
});

/** Validates a dropped scene (errors name their JSON paths, in the page) and runs it. */
async function runDropped(files: File[]): Promise<void> {
  const scene = files.find((f) => /\.json$/i.test(f.name));
  if (!scene) {
    showError({
      file: files.map((f) => f.name).join(', ') || 'the dropped item',
      code: 'gallery/no-scene',
      message: 'Drop a scene .json file (together with the mesh files it names, if any).',
      issues: [],
    });
    return;
  }
  const text = await scene.text();
  try {
    parseSceneText(text, scene.name);
  } catch (err) {
    showError(describeError(err, scene.name), `${scene.name} is not a valid scene`);
    if (!(err instanceof SceneError)) console.info(err);
    return;
  }
  const assets: Record<string, string> = {};
  for (const f of files) if (f !== scene) assets[f.name] = await f.text();
  const entry = addDroppedScene(scene.name, text, assets);
  const hash = `#scene=${encodeURIComponent(entry.name)}`;
  if (location.hash === hash) route();
  else location.hash = hash;
}

// ---- a small window into the running page, for the browser tests ----------

function current(): ScenePage {
  if (!(page instanceof ScenePage)) throw new Error('no scene is open');
  return page;
}

const hooks = {
  /** What the page shows: index or scene, and the simulation's state. */
  state() {
    if (!(page instanceof ScenePage)) {
      return {
        page: page instanceof SourcesPage ? 'sources' : 'index',
        scenes: [...document.querySelectorAll('.scene-card')].length,
      } as const;
    }
    const p = page;
    const f = p.frame;
    return {
      page: 'scene',
      scene: p.entry.name,
      ready: p.info !== null,
      error: p.error,
      mode: p.host.mode,
      paused: p.run.paused,
      idle: p.idle,
      time: f?.time ?? 0,
      steps: f?.steps ?? 0,
      recoveries: f?.recoveries ?? 0,
      speedClamps: f?.speedClamps ?? 0,
      energyWarning: f?.energyWarning ?? null,
      nonFinite: f?.nonFinite ?? 0,
      particles: f?.particleCount ?? 0,
      grabbed: f?.grabbed ?? -1,
      lastPick: p.lastPick,
      fps: p.fps,
      wasm: p.info?.constraintKinds.filter((k) => k.wasm > 0).map((k) => k.kind) ?? [],
      threads: p.info?.world.threads ?? 1,
      workerBlocks: f?.workerBlocks ?? 0,
      threadsAvailable: p.info?.threadsAvailable ?? 1,
      bodies: p.stage.bodies.map((b) => ({ offset: b.mirror.offset, activeCount: b.mirror.activeCount })),
    } as const;
  },
  /** Every active particle's position, flattened (a copy). */
  positions(): number[] {
    const p = current();
    const x = p.stage.store!.x;
    const out: number[] = [];
    for (const b of p.stage.bodies) {
      for (let i = b.mirror.offset; i < b.mirror.offset + b.mirror.activeCount; i++) {
        out.push(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
      }
    }
    return out;
  },
  /**
   * Per body: whether it draws a render mesh of its own, whether the page
   * reads it on shared memory, the vertices drawn, the largest difference
   * between the drawn vertices and the simulation's (render vertices, or
   * particles), and the bounding boxes of the drawn surface and of the
   * particles.
   */
  renderMeshes() {
    const p = current();
    const x = p.stage.store!.x;
    const box = (a: ArrayLike<number>, from: number, to: number) => {
      const lo = [Infinity, Infinity, Infinity];
      const hi = [-Infinity, -Infinity, -Infinity];
      for (let k = from; k < to; k++) {
        lo[k % 3] = Math.min(lo[k % 3], a[k]);
        hi[k % 3] = Math.max(hi[k % 3], a[k]);
      }
      return { lo, hi };
    };
    return p.stage.bodies.map((b) => {
      const m = b.mirror;
      const g = b.surface;
      const source = m.hasRenderMesh ? m.renderPositions() : x.subarray(3 * m.offset);
      const drawn = g ? (g.getAttribute('position').array as Float32Array) : null;
      const n = g ? g.vertexCount : 0;
      let maxDiff = 0;
      for (let k = 0; k < 3 * n; k++) maxDiff = Math.max(maxDiff, Math.abs(drawn![k] - source[k]));
      return {
        hasRenderMesh: m.hasRenderMesh,
        shared:
          m.hasRenderMesh &&
          typeof SharedArrayBuffer !== 'undefined' &&
          m.renderPositions().buffer instanceof SharedArrayBuffer,
        vertices: n,
        particles: m.activeCount,
        triangles: m.triangles.length / 3,
        maxDiff,
        drawn: drawn ? box(drawn, 0, 3 * n) : null,
        particleBox: box(x, 3 * m.offset, 3 * (m.offset + m.activeCount)),
      };
    });
  },
  particle(i: number): number[] {
    const x = current().stage.store!.x;
    return [x[3 * i], x[3 * i + 1], x[3 * i + 2]];
  },
  invMass(i: number): number {
    return current().stage.store!.invMass[i];
  },
  project(i: number) {
    return current().project(i);
  },
  /** The drawn rigid bodies: collider index, rigid store index and pose (xyz, quaternion) in the last frame. */
  rigidBodies(): { collider: number; rigid: number; pose: number[] }[] {
    const p = current();
    const poses = p.frame?.colliderPoses;
    return (p.info?.colliders ?? []).flatMap((c, k) =>
      c.rigid >= 0
        ? [
            {
              collider: k,
              rigid: c.rigid,
              pose: poses ? Array.from(poses.subarray(7 * k, 7 * k + 7)) : c.pose,
            },
          ]
        : [],
    );
  },
  /** The camera's position (world). */
  cameraPosition(): number[] {
    return current().stage.camera.position.toArray();
  },
  projectPoint(p: number[]) {
    return current().projectPoint(p);
  },
  dragTarget(): number[] | null {
    return current().dragTarget?.toArray() ?? null;
  },
  /** Fixes the drawing resolution (null: adapt to the frame rate). */
  setPixelRatio(ratio: number | null): void {
    current().setPixelRatio(ratio);
  },
  /** Pixels covered by the simulated bodies in a fresh render (see Stage.measureBodyPixels). */
  bodyPixels() {
    return measureBodyPixels(current().stage);
  },
  runUntil(time: number): Promise<void> {
    return current().runUntil(time);
  },
  /** Rebuilds the scene on n threads, as the panel's threads control does. */
  setThreads(n: number): void {
    current().configureWorld({ threads: n });
  },
  /**
   * Where things are on screen (client pixels): each body's drawn bounding
   * box projected, the recorded action box the camera frames (projected), the free part of the view the camera frames into, the
   * canvas, and the panels over it (visible ones only).
   */
  framing() {
    const p = current();
    const c = p.stage.renderer.domElement.getBoundingClientRect();
    const free = p.freeRect();
    const rect = (r: DOMRect) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
    return {
      canvas: rect(c),
      free: {
        left: free.left + c.left,
        right: free.right + c.left,
        top: free.top + c.top,
        bottom: free.bottom + c.top,
      },
      bodies: p.bodyRects(),
      action: p.actionRect(),
      panels: [...document.querySelectorAll('.scene-bar, .panel-host, details.stats')]
        .map((e) => ({ name: e.className, ...rect(e.getBoundingClientRect()) }))
        .filter((r) => r.right > r.left && r.bottom > r.top),
    };
  },
  /** Body pixels and the roughness inside them, with fluids drawn as a surface or as balls. */
  surfacePixels(surface: boolean) {
    return measureSurface(current().stage, surface);
  },
  /** The plots' titles, axis units and series. */
  plots() {
    return current().plots.describe();
  },
  /** The picture as an image (a data URL), rendered now: what `npm run thumbnails` saves. */
  still(type = 'image/webp', quality = 0.82): string {
    const p = current();
    p.stage.render();
    return p.stage.renderer.domElement.toDataURL(type, quality);
  },
};

declare global {
  interface Window {
    pbdGallery: typeof hooks;
  }
}
window.pbdGallery = hooks;

route();
