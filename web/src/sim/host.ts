/**
 * Where the simulation runs: a Web Worker sharing the particle arrays over
 * SharedArrayBuffer (when the page is cross-origin isolated), or the main
 * thread. Both behave the same to the page.
 */
import { wasmKernelsReady } from '../../../src/index.js';
import { describeError, SimCore } from './core.js';
import type { FrameInfo, LoadError, Reply, Request, SceneInfo, Vec3, WorldSettings } from './protocol.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface SimHost {
  readonly mode: 'worker' | 'main';
  load(text: string, file: string, files: Record<string, string>): Promise<SceneInfo>;
  reset(): Promise<SceneInfo>;
  /** Takes up to n steps (stopping after budgetMs of work); a frame synchronously on the main thread. */
  step(n: number, budgetMs: number): FrameInfo | Promise<FrameInfo>;
  grab(particle: number, point: Vec3, compliance: number): void;
  drag(point: Vec3): void;
  release(): void;
  /** Drags the rigid body collider k draws (see SimCore.grabRigid); drag() and release() as for a particle. */
  grabRigid(collider: number, point: Vec3, pull: number, local?: Vec3): void;
  /** Gives the rigid body collider k draws the velocity v (m/s). */
  throwRigid(collider: number, velocity: Vec3): void;
  configureWorld(settings: Partial<WorldSettings>): void;
  setTunable(body: number, name: string, value: number): void;
  /** Called with errors of fire-and-forget requests (bad settings). */
  onError: ((e: LoadError) => void) | null;
  dispose(): void;
}

/** Thrown by a host when a scene does not load. */
export class LoadFailure extends Error {
  readonly error: LoadError;
  constructor(error: LoadError) {
    super(error.message);
    this.error = error;
  }
}

/** True when SharedArrayBuffer can be shared with a worker (the page is cross-origin isolated). */
export function canShareMemory(): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && globalThis.crossOriginIsolated === true;
}

export function createSimHost(): SimHost {
  return canShareMemory() ? new WorkerHost() : new MainThreadHost();
}

export class WorkerHost implements SimHost {
  readonly mode = 'worker';
  onError: ((e: LoadError) => void) | null = null;
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();

  constructor() {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e: MessageEvent<Reply>) => {
      const r = e.data;
      const p = this.pending.get(r.id);
      if (r.type === 'error') {
        if (p) {
          this.pending.delete(r.id);
          p.reject(new LoadFailure(r.error));
        } else {
          this.onError?.(r.error);
        }
        return;
      }
      if (!p) return;
      this.pending.delete(r.id);
      p.resolve(r.type === 'scene' ? r.scene : r.frame);
    };
  }

  private request<T>(m: DistributiveOmit<Extract<Request, { id: number }>, 'id'>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...m, id });
    });
  }

  private send(m: Exclude<Request, { id: number }>): void {
    this.worker.postMessage(m);
  }

  load(text: string, file: string, files: Record<string, string>): Promise<SceneInfo> {
    return this.request({ type: 'load', text, file, files, shared: true });
  }
  reset(): Promise<SceneInfo> {
    return this.request({ type: 'reset' });
  }
  step(n: number, budgetMs: number): Promise<FrameInfo> {
    return this.request({ type: 'step', n, budgetMs });
  }
  grab(particle: number, point: Vec3, compliance: number): void {
    this.send({ type: 'grab', particle, point, compliance });
  }
  drag(point: Vec3): void {
    this.send({ type: 'drag', point });
  }
  release(): void {
    this.send({ type: 'release' });
  }
  grabRigid(collider: number, point: Vec3, pull: number, local?: Vec3): void {
    this.send({ type: 'grabRigid', collider, point, pull, local });
  }
  throwRigid(collider: number, velocity: Vec3): void {
    this.send({ type: 'throwRigid', collider, velocity });
  }
  configureWorld(settings: Partial<WorldSettings>): void {
    this.send({ type: 'world', settings });
  }
  setTunable(body: number, name: string, value: number): void {
    this.send({ type: 'tunable', body, name, value });
  }
  dispose(): void {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error('the simulation was closed'));
    this.pending.clear();
  }
}

export class MainThreadHost implements SimHost {
  readonly mode = 'main';
  onError: ((e: LoadError) => void) | null = null;
  private readonly core = new SimCore();

  private wrap<T>(file: string, f: () => T): Promise<T> {
    try {
      return Promise.resolve(f());
    } catch (e) {
      return Promise.reject(new LoadFailure(describeError(e, file)));
    }
  }
  private guard(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.onError?.(describeError(e, 'settings'));
    }
  }

  async load(text: string, file: string, files: Record<string, string>): Promise<SceneInfo> {
    // the main thread may compile WebAssembly only asynchronously (the worker compiles on first use)
    await wasmKernelsReady();
    return this.wrap(file, () => this.core.load(text, file, files, false));
  }
  reset(): Promise<SceneInfo> {
    return this.wrap('scene', () => this.core.reset());
  }
  step(n: number, budgetMs: number): FrameInfo {
    return this.core.step(n, budgetMs);
  }
  grab(particle: number, point: Vec3, compliance: number): void {
    this.core.grabParticle(particle, point, compliance);
  }
  drag(point: Vec3): void {
    this.core.dragTo(point);
  }
  release(): void {
    this.core.releaseParticle();
  }
  grabRigid(collider: number, point: Vec3, pull: number, local?: Vec3): void {
    this.core.grabRigid(collider, point, pull, local);
  }
  throwRigid(collider: number, velocity: Vec3): void {
    this.core.throwRigid(collider, velocity);
  }
  configureWorld(settings: Partial<WorldSettings>): void {
    this.guard(() => this.core.configureWorld(settings));
  }
  setTunable(body: number, name: string, value: number): void {
    this.guard(() => this.core.setTunable(body, name, value));
  }
  dispose(): void {}
}
