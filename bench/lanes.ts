/**
 * The lane layouts of scripts/kernels/lane-variants.ts on a live constraint
 * set: one kernel copy per layout (its own memory, indices in groups of 2
 * or 4 lanes, an f64 or f32 particle window, a block scratch for the
 * blocked layouts) and one sweep over the set's colours — what a
 * set's `project` does with the paired kernel, in each layout. Used by
 * bench/lanes-probe.ts and test/kernel-lanes.test.ts.
 */
import { compileModule, kernelDefinitions } from '../scripts/build-kernels.js';
import { LAYOUTS, laneKernelName, laneVariantsSource } from '../scripts/kernels/lane-variants.js';
import type { KernelDef } from '../scripts/kernels/parse.js';
import type { ParticleStore } from '../src/core/particles.js';
import { ELEMENT_IMPORTS } from '../src/wasm/element-kernels.generated.js';
import { PairedCopy, type PairedSet } from '../src/wasm/paired.js';

export type Layout = keyof typeof LAYOUTS;

type Fn = (...a: number[]) => number;
type Exports = Record<string, Fn>;

/** The cloth kernels' definitions (distance, dihedral bending). */
export function clothKernelDefs(): KernelDef[] {
  return kernelDefinitions().filter(
    (d) => d.name === 'projectDistance' || d.name === 'projectDihedralBending',
  );
}

/** Compiles the module of every layout of `defs` (asc, in memory). */
export async function laneModule(
  defs: KernelDef[],
  phi: 'atan2' | 'div' | 'poly' = 'atan2',
): Promise<WebAssembly.Module> {
  const bytes = await compileModule('wasm/lane-variants.ts', laneVariantsSource(defs, phi));
  return new WebAssembly.Module(new Uint8Array(bytes));
}

export interface LaneSweep {
  /** One sweep over the set's colours (window copied in, projected, copied out). */
  sweep(store: ParticleStore): void;
  /** The gathers and scatters alone (blocked layouts): what the layout costs besides the kernel. */
  moves(store: ParticleStore): void;
  /** The multipliers (this copy's own: the set's `lambda` is left alone). */
  lambda: Float64Array;
}

/**
 * A sweep of `def`'s kernel in `layout` over `set`, whose per-constraint
 * scalar is `scalar` and whose uniforms after (kp, at) are `more`.
 */
export function laneSweep(
  mod: WebAssembly.Module,
  def: KernelDef,
  layout: Layout,
  set: PairedSet,
  scalar: Float64Array,
  uniforms: number[],
): LaneSweep {
  const L = LAYOUTS[layout];
  const ar = def.particles.length;
  const own = set.lambda;
  // the copy takes over `lambda` as a view of its memory: give the set its own array back
  const k = new PairedCopy<Exports>(
    mod,
    'lanes',
    ELEMENT_IMPORTS,
    set,
    ar,
    null,
    0,
    scalar,
    L.n === 4,
    64 * ar * maxGroups(set, L.n),
  );
  // f64: the copy's view; f32: its lane-ordered f32 multipliers, from the set's and read back through `lambda`
  const f32 = L.n === 4;
  const lambda = f32 ? new Float64Array(set.count) : set.lambda;
  if (f32) k.gatherLambda(own);
  set.lambda = own;
  const proj = k.ex[laneKernelName(def, L)];
  const suffix = `${L.n === 4 ? 'F32' : ''}${ar}`;
  const gather = k.ex[`gather${suffix}`];
  const scatter = k.ex[`scatter${suffix}`];
  const cp = k.plan.colorPairs;
  const a = k.addr;
  const win = k.win;
  const [u0, u1, u2] = uniforms;
  return {
    get lambda() {
      if (f32) k.scatterLambda(lambda);
      return lambda;
    },
    sweep(store) {
      win.load(store);
      for (let c = 0; c + 1 < cp.length; c++) {
        if (L.blocked) {
          gather(cp[c], cp[c + 1], a.idx, win.pAt, win.wAt, a.blk);
          proj(cp[c], cp[c + 1], a.idx, a.rec, a.el, a.scalar, a.lam, a.blk, 0, a.slow, u0, u1, u2);
          scatter(cp[c], cp[c + 1], a.idx, win.pAt, win.wAt, a.blk);
        } else
          proj(cp[c], cp[c + 1], a.idx, a.rec, a.el, a.scalar, a.lam, win.pAt, win.wAt, a.slow, u0, u1, u2);
      }
      win.save(store);
    },
    moves(store) {
      win.load(store);
      if (L.blocked) {
        for (let c = 0; c + 1 < cp.length; c++) {
          gather(cp[c], cp[c + 1], a.idx, win.pAt, win.wAt, a.blk);
          scatter(cp[c], cp[c + 1], a.idx, win.pAt, win.wAt, a.blk);
        }
      }
      win.save(store);
    },
  };
}

/** The largest colour's number of groups of `lanes` constraints. */
function maxGroups(set: PairedSet, lanes: number): number {
  let m = 0;
  const o = set.colorOffsets;
  for (let k = 0; k + 1 < o.length; k++) m = Math.max(m, Math.ceil((o[k + 1] - o[k]) / lanes));
  return m;
}
