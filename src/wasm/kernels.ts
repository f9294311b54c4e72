/**
 * WebAssembly SIMD kernels (see docs/architecture.md, "WebAssembly kernels").
 *
 * Hot element kernels are written once, as `*.kernel.ts` definitions, from
 * which `npm run kernels` generates the JavaScript kernel and an
 * AssemblyScript twin (wasm/elements.generated.ts) that projects two
 * constraints of one colour per f64x2 instruction. Constraints of one colour
 * share no particle, so projecting two at once is the same computation as
 * projecting them one after the other, and the twin performs the JavaScript
 * kernel's floating-point operations in the same order (WebAssembly has no
 * fused multiply–add): the results are bit-identical to the JavaScript path.
 * The fluids' pair passes are generated the same way from their row
 * kernels (src/fluids/pair-passes.rows.ts) into wasm/fluids.ts's module,
 * checked bit for bit by test/fluids-wasm.test.ts. Switching between the two — a browser that compiles the module late,
 * an engine without SIMD, `useWasmKernels(false)` — never changes a number.
 *
 * The modules are carried as base64 (src/wasm/*.generated.ts, from
 * `npm run kernels`), so neither Node nor a bundler needs a loader.
 */
import { WASM_BASE64 as ELEMENTS } from './elements.generated.js';
import { WASM_BASE64 as FLUIDS } from './fluids.generated.js';

const SOURCES = { elements: ELEMENTS, fluids: FLUIDS } as const;
export type KernelName = keyof typeof SOURCES;

let enabled = true;
const modules = new Map<KernelName, WebAssembly.Module | 'pending' | 'unavailable'>();
const compiling = new Map<KernelName, Promise<void>>();

/**
 * Turns the WebAssembly kernels on or off for constraint sets that project
 * after the call (default on). The results are the same either way; off is
 * for measuring and for debugging the JavaScript kernels.
 */
export function useWasmKernels(on: boolean): void {
  enabled = on;
}

/** Whether WebAssembly kernels are enabled (see useWasmKernels). */
export function wasmKernelsEnabled(): boolean {
  return enabled;
}

function decode(b64: string): Uint8Array<ArrayBuffer> {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/**
 * The compiled module of a kernel, or null while it is unavailable: no
 * WebAssembly or no SIMD in this engine, or a browser main thread that
 * compiles it asynchronously (then it is there on a later call).
 */
export function wasmKernel(name: KernelName): WebAssembly.Module | null {
  if (!enabled) return null;
  const m = modules.get(name);
  if (m instanceof WebAssembly.Module) return m;
  if (m !== undefined) return null;
  if (typeof WebAssembly === 'undefined') {
    modules.set(name, 'unavailable');
    return null;
  }
  const bytes = decode(SOURCES[name]);
  if (!WebAssembly.validate(bytes)) {
    modules.set(name, 'unavailable');
    return null;
  }
  try {
    const mod = new WebAssembly.Module(bytes);
    modules.set(name, mod);
    return mod;
  } catch {
    // engines may refuse synchronous compilation (browser main thread): compile in the background
    modules.set(name, 'pending');
    compiling.set(
      name,
      WebAssembly.compile(bytes).then(
        (mod) => void modules.set(name, mod),
        () => void modules.set(name, 'unavailable'),
      ),
    );
    return null;
  }
}

/**
 * Resolves when every kernel is compiled (or known to be unavailable). Only
 * a browser's main thread needs it — elsewhere the kernels compile on first
 * use — and even there it is optional: until then the JavaScript kernels
 * run, with the same results.
 */
export async function wasmKernelsReady(): Promise<void> {
  for (const name of Object.keys(SOURCES) as KernelName[]) {
    wasmKernel(name);
    await compiling.get(name);
  }
}

/**
 * Whether a coloured constraint set is worth a paired kernel: coloured
 * consistently (a set whose arrays were swapped without their colouring —
 * a test projecting single elements — is not), at least 16 constraints, and
 * a particle window (paired.ts) not much larger than the particles the
 * constraints touch, since the window is copied in and out every pass.
 */
export function worthPairing(
  set: { indices: Int32Array; colorOffsets: Int32Array; readonly count: number },
  arity: number,
): boolean {
  const n = set.count;
  if (n < 16 || set.colorOffsets[set.colorOffsets.length - 1] !== n) return false;
  const known = judged.get(set.indices);
  if (known !== undefined && known.count === n) return known.ok;
  let lo = Infinity,
    hi = -1;
  const idx = set.indices;
  for (let k = 0; k < arity * n; k++) {
    if (idx[k] < lo) lo = idx[k];
    if (idx[k] > hi) hi = idx[k];
  }
  const ok = hi - lo + 1 <= 4 * arity * n;
  judged.set(set.indices, { count: n, ok });
  return ok;
}

/** worthPairing's verdicts by index array (a set rejected once is not scanned again every pass). */
const judged = new WeakMap<Int32Array, { count: number; ok: boolean }>();
