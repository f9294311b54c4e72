/**
 * The parameter panel (lil-gui): run controls, the world settings, each
 * body's tunable parameters and the display overlays, all applied live.
 */
import GUI, { type Controller } from 'lil-gui';
import type { SceneInfo, TunableInfo, WorldSettings } from '../sim/protocol.js';
import type { Overlays } from '../view/stage.js';

export interface PanelActions {
  world(settings: Partial<WorldSettings>): void;
  tunable(body: number, name: string, value: number): void;
  overlays(o: Overlays): void;
  pause(paused: boolean): void;
  step(): void;
  reset(): void;
}

export interface RunState {
  paused: boolean;
  /** Simulated seconds per real second. */
  timeScale: number;
  /**
   * Stiffness k ∈ (0, 1] of the mouse drag: the fraction of the gap to the
   * cursor the grabbed particle would close in one substep on its own. The
   * drag is an XPBD attachment with compliance α = h² (1 − k) / (k m), i.e.
   * α̃ = w (1 − k) / k; k = 1 is a hard attachment (the particle follows the
   * cursor exactly). With few iterations a soft drag lags behind stiff
   * material, because XPBD's multipliers restart every substep.
   */
  dragPull: number;
}

export class Panel {
  readonly gui: GUI;
  readonly run: RunState;
  private readonly pausedController: Controller;
  private readonly solverDependent: { controller: Controller; rule: 'pbd' | 'xpbd' }[] = [];

  constructor(container: HTMLElement, info: SceneInfo, overlays: Overlays, run: RunState, act: PanelActions) {
    this.run = run;
    const gui = new GUI({ container, title: 'Parameters', width: 280 });
    this.gui = gui;

    const sim = gui.addFolder('Simulation');
    this.pausedController = sim
      .add(run, 'paused')
      .name('paused (space)')
      .onChange((v: boolean) => act.pause(v));
    sim.add({ step: () => act.step() }, 'step').name('single step (s)');
    sim.add({ reset: () => act.reset() }, 'reset').name('reset (r)');
    sim.add(run, 'timeScale', 0.05, 2, 0.05).name('time scale');
    sim.add(run, 'dragPull', 0.05, 1, 0.05).name('mouse stiffness');

    const world = gui.addFolder('World');
    const w = { ...info.world, dtMs: info.world.dt * 1000, gx: 0, gy: 0, gz: 0 };
    [w.gx, w.gy, w.gz] = info.world.gravity;
    world
      .add(w, 'solver', ['xpbd', 'pbd'])
      .name('solver')
      .onChange((v: 'xpbd' | 'pbd') => {
        act.world({ solver: v });
        this.updateSolverDependent(v);
      });
    world
      .add(w, 'sweep', ['symmetric', 'forward'])
      .name('sweep')
      .onChange((v: 'symmetric' | 'forward') => act.world({ sweep: v }));
    world
      .add(w, 'dtMs', 1, 40, 0.01)
      .decimals(2)
      .name('dt (ms)')
      .onChange((v: number) => act.world({ dt: v / 1000 }));
    world.add(w, 'substeps', 1, 100, 1).onChange((v: number) => act.world({ substeps: v }));
    world.add(w, 'iterations', 1, 50, 1).onChange((v: number) => act.world({ iterations: v }));
    const gravity = () => act.world({ gravity: [w.gx, w.gy, w.gz] });
    world.add(w, 'gx', -30, 30, 0.01).name('gravity x').onChange(gravity);
    world.add(w, 'gy', -30, 30, 0.01).name('gravity y').onChange(gravity);
    world.add(w, 'gz', -30, 30, 0.01).name('gravity z').onChange(gravity);
    world
      .add(w, 'damping', 0, 10, 0.01)
      .name('damping (1/s)')
      .onChange((v: number) => act.world({ damping: v }));
    // worker threads (same numbers on any count); a page without cross-origin isolation has one
    if (info.threadsAvailable > 1) {
      const counts = Array.from({ length: info.threadsAvailable }, (_, k) => k + 1);
      world
        .add(w, 'threads', counts)
        .name('threads (restarts)')
        .onChange((v: number) => act.world({ threads: Number(v) }));
    }

    info.bodies.forEach((b, k) => {
      if (b.tunables.length === 0) return;
      const f = gui.addFolder(`${b.type}: ${b.name}`);
      for (const t of b.tunables) this.addTunable(f, t, (v) => act.tunable(k, t.name, v));
      if (info.bodies.length > 3) f.close();
    });

    const display = gui.addFolder('Display');
    const o = { ...overlays };
    const changed = () => act.overlays({ ...o });
    display.add(o, 'wireframe').onChange(changed);
    display.add(o, 'particles').name('particles & pins').onChange(changed);
    display.add(o, 'constraints').name('constraint strain').onChange(changed);
    display.add(o, 'colliders').onChange(changed);
    display.add(o, 'shadows').onChange(changed);
    if (info.bodies.some((b) => b.type === 'fluid')) {
      display.add(o, 'fluidSurface').name('fluids as surface').onChange(changed);
    }
    display.close();
    this.updateSolverDependent(info.world.solver);
  }

  /** A slider for a body parameter; logarithmic ones slide over log₁₀ of the value (the left end is 0 when 0 is allowed). */
  private addTunable(folder: GUI, t: TunableInfo, set: (v: number) => void): void {
    let c: Controller;
    if (t.log && t.max > 0) {
      const hi = Math.log10(t.max);
      const lo = t.min > 0 ? Math.log10(t.min) : hi - 8;
      const toExp = (v: number) => (v > 0 ? Math.min(hi, Math.max(lo, Math.log10(v))) : lo);
      const proxy = { e: toExp(t.value) };
      c = folder
        .add(proxy, 'e', lo, hi, 0.05)
        .name(`log₁₀ ${t.name}`)
        .onChange((e: number) => set(e <= lo && t.min === 0 ? 0 : 10 ** e));
      c.domElement.title = `${t.name} = 10^x${t.min === 0 ? ' (the left end is 0)' : ''}`;
    } else {
      const proxy = { v: t.value };
      const step = (t.max - t.min) / 1000;
      c = folder
        .add(proxy, 'v', t.min, t.max, step)
        .name(t.name)
        .onChange((v: number) => set(v));
    }
    if (/stiffness$/.test(t.name)) this.solverDependent.push({ controller: c, rule: 'pbd' });
    if (/compliance$/.test(t.name)) this.solverDependent.push({ controller: c, rule: 'xpbd' });
  }

  /** Stiffness acts under PBD, compliance under XPBD: grey out the ones the current rule ignores. */
  private updateSolverDependent(solver: 'xpbd' | 'pbd'): void {
    for (const { controller, rule } of this.solverDependent) controller.enable(rule === solver);
  }

  setPaused(paused: boolean): void {
    this.run.paused = paused;
    this.pausedController.updateDisplay();
  }

  dispose(): void {
    this.gui.destroy();
  }
}
