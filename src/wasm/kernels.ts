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
import { WASM_BASE64 as NARROW } from './narrow.generated.js';
import { WASM_BASE64 as STRANDS } from './strands.generated.js';
import { WASM_BASE64 as SURFACES } from './surfaces.generated.js';

const SOURCES = {
  elements: ELEMENTS,
  fluids: FLUIDS,
  strands: STRANDS,
  surfaces: SURFACES,
  narrow: NARROW,
} as const;
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

/** Pages (64 KiB) a shared instance's memory may grow to: 1 GiB. */
export const SHARED_MAX_PAGES = 16384;

const sharedModules = new Map<KernelName, WebAssembly.Module | null>();

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
function leb(b: Uint8Array, at: number): [number, number] {
  let v = 0,
    shift = 0;
  for (;;) {
    const x = b[at++];
    v += (x & 0x7f) * 2 ** shift;
    shift += 7;
    if (x < 0x80) return [v, at];
  }
}

function putLeb(out: number[], v: number): void {
  do {
    let x = v % 128;
    v = Math.floor(v / 128);
    if (v > 0) x |= 0x80;
    out.push(x);
  } while (v > 0);
}

/**
 * A kernel module with its imported memory declared shared (limits flag 3,
 * maximum SHARED_MAX_PAGES), so that the instances of a worker pool's
 * threads can share one memory (the fluids' row blocks, the element sets'
 * colour blocks: src/wasm/element-threads.ts); the code is the module's
 * own, byte for byte. Rewrites the import section of the module's bytes;
 * null where that or the compilation fails, where shared memory is missing,
 * or where the plain module is unavailable (see wasmKernel).
 */
export function sharedKernel(name: KernelName): WebAssembly.Module | null {
  if (typeof WebAssembly === 'undefined' || typeof SharedArrayBuffer === 'undefined') return null;
  if (wasmKernel(name) === null) return null;
  const known = sharedModules.get(name);
  if (known !== undefined) return known;
  let mod: WebAssembly.Module | null = null;
  try {
    const b = decode(SOURCES[name]);
    const out: number[] = Array.from(b.subarray(0, 8));
    let at = 8;
    while (at < b.length) {
      const id = b[at];
      const [size, body] = leb(b, at + 1);
      const end = body + size;
      if (id !== 2) {
        for (let k = at; k < end; k++) out.push(b[k]);
        at = end;
        continue;
      }
      // the import section: copy every entry, the memory's limits made shared
      const sec: number[] = [];
      let [count, p] = leb(b, body);
      putLeb(sec, count);
      for (; count > 0; count--) {
        const start = p;
        let [len, q] = leb(b, p);
        q += len;
        [len, q] = leb(b, q);
        q += len;
        const kind = b[q++];
        for (let k = start; k < q; k++) sec.push(b[k]);
        if (kind === 0) {
          const [, r] = leb(b, q);
          for (let k = q; k < r; k++) sec.push(b[k]);
          p = r;
        } else if (kind === 2) {
          const flag = b[q];
          const [min, r0] = leb(b, q + 1);
          let r = r0;
          if (flag & 1) [, r] = leb(b, r);
          sec.push(3);
          putLeb(sec, min);
          putLeb(sec, Math.max(min, SHARED_MAX_PAGES));
          p = r;
        } else throw new Error(`import kind ${kind}`);
      }
      out.push(2);
      putLeb(out, sec.length);
      for (const x of sec) out.push(x);
      at = end;
    }
    mod = new WebAssembly.Module(new Uint8Array(out));
  } catch {
    mod = null;
  }
  sharedModules.set(name, mod);
  return mod;
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
