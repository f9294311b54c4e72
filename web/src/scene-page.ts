/**
 * One scene, live: the simulation (worker or main thread), the three.js
 * view with orbit camera and mouse drag, the panel, the readout and plots.
 *
 * The page asks for a batch of steps, and while the worker computes it the
 * page keeps rendering the last state; when the batch is done the worker is
 * idle, so the page copies a complete state into the geometry and only then
 * asks for the next batch. Steps are of fixed length dt (deterministic); the
 * number per frame follows real time (times the time scale), at most
 * MAX_STEPS_PER_FRAME, so a slow scene runs in slow motion rather than
 * falling behind.
 */
import {
  type Box3,
  LineSegments,
  type Object3D,
  Plane,
  Raycaster,
  Vector2,
  Vector3,
  type WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { BodyTubes } from '../../src/three/body-tubes.js';
import { type CatalogEntry, sceneAssets } from './catalog.js';
import { createSimHost, LoadFailure, type SimHost } from './sim/host.js';
import type { FrameInfo, LoadError, SceneInfo, Vec3, WorldSettings } from './sim/protocol.js';
import { findSource } from './sources.js';
import { showError } from './ui/errors.js';
import { Panel, type RunState } from './ui/panel.js';
import { formatValue, Plots } from './ui/plots.js';
import { actionBox, centreOn, fitBox, freeRect, projectBox, type Rect } from './view/framing.js';
import { nearestParticle, pickNear } from './view/picking.js';
import { Stage } from './view/stage.js';

const MAX_STEPS_PER_FRAME = 4;
/** Below this width the panels start closed and the side column becomes a bar at the bottom (style.css). */
const NARROW = '(max-width: 700px)';

interface Drag {
  /** The particle dragged, or −1 for a rigid body. */
  particle: number;
  /** The collider of the rigid body dragged, or −1. */
  rigid: number;
  plane: Plane;
  target: Vector3;
  pointerId: number;
}

export class ScenePage {
  readonly root: HTMLElement;
  readonly entry: CatalogEntry;
  readonly host: SimHost;
  readonly stage: Stage;
  info: SceneInfo | null = null;
  frame: FrameInfo | null = null;
  fps = 0;
  /** Set when the scene failed to load. */
  error: LoadError | null = null;
  readonly run: RunState = { paused: false, timeScale: 1, dragPull: 1 };
  private readonly controls: OrbitControls;
  private panel: Panel | null = null;
  readonly plots: Plots;
  private readonly viewport: HTMLElement;
  private readonly readout: HTMLElement;
  private busy = true;
  /** No step batch or reset in flight (the shared positions are those of `frame`). */
  get idle(): boolean {
    return !this.busy && !this.resetRequested;
  }
  private owed = 0;
  private singleSteps = 0;
  private resetRequested = false;
  private dt = 1 / 60;
  private substeps = 10;
  private raf = 0;
  private last = 0;
  private fpsFrames = 0;
  private fpsStart = 0;
  private readoutAt = 0;
  private disposed = false;
  private drag: Drag | null = null;
  private pointer: Vector2 | null = null;
  private hoverDirty = false;
  private readonly raycaster = new Raycaster();
  private readonly resizeObserver: ResizeObserver;
  private fastForward: { time: number; resolve: () => void } | null = null;
  private lastFrame = 0;
  private renderedAt = 0;
  private rateSample = { wall: 0, sim: 0 };
  private rate = 1;
  private lastRenderedAt = -1;
  private needsRender = true;
  /** What the last press on the view picked (for diagnostics). */
  lastPick = '';
  /** The collider of the rigid body last dragged or thrown (the key t throws it), or −1. */
  private lastRigid = -1;
  /** Smoothed interval between rendered frames (ms). */
  frameMs = 16;
  private resolutionChangedAt = 0;
  private fixedPixelRatio: number | null = null;
  /** The visitor moved the camera: layout changes no longer refit it. */
  private cameraMoved = false;
  /** The box the camera was last fitted to (framing.ts: actionBox), for the tests. */
  private action: Box3 | null = null;
  private readonly narrowQuery: MediaQueryList;
  /** The layout the panels were last set for (narrow: closed). */
  private narrow: boolean;
  /** Elements over the canvas (the free part of the view is what they leave). */
  private readonly overlays: HTMLElement[];
  private readonly pace: HTMLElement;
  private readonly statsSummary: HTMLElement;

  constructor(parent: HTMLElement, entry: CatalogEntry, renderer: WebGLRenderer) {
    this.entry = entry;
    this.root = el('div', 'scene-page');
    this.viewport = el('div', 'viewport');
    this.viewport.append(renderer.domElement);
    const narrow = window.matchMedia(NARROW).matches;
    // the top bar: title, the pace, the paper it comes from, and (on demand) what it shows
    const bar = el('header', 'scene-bar card');
    const titleRow = el('div', 'title-row');
    const back = el('a', 'back');
    back.href = '#';
    back.textContent = '← All scenes';
    const title = el('h1');
    title.textContent = entry.title;
    this.pace = text('span', 'pace', '');
    this.pace.dataset.testid = 'pace';
    titleRow.append(back, title, this.pace);
    bar.append(titleRow);
    if (entry.figure) {
      const figure = el('p', 'figure');
      figure.append(...figureLinks(entry.figure));
      bar.append(figure);
    }
    if (entry.offline) {
      const off = text(
        'p',
        'offline',
        `Offline scene: too heavy for real time on one core, so it runs in slow motion here. ${entry.offline}`,
      );
      off.dataset.testid = 'offline';
      bar.append(off);
    }
    const about = el('details');
    about.append(text('summary', '', 'About this scene'));
    if (entry.description) about.append(text('p', 'description', entry.description));
    const mode = el('p', 'mode');
    const keys = el('p', 'keys');
    keys.innerHTML =
      '<kbd>space</kbd> pause · <kbd>s</kbd> single step · <kbd>r</kbd> reset<br>' +
      'drag the surface to pull it, release to throw; drag elsewhere to orbit, right-drag to pan, wheel to zoom<br>' +
      '<kbd>t</kbd> throws the rigid body under the cursor (or the last one dragged) away from the camera';
    about.append(mode, keys);
    bar.append(about);
    // the side column: parameters and readout, each collapsible (closed on narrow screens)
    const side = el('aside', 'side');
    const panelHost = el('div', 'panel-host');
    const stats = el('details', 'stats card');
    stats.open = !narrow;
    this.statsSummary = text('summary', '', 'Readout');
    this.readout = el('div', 'readout');
    this.readout.dataset.testid = 'readout';
    const plots = el('div', 'plots');
    stats.append(this.statsSummary, this.readout, plots);
    stats.addEventListener('toggle', () => this.layoutChanged());
    side.append(panelHost, stats);
    this.overlays = [bar, panelHost, stats];
    const loading = text('div', 'loading', 'Loading…');
    this.root.append(this.viewport, bar, side, loading);
    parent.append(this.root);
    about.addEventListener('toggle', () => this.layoutChanged());

    this.stage = new Stage(renderer);
    this.host = createSimHost();
    this.host.onError = (e) => showError(e, 'Setting rejected');
    mode.textContent =
      this.host.mode === 'worker'
        ? 'Simulation in a Web Worker (SharedArrayBuffer)'
        : 'Simulation on the main thread: this page is not cross-origin isolated, so SharedArrayBuffer is unavailable';
    mode.classList.toggle('fallback', this.host.mode === 'main');
    mode.dataset.testid = 'sim-mode';
    this.plots = new Plots(plots);

    // the drag handler runs in the capture phase, before OrbitControls sees the event
    this.viewport.addEventListener('pointerdown', this.onPointerDown, { capture: true });
    this.controls = new OrbitControls(this.stage.camera, renderer.domElement);
    this.controls.enableDamping = true;
    this.controls.dampingFactor = 0.12;
    // the camera follows the layout until the visitor moves it
    this.controls.addEventListener('start', () => {
      this.cameraMoved = true;
    });
    window.addEventListener('pointermove', this.onPointerMove);
    window.addEventListener('pointerup', this.onPointerUp);
    window.addEventListener('pointercancel', this.onPointerUp);
    window.addEventListener('keydown', this.onKey);
    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(this.viewport);
    this.narrowQuery = window.matchMedia(NARROW);
    this.narrow = this.narrowQuery.matches;
    this.resize();
    this.raf = requestAnimationFrame(this.tick);
    this.load(panelHost, loading);
  }

  private async load(panelHost: HTMLElement, loading: HTMLElement): Promise<void> {
    try {
      const files = await sceneAssets(this.entry);
      const info = await this.host.load(this.entry.text, this.entry.file, files);
      if (this.disposed) return;
      this.setInfo(info, false);
      this.panel = new Panel(panelHost, info, this.stage.overlays, this.run, {
        world: (s) => this.configureWorld(s),
        tunable: (b, name, v) => this.host.setTunable(b, name, v),
        overlays: (o) => {
          this.stage.setOverlays(o);
          this.needsRender = true;
        },
        pause: (p) => this.setPaused(p),
        step: () => this.singleStep(),
        reset: () => this.reset(),
      });
      if (this.narrowQuery.matches) this.panel.gui.close();
      this.panel.gui.onOpenClose(() => this.layoutChanged());
      loading.remove();
      this.frameView(true);
      this.busy = false;
    } catch (e) {
      if (this.disposed) return;
      const err: LoadError =
        e instanceof LoadFailure
          ? e.error
          : { file: this.entry.file, code: 'error', message: String((e as Error)?.message ?? e), issues: [] };
      this.error = err;
      loading.textContent = `${this.entry.file} could not be loaded.`;
      loading.classList.add('failed');
      showError(err);
    }
  }

  private setInfo(info: SceneInfo, frameCamera: boolean): void {
    this.info = info;
    this.frame = info.frame;
    this.dt = info.world.dt;
    this.substeps = info.world.substeps;
    this.stage.setScene(info);
    this.needsRender = true;
    if (frameCamera) this.frameView(true);
    this.plots.clear();
    this.updateReadout(performance.now(), true);
  }

  /** Changes world settings as the panel does (threads restart the scene). */
  configureWorld(s: Partial<WorldSettings>): void {
    if (s.dt !== undefined) this.dt = s.dt;
    if (s.substeps !== undefined) this.substeps = s.substeps;
    this.host.configureWorld(s);
    // a world's threads are chosen when it is built: the scene starts again on them
    if (s.threads !== undefined) this.reset();
  }

  setPaused(paused: boolean): void {
    this.run.paused = paused;
    this.owed = 0;
    this.panel?.setPaused(paused);
  }

  singleStep(): void {
    if (!this.run.paused) this.setPaused(true);
    this.singleSteps++;
  }

  reset(): void {
    this.resetRequested = true;
    if (!this.busy) void this.doReset();
  }

  private async doReset(): Promise<void> {
    this.resetRequested = false;
    this.busy = true;
    this.endDrag();
    try {
      const info = await this.host.reset();
      if (this.disposed) return;
      this.setInfo(info, false);
    } catch (e) {
      if (e instanceof LoadFailure) showError(e.error);
    }
    this.owed = 0;
    this.busy = false;
  }

  /** Advances the simulation until its time reaches `time` as fast as it can (used by the browser tests). */
  runUntil(time: number): Promise<void> {
    return new Promise((resolve) => {
      this.fastForward = { time, resolve };
    });
  }

  private tick = (now: number): void => {
    if (this.disposed) return;
    this.raf = requestAnimationFrame(this.tick);
    this.maybeStep();
    if (this.hoverDirty && !this.drag) this.updateHover();
    if (this.controls.update()) this.needsRender = true;
    if (this.drag) {
      this.stage.showDrag(this.drag.particle, this.drag.target);
      this.needsRender = true;
    }
    // draw only when something changed; while fast-forwarding (tests) draw once a second
    // and leave the CPU to the simulation
    const due = this.fastForward ? now - this.renderedAt > 1000 : this.needsRender;
    if (due) {
      this.adaptResolution(now);
      this.renderedAt = now;
      this.needsRender = false;
      this.stage.render();
      this.fpsFrames++;
    }
    if (now - this.fpsStart >= 500) {
      this.fps = (1000 * this.fpsFrames) / (now - this.fpsStart);
      this.fpsFrames = 0;
      this.fpsStart = now;
    }
    this.plots.draw(now);
    this.updateReadout(now, false);
  };

  /** Real time owed to the simulation (s), accumulated since the last call. */
  private accrue(): void {
    const now = performance.now();
    const elapsed = this.last ? Math.min(0.1, (now - this.last) / 1000) : 0;
    this.last = now;
    if (this.info && !this.run.paused) this.owed += elapsed * this.run.timeScale;
  }

  /**
   * Asks for the next batch of steps if the simulation is idle and owes any.
   * Called every frame, and in worker mode also as soon as a batch is done,
   * so the simulation does not wait for a slow renderer.
   */
  private maybeStep(): void {
    this.accrue();
    if (this.busy || !this.info) return;
    const time = this.frame?.time ?? 0;
    let n = 0;
    let budget = 0;
    const ff = this.fastForward;
    if (ff && time + 1e-9 >= ff.time) {
      this.fastForward = null;
      ff.resolve();
    }
    if (this.fastForward) {
      n = Math.ceil((this.fastForward.time - time) / this.dt - 1e-9);
      budget = 50;
    } else if (this.singleSteps > 0) {
      n = 1;
      this.singleSteps--;
    } else if (!this.run.paused) {
      n = Math.min(MAX_STEPS_PER_FRAME, Math.floor(this.owed / this.dt + 1e-9));
      this.owed = Math.min(this.owed - n * this.dt, MAX_STEPS_PER_FRAME * this.dt);
      budget = this.host.mode === 'worker' ? 100 : 30;
    }
    if (n <= 0) return;
    this.busy = true;
    const r = this.host.step(n, budget);
    if (r instanceof Promise) r.then(this.onFrame, (e) => this.onStepError(e));
    else this.onFrame(r);
  }

  /**
   * Lowers the drawing resolution when frames take too long (a slow GPU, or
   * software rendering) and raises it again when there is room, at most
   * once a second; `fixedPixelRatio` turns this off.
   */
  private adaptResolution(now: number): void {
    // only intervals between frames drawn back to back say how long drawing takes
    const interval = now - this.lastFrame;
    this.lastFrame = now;
    if (interval > 0 && interval < 500 && this.renderedAt === this.lastRenderedAt) {
      this.frameMs = 0.9 * this.frameMs + 0.1 * interval;
    }
    this.lastRenderedAt = now;
    if (this.fixedPixelRatio !== null || now - this.resolutionChangedAt < 1000) return;
    const r = this.stage.renderer;
    const max = Math.min(window.devicePixelRatio, 2);
    let ratio = r.getPixelRatio();
    if (this.frameMs > 40 && ratio > 0.5) ratio = Math.max(0.5, ratio * 0.75);
    else if (this.frameMs < 20 && ratio < max) ratio = Math.min(max, ratio / 0.75);
    else return;
    this.resolutionChangedAt = now;
    r.setPixelRatio(ratio);
    this.resize();
  }

  /** Fixes the drawing resolution (null: adapt to the frame rate). */
  setPixelRatio(ratio: number | null): void {
    this.fixedPixelRatio = ratio;
    const r = this.stage.renderer;
    r.setPixelRatio(ratio ?? Math.min(window.devicePixelRatio, 2));
    this.resize();
  }

  private onFrame = (f: FrameInfo): void => {
    if (this.disposed) return;
    this.frame = f;
    this.stage.applyFrame(f);
    this.needsRender = true;
    if (f.stepped > 0) {
      this.plots.push({
        time: f.time,
        kineticEnergy: f.kineticEnergy,
        violations: f.violations,
        stepMs: f.stepMs,
        dtMs: 1000 * this.dt,
      });
    }
    this.busy = false;
    if (this.resetRequested) void this.doReset();
    else if (this.host.mode === 'worker') this.maybeStep();
  };

  private onStepError(e: unknown): void {
    if (this.disposed) return;
    if (e instanceof LoadFailure) showError(e.error, 'The simulation stopped');
    this.setPaused(true);
    this.busy = false;
  }

  private updateReadout(now: number, force: boolean): void {
    if (!force && now - this.readoutAt < 250) return;
    this.readoutAt = now;
    const f = this.frame;
    const info = this.info;
    if (!f || !info) return;
    // simulated seconds per real second over the last second or so
    const rs = this.rateSample;
    if (now - rs.wall >= 1000 || f.time < rs.sim) {
      this.rate = f.time >= rs.sim && now > rs.wall ? ((f.time - rs.sim) * 1000) / (now - rs.wall) : 1;
      this.rateSample = { wall: now, sim: f.time };
    }
    // the pace: what the visitor sees (simulated per real second), and what the physics alone allows
    const capacity = f.stepMs > 0 ? (1000 * this.dt) / f.stepMs : 0;
    const pace = this.run.paused
      ? 'paused'
      : this.fastForward
        ? 'fast-forward'
        : `${this.rate.toFixed(2)}× real time`;
    this.pace.textContent = pace;
    this.pace.classList.toggle(
      'slow',
      !this.run.paused && !this.fastForward && this.rate < 0.9 * this.run.timeScale,
    );
    this.pace.title = `physics ${f.stepMs.toFixed(2)} ms per step of ${(1000 * this.dt).toFixed(1)} ms: it could run at ${capacity.toFixed(2)}× real time`;
    this.statsSummary.textContent = `Readout · ${pace}`;
    const rows: [string, string][] = [
      ['real time', `${pace} (physics alone: ${capacity.toFixed(2)}×)`],
      ['physics', `${f.stepMs.toFixed(2)} ms per step of ${(1000 * this.dt).toFixed(1)} ms`],
      [
        'frame rate',
        `${now - this.renderedAt > 1000 ? 'idle' : `${this.fps.toFixed(0)} fps`}${this.renderScale()}`,
      ],
      ['particles', f.particleCount.toLocaleString('en')],
      ['constraints', f.constraintCount.toLocaleString('en')],
      ...this.wasmRow(),
      ['time', `${f.time.toFixed(2)} s · step ${f.steps}`],
      ...this.threadsRow(),
      ...timeRows(f),
      ...f.violations.map((v): [string, string] => [
        `violation: ${v.kind}`,
        formatViolation(v.value, v.unit),
      ]),
    ];
    if (f.recoveries || f.speedClamps) {
      rows.push(['guards', `${f.recoveries} NaN recoveries, ${f.speedClamps} speed clamps`]);
    }
    const warnings: HTMLElement[] = [];
    // a solver blow-up (kinetic energy from nowhere, EnergyWatch) stays on screen until a reset
    if (f.energyWarning) warnings.push(text('div', 'warn', `⚠ energy: ${f.energyWarning}`));
    this.readout.replaceChildren(
      ...rows.map(([k, v]) => {
        const row = el('div', 'row');
        row.append(text('span', 'k', k), text('span', 'v', v));
        return row;
      }),
      ...warnings,
    );
  }

  /** The threads the world computes on, where more than one could be chosen. */
  private threadsRow(): [string, string][] {
    const info = this.info;
    if (!info || info.threadsAvailable <= 1) return [];
    const blocks = this.frame?.workerBlocks ?? 0;
    const workers = info.world.threads > 1 ? ` · ${blocks.toLocaleString('en')} blocks done by workers` : '';
    return [['threads', `${info.world.threads} of ${info.threadsAvailable}${workers}`]];
  }

  /** Which constraint kinds WebAssembly kernels project, if any. */
  private wasmRow(): [string, string][] {
    const kinds = this.info?.constraintKinds.filter((k) => k.wasm > 0).map((k) => k.kind) ?? [];
    return kinds.length > 0 ? [['WebAssembly', kinds.join(', ')]] : [];
  }

  private renderScale(): string {
    const ratio = this.stage.renderer.getPixelRatio() / Math.min(window.devicePixelRatio, 2);
    return ratio < 0.99 ? ` · ${Math.round(100 * ratio)} % resolution` : '';
  }

  // ---- mouse -------------------------------------------------------------

  private setRay(clientX: number, clientY: number): void {
    const rect = this.stage.renderer.domElement.getBoundingClientRect();
    const ndc = new Vector2(
      ((clientX - rect.left) / rect.width) * 2 - 1,
      -((clientY - rect.top) / rect.height) * 2 + 1,
    );
    this.raycaster.setFromCamera(ndc, this.stage.camera);
    this.raycaster.params.Points.threshold = 0.01 * this.stage.radius;
    // strands are drawn one pixel wide: pick within a few millimetres of a segment
    this.raycaster.params.Line.threshold = 0.006 * this.stage.radius;
  }

  /** The movable particle under the cursor, or −1. */
  private pick(clientX: number, clientY: number): number {
    const store = this.stage.store;
    if (!store) return -1;
    this.setRay(clientX, clientY);
    const pickables = this.stage.pickables();
    const hits = this.raycaster.intersectObjects(
      pickables.map((p) => p.object),
      false,
    );
    for (const hit of hits) {
      const p = pickables.find((q) => q.object === hit.object);
      if (!p) continue;
      const mirror = this.stage.bodies[p.body].mirror;
      const off = mirror.offset;
      if (mirror.hasRenderMesh) {
        // a render mesh's vertices are not particles: take the body's movable particle nearest to the hit
        const i = nearestParticle(this.stage, off, mirror.activeCount, hit.point);
        if (i >= 0) return i;
        continue;
      }
      let candidates: number[] = [];
      if (hit.object instanceof BodyTubes && hit.instanceId !== undefined) {
        // a rod segment drawn as a tube: its two particles
        candidates = hit.object.segment(hit.instanceId);
      } else if (hit.face && hit.instanceId === undefined) candidates = [hit.face.a, hit.face.b, hit.face.c];
      else if (hit.instanceId !== undefined) candidates = [hit.instanceId];
      else if (hit.index !== undefined && hit.object instanceof LineSegments) {
        // a strand segment: hit.index is the slot of its first vertex in the index
        const index = hit.object.geometry.getIndex();
        if (index) candidates = [index.getX(hit.index), index.getX(hit.index + 1)];
      } else if (hit.index !== undefined) candidates = [hit.index];
      const x = store.x;
      const d = (i: number) => {
        const g = 3 * (off + i);
        return Math.hypot(x[g] - hit.point.x, x[g + 1] - hit.point.y, x[g + 2] - hit.point.z);
      };
      candidates.sort((a, b) => d(a) - d(b));
      for (const c of candidates) if (store.invMass[off + c] > 0) return off + c;
    }
    return -1;
  }

  /**
   * The rigid body under the cursor: its collider's index, the point hit (world) and that point in
   * the body's frame at the pose drawn (the object's position and quaternion are the body's pose of
   * the frame on screen, which a worker may have stepped past), or null.
   */
  private pickRigid(
    clientX: number,
    clientY: number,
  ): { collider: number; point: Vector3; local: Vector3 } | null {
    const rigid = this.stage.rigidPickables();
    if (rigid.length === 0) return null;
    this.setRay(clientX, clientY);
    const hit = this.raycaster.intersectObjects(
      rigid.map((r) => r.object),
      true,
    )[0];
    if (!hit) return null;
    let o: Object3D | null = hit.object;
    while (o && !rigid.some((r) => r.object === o)) o = o.parent;
    const r = rigid.find((q) => q.object === o);
    if (!r) return null;
    const local = hit.point
      .clone()
      .sub(r.object.position)
      .applyQuaternion(r.object.quaternion.clone().invert());
    return { collider: r.collider, point: hit.point.clone(), local };
  }

  private onPointerDown = (e: PointerEvent): void => {
    if (e.button !== 0 || !this.info || e.target !== this.stage.renderer.domElement) {
      this.lastPick = `ignored: button ${e.button}, target ${(e.target as HTMLElement).tagName}`;
      return;
    }
    const rigid = this.pickRigid(e.clientX, e.clientY);
    if (rigid) {
      // a rigid body: its point under the cursor follows the pointer in the plane facing the camera
      e.stopPropagation();
      e.preventDefault();
      this.lastPick = `rigid ${rigid.collider} at (${e.clientX}, ${e.clientY})`;
      this.lastRigid = rigid.collider;
      const normal = this.stage.camera.getWorldDirection(new Vector3());
      const plane = new Plane().setFromNormalAndCoplanarPoint(normal, rigid.point);
      this.drag = { particle: -1, rigid: rigid.collider, plane, target: rigid.point, pointerId: e.pointerId };
      this.host.grabRigid(
        rigid.collider,
        rigid.point.toArray() as Vec3,
        this.run.dragPull,
        rigid.local.toArray() as Vec3,
      );
      this.viewport.classList.add('dragging');
      return;
    }
    let particle = this.pick(e.clientX, e.clientY);
    if (particle < 0) particle = pickNear(this.stage, e.clientX, e.clientY, 10);
    this.lastPick = `particle ${particle} at (${e.clientX}, ${e.clientY})`;
    if (particle < 0) return;
    e.stopPropagation(); // the camera stays put while dragging
    e.preventDefault();
    const store = this.stage.store!;
    const x = store.x;
    const at = new Vector3(x[3 * particle], x[3 * particle + 1], x[3 * particle + 2]);
    const normal = this.stage.camera.getWorldDirection(new Vector3());
    const plane = new Plane().setFromNormalAndCoplanarPoint(normal, at);
    this.drag = { particle, rigid: -1, plane, target: at.clone(), pointerId: e.pointerId };
    this.host.grab(particle, at.toArray() as Vec3, this.dragCompliance(particle));
    this.viewport.classList.add('dragging');
  };

  /** Compliance of the mouse drag for a particle: α = h² (1 − k) / (k m), see RunState.dragPull. */
  private dragCompliance(particle: number): number {
    const m = this.stage.store!.mass[particle];
    const k = this.run.dragPull;
    const h = this.dt / this.substeps;
    return m > 0 && k < 1 ? (h * h * (1 - k)) / (k * m) : 0;
  }

  private onPointerMove = (e: PointerEvent): void => {
    if (e.target === this.stage.renderer.domElement || this.drag) {
      this.pointer = new Vector2(e.clientX, e.clientY);
      this.hoverDirty = true;
    }
    const d = this.drag;
    if (!d || e.pointerId !== d.pointerId) return;
    this.setRay(e.clientX, e.clientY);
    const p = this.raycaster.ray.intersectPlane(d.plane, new Vector3());
    if (!p) return;
    d.target.copy(p);
    this.host.drag(p.toArray() as Vec3);
  };

  private onPointerUp = (e: PointerEvent): void => {
    if (this.drag && e.pointerId === this.drag.pointerId) this.endDrag();
  };

  private endDrag(): void {
    if (!this.drag) return;
    this.drag = null;
    this.host.release();
    this.viewport.classList.remove('dragging');
    this.stage.showDrag(-1, null);
    this.needsRender = true;
  }

  /** Shows a grab cursor over a draggable surface. */
  private updateHover(): void {
    this.hoverDirty = false;
    if (!this.pointer) return;
    const over =
      this.pickRigid(this.pointer.x, this.pointer.y) !== null ||
      this.pick(this.pointer.x, this.pointer.y) >= 0;
    this.viewport.classList.toggle('can-grab', over);
  }

  private onKey = (e: KeyboardEvent): void => {
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (![' ', 's', 'S', 'r', 'R', 't', 'T'].includes(e.key)) return;
    // a focused panel button would also react to the key (space clicks it): take the focus away
    if (t && t.tagName === 'BUTTON') t.blur();
    if (e.key === ' ') {
      e.preventDefault();
      this.setPaused(!this.run.paused);
    } else if (e.key === 's' || e.key === 'S') {
      this.singleStep();
    } else if (e.key === 'r' || e.key === 'R') {
      this.reset();
    } else {
      this.throwRigid();
    }
  };

  /**
   * Throws the rigid body under the cursor, or the last one dragged: 6 m/s
   * along the camera's view direction, tilted up by 1 m/s.
   */
  private throwRigid(): void {
    const under = this.pointer ? this.pickRigid(this.pointer.x, this.pointer.y) : null;
    const k = under ? under.collider : this.lastRigid;
    if (k < 0) return;
    const d = this.stage.camera.getWorldDirection(new Vector3()).multiplyScalar(6);
    this.host.throwRigid(k, [d.x, d.y + 1, d.z]);
    this.lastRigid = k;
    this.lastPick = `threw rigid ${k}`;
  }

  private resize(): void {
    if (this.narrowQuery.matches !== this.narrow) this.setNarrow(this.narrowQuery.matches);
    const w = this.viewport.clientWidth;
    const h = this.viewport.clientHeight;
    if (w > 0 && h > 0) this.stage.setSize(w, h);
    this.frameView(!this.cameraMoved);
    this.needsRender = true;
  }

  /** A panel opened or closed: the free part of the view moved. */
  private layoutChanged(): void {
    this.frameView(!this.cameraMoved);
    this.needsRender = true;
  }

  /** Crossing into or out of the narrow layout closes or opens the panels, as a fresh load would. */
  private setNarrow(narrow: boolean): void {
    this.narrow = narrow;
    const stats = this.root.querySelector('details.stats') as HTMLDetailsElement | null;
    if (stats) stats.open = !narrow;
    if (narrow) this.panel?.gui.close();
    else this.panel?.gui.open();
  }

  /** The part of the canvas no panel covers (canvas pixels). */
  freeRect(): Rect {
    const c = this.stage.renderer.domElement.getBoundingClientRect();
    const overlays = this.overlays
      .map((o) => o.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0)
      .map((r) => ({
        left: r.left - c.left,
        right: r.right - c.left,
        top: r.top - c.top,
        bottom: r.bottom - c.top,
      }));
    return freeRect({ left: 0, top: 0, right: c.width, bottom: c.height }, overlays);
  }

  /**
   * Centres the projection on the free part of the view and, with `refit`,
   * moves the camera (along the scene's view direction) so that the scene's
   * action box fills that part (web/src/view/framing.ts).
   */
  private frameView(refit: boolean): void {
    const canvas = this.stage.renderer.domElement;
    const w = canvas.clientWidth;
    const h = canvas.clientHeight;
    if (!(w > 0 && h > 0)) return;
    const free = this.freeRect();
    const cam = this.stage.camera;
    centreOn(cam, w, h, free);
    if (!refit || !this.info) return;
    const box = actionBox(this.entry.name, this.stage.bodyBox(), this.stage.colliderBox());
    this.action = box;
    const cfg = this.info.meta.camera;
    const dir = cfg
      ? new Vector3(...cfg.position).sub(new Vector3(...cfg.target))
      : new Vector3(0.45, 0.35, 1);
    const centre = fitBox(cam, box, dir, free, w, h);
    this.controls.target.copy(centre);
    this.controls.update();
    this.needsRender = true;
  }

  /** Per body, the screen rectangle (client pixels) its particles' bounding box covers; for the tests. */
  bodyRects(): { name: string; rect: Rect | null }[] {
    return this.stage.bodyBoxes().map(({ name, box }) => ({ name, rect: this.screenRect(box) }));
  }

  /**
   * The screen rectangle (client pixels) of the action box the camera was fitted to: where the
   * scene's bodies go over their first seconds (web/src/scene-views.json); null before a fit.
   */
  actionRect(): Rect | null {
    return this.action && this.screenRect(this.action);
  }

  /** A world box projected with the current camera, in client pixels (null when behind the camera). */
  private screenRect(box: Box3): Rect | null {
    const c = this.stage.renderer.domElement.getBoundingClientRect();
    const r = projectBox(this.stage.camera, box, c.width, c.height);
    return (
      r && { left: r.left + c.left, right: r.right + c.left, top: r.top + c.top, bottom: r.bottom + c.top }
    );
  }

  /** Screen position (client pixels) of particle i. */
  project(i: number): { x: number; y: number } {
    const x = this.stage.store!.x;
    const v = new Vector3(x[3 * i], x[3 * i + 1], x[3 * i + 2]).project(this.stage.camera);
    const rect = this.stage.renderer.domElement.getBoundingClientRect();
    return { x: rect.left + ((v.x + 1) / 2) * rect.width, y: rect.top + ((1 - v.y) / 2) * rect.height };
  }

  /** Client pixels of the world point p. */
  projectPoint(p: ArrayLike<number>): { x: number; y: number } {
    const v = new Vector3(p[0], p[1], p[2]).project(this.stage.camera);
    const rect = this.stage.renderer.domElement.getBoundingClientRect();
    return { x: rect.left + ((v.x + 1) / 2) * rect.width, y: rect.top + ((1 - v.y) / 2) * rect.height };
  }

  get dragTarget(): Vector3 | null {
    return this.drag ? this.drag.target.clone() : null;
  }

  dispose(): void {
    this.disposed = true;
    cancelAnimationFrame(this.raf);
    this.endDrag();
    this.fastForward?.resolve();
    window.removeEventListener('pointermove', this.onPointerMove);
    window.removeEventListener('pointerup', this.onPointerUp);
    window.removeEventListener('pointercancel', this.onPointerUp);
    window.removeEventListener('keydown', this.onKey);
    this.viewport.removeEventListener('pointerdown', this.onPointerDown, { capture: true });
    this.resizeObserver.disconnect();
    this.controls.dispose();
    this.panel?.dispose();
    this.plots.dispose();
    this.stage.dispose();
    this.host.dispose();
    this.root.remove();
  }
}

/** A violation in its unit: lengths in mm or m, angles in degrees and radians, relative values in %. */
function formatViolation(value: number, unit: string): string {
  if (unit === 'relative') return `${formatValue(100 * value)} % of rest`;
  if (unit === 'rad') return `${formatValue(value)} rad (${formatValue((180 / Math.PI) * value)}°)`;
  if (unit === 'm' && value < 0.1) return `${formatValue(1000 * value)} mm`;
  return `${formatValue(value)}${unit ? ` ${unit}` : ''}`;
}

/** The figure reference with each paper number ("003") linked to its entry on the sources page. */
function figureLinks(figure: string): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  let last = 0;
  for (const m of figure.matchAll(/\b(00\d)\b/g)) {
    const paper = findSource(m[1]);
    if (!paper) continue;
    out.push(figure.slice(last, m.index));
    const a = el('a');
    a.href = `#sources/${paper.id}`;
    a.textContent = m[1];
    a.title = `${paper.authors}: ${paper.title} (${paper.year})`;
    out.push(a);
    last = m.index + m[0].length;
  }
  out.push(figure.slice(last));
  return out;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = ''): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  return e;
}

function text(tag: keyof HTMLElementTagNameMap, className: string, content: string): HTMLElement {
  const e = el(tag, className);
  e.textContent = content;
  return e;
}

/**
 * The largest parts of a step (World.timings): each family's hooks
 * ('project:stretch') and the stages outside the constraint sets
 * ('particles.predict'), the sets' stage totals left out as they sum the
 * hooks; parts under 2 % of the step are not listed.
 */
export function timeRows(f: FrameInfo): [string, string][] {
  const total = f.stepMs;
  if (!(total > 0)) return [];
  return f.timings
    .filter((t) => !t.label.startsWith('sets.') && t.ms >= 0.02 * total)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 6)
    .map((t): [string, string] => [
      `time: ${t.label}`,
      `${t.ms < 10 ? t.ms.toFixed(2) : t.ms.toFixed(1)} ms (${Math.round((100 * t.ms) / total)} %)`,
    ]);
}
