/**
 * The fused strand pass's WebAssembly kernels (wasm/strands.ts, hand ports of
 * predictRange, ftlStrands, updateRange and dftlStrands) give the JavaScript
 * functions' numbers bit for bit, on data with every branch taken (pinned and
 * degenerate particles, maxStretch slack, the speed limit, non-finite
 * predictions), and a hair world run with them (its store's arrays moved into
 * kernel memory, strand-kernel.ts) steps exactly as with the JavaScript path,
 * also when the store grows after the move.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { headOfHair, headSway } from '../bench/scenes.js';
import { predictRange, updateRange } from '../src/core/particle-tasks.js';
import { Motion, SphereCollider, World } from '../src/index.js';
import { dftlStrands, ftlStrands } from '../src/strands/follow-the-leader.js';
import { fusedStrandSystem } from '../src/strands/fused-pass.js';
import { useWasmKernels, wasmKernel } from '../src/wasm/kernels.js';

afterEach(() => useWasmKernels(true));

/** A pseudo-random sequence in [0, 1) (a fixed seed: the test is deterministic). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The module on a fresh memory, with a bump allocator for copies of arrays. */
function kernels() {
  const mod = wasmKernel('strands');
  if (mod === null) throw new Error('the strands module is unavailable');
  const memory = new WebAssembly.Memory({ initial: 64 });
  const k = new WebAssembly.Instance(mod, { env: { memory } }).exports as unknown as Record<
    string,
    (...a: number[]) => void
  >;
  let at = 64;
  const put = <T extends Float64Array | Int32Array>(a: T): [number, T] => {
    const addr = at;
    at += (a.length * a.BYTES_PER_ELEMENT + 7) & ~7;
    const C = a.constructor as new (b: ArrayBuffer, o: number, n: number) => T;
    const view = new C(memory.buffer, addr, a.length);
    view.set(a);
    return [addr, view];
  };
  return { k, put };
}

function same(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) d++;
  return d;
}

/** Strands of 1 … 9 particles over n particles, with pinned, coincident and stretched particles. */
function strands(seed: number) {
  const r = rng(seed);
  const starts = [0];
  while (starts[starts.length - 1] < 400) starts.push(starts[starts.length - 1] + 1 + Math.floor(9 * r()));
  const start = Int32Array.from(starts);
  const n = starts[starts.length - 1];
  const x = new Float64Array(3 * n),
    p = new Float64Array(3 * n),
    v = new Float64Array(3 * n),
    w = new Float64Array(n),
    rest = new Float64Array(n);
  for (let i = 0; i < 3 * n; i++) {
    x[i] = r() - 0.5;
    p[i] = x[i] + 0.1 * (r() - 0.5);
    v[i] = 40 * (r() - 0.5);
  }
  for (let i = 0; i < n; i++) {
    w[i] = r() < 0.1 ? 0 : 1 + r();
    rest[i] = 0.05 + 0.3 * r();
    const k = r();
    // coincident with the predecessor at p (and sometimes at x too): FTL's degenerate branches
    if (i > 0 && k < 0.05) for (let j = 0; j < 3; j++) p[3 * i + j] = p[3 * i - 3 + j];
    if (i > 0 && k < 0.02) for (let j = 0; j < 3; j++) x[3 * i + j] = x[3 * i - 3 + j];
    if (k > 0.98) p[3 * i + 1] = Number.NaN;
  }
  return { start, n, x, p, v, w, rest };
}

describe('the strand kernels in WebAssembly', () => {
  it('predict and update give predictRange and updateRange bit for bit (speed limit, non-finite p)', () => {
    const s = strands(7);
    const { k, put } = kernels();
    const [X, x] = put(s.x.slice());
    const [P, p] = put(s.p.slice());
    const [V, v] = put(s.v.slice());
    const [W] = put(s.w.slice());
    const [N, counts] = put(new Int32Array(2));
    const jx = s.x.slice(),
      jp = s.p.slice(),
      jv = s.v.slice();
    const h = 1 / 60;
    // vmax 12 clamps some velocities; a 0.3 reach clamps some moves
    k.predict(X, P, V, W, h, 0, -9.81 * h, 0, Math.exp(-0.5 * h), 12, 3, s.n - 5);
    predictRange(jx, jp, jv, s.w, h, 0, -9.81 * h, 0, Math.exp(-0.5 * h), 12, 3, s.n - 5);
    expect(same(p, jp) + same(v, jv)).toBe(0);
    // non-finite predictions for the update's recovery
    for (let i = 0; i < s.n; i += 37) jp[3 * i + 2] = p[3 * i + 2] = Number.NaN;
    const jc = new Int32Array(2);
    k.update(X, P, V, 1 / h, 0.1, 0, s.n, N);
    updateRange(jx, jp, jv, 1 / h, 0.1, 0, s.n, jc, 0);
    expect(same(x, jx) + same(p, jp) + same(v, jv)).toBe(0);
    expect(Array.from(counts)).toEqual(Array.from(jc));
    expect(jc[0]).toBeGreaterThan(0);
    expect(jc[1]).toBeGreaterThan(0);
  });

  for (const limit of [1, 1.1]) {
    it(`ftl and dftl give ftlStrands and dftlStrands bit for bit (maxStretch ${limit}, block scratch)`, () => {
      const s = strands(11);
      const { k, put } = kernels();
      const [X] = put(s.x.slice());
      const [P, p] = put(s.p.slice());
      const [V, v] = put(s.v.slice());
      const [W] = put(s.w.slice());
      const [S] = put(s.start);
      const [R] = put(s.rest);
      const [C, corr] = put(new Float64Array(3 * s.n));
      const jp = s.p.slice(),
        jv = s.v.slice(),
        jc = new Float64Array(3 * s.n);
      const ns = s.start.length - 1;
      // the set's array (from start[0]), first pass then a second one adding to it
      for (const first of [true, false]) {
        k.ftl(P, X, W, S, R, C, limit, first ? 1 : 0, 0, ns, 0);
        ftlStrands(jp, s.x, s.w, s.start, s.rest, jc, limit, first, 0, ns);
        expect(same(p, jp) + same(corr, jc)).toBe(0);
      }
      k.dftl(V, W, S, C, 54, 0, ns, 0);
      dftlStrands(jv, s.w, s.start, jc, 54, 0, ns);
      expect(same(v, jv)).toBe(0);
      // a block of strands [3, 9) with its corrections from its first particle on (the one pass)
      const a = s.start[3];
      k.ftl(P, X, W, S, R, C, limit, 1, 3, 9, a);
      ftlStrands(jp, s.x, s.w, s.start, s.rest, jc, limit, true, 3, 9, a);
      k.dftl(V, W, S, C, 54, 3, 9, a);
      dftlStrands(jv, s.w, s.start, jc, 54, 3, 9, a);
      expect(same(p, jp) + same(v, jv)).toBe(0);
      expect(same(corr.subarray(0, 3 * (s.start[9] - a)), jc.subarray(0, 3 * (s.start[9] - a)))).toBe(0);
    });
  }
});

function hairWorld(count: number, turned = false, still = false) {
  // point damping: the prediction's factor e^(−c h) is not 1
  const world = new World({ dt: 1 / 60, substeps: 1, iterations: 1, damping: 0.3 });
  const motion = headSway;
  const head = world.addCollider(
    new SphereCollider({
      radius: 0.1,
      position: [0, 1.6, 0],
      friction: 0.3,
      restitution: 0.5,
      // a head that stays where it is (the roots still sway): a particle put at its centre stays there
      ...(still ? {} : { motion }),
      // a turned sphere's contacts take the JavaScript (the kernels assume an unturned one)
      ...(turned ? { rotation: [10, 20, 30] as [number, number, number] } : {}),
    }),
  );
  headOfHair(
    world,
    { count, segments: 9, length: 0.25 },
    { damping: 0.9 },
    head.motion ?? new Motion(motion),
  );
  return { world, head, motion };
}

/**
 * x and v of a hair world after `steps`, a second head of hair added after `grow` steps (0: never);
 * `centre`: a tip put at the head's centre at step 10 (the contact kernel gives it the sphere's +y).
 */
function run(wasm: boolean, steps: number, grow: number, turned = false, centre = false, full = false) {
  useWasmKernels(wasm);
  const { world, motion, head } = hairWorld(300, turned, centre);
  const pass = world.system(fusedStrandSystem);
  const version = world.store.version;
  // `full`: the store's memory refuses every region from now on (a full memory: StoreMemory.alloc's -1)
  if (full) world.store.memory!.alloc = () => -1;
  let inKernelMemory = 0;
  for (let s = 0; s < steps; s++) {
    if (s === grow && grow > 0) {
      headOfHair(world, { count: 200, segments: 5, length: 0.15 }, { damping: 0.5 }, new Motion(motion));
    }
    if (centre && s === 10) {
      const i3 = 3 * 9;
      for (let j = 0; j < 3; j++) world.store.x[i3 + j] = world.store.p[i3 + j] = head.position[j];
      world.store.v[i3] = world.store.v[i3 + 1] = world.store.v[i3 + 2] = 0;
    }
    world.step();
    // in a WebAssembly memory: the store's memory (since session 20, from the start), else a kernel's
    const st = world.store;
    if (
      st.memory !== null
        ? st.memory.owns(st.x.buffer)
        : !(st.x.buffer instanceof ArrayBuffer) || st.x.byteOffset > 0
    )
      inKernelMemory++;
  }
  const n = 3 * world.store.count;
  const onStoreMemory = world.store.memory !== null;
  const st = world.store;
  const moved = st.version - version;
  // a memory of the kernel's own: not the store's, laid out from byte 64 on
  const ownMemory = st.memory !== null && !st.memory.owns(st.x.buffer) && st.x.byteOffset > 0;
  return { x: st.x.slice(0, n), v: st.v.slice(0, n), pass, inKernelMemory, onStoreMemory, moved, ownMemory };
}

describe('the fused pass with the kernels', () => {
  it('steps a hair world as the JavaScript path does, bit for bit, also after the store grows', () => {
    for (const grow of [0, 20]) {
      const js = run(false, 50, grow);
      const wa = run(true, 50, grow);
      // the JavaScript path: no kernel ran (its store's arrays are where the store put them: its
      // memory's, or plain arrays without one)
      expect(js.pass.kernelContacts).toBe(0);
      expect(js.inKernelMemory).toBe(js.onStoreMemory ? 50 : 0);
      // the one pass ran every step, and with the kernels its store lived in kernel memory
      expect(wa.pass.ranOnePass).toBe(50);
      expect(wa.inKernelMemory).toBe(50);
      expect(wa.x.length).toBe(js.x.length);
      expect(same(wa.x, js.x) + same(wa.v, js.v)).toBe(0);
    }
  });

  it("lays its region out on the store's memory, or, that memory full, in a memory of its own: the same bits", () => {
    const js = run(false, 30, 0);
    const onStore = run(true, 30, 0);
    const own = run(true, 30, 0, false, false, true);
    // on the store's memory the store's arrays stay where they are; a full one: the kernel's own
    // memory (a plain one, on one thread), the store's arrays moved there once (the version goes up)
    expect(onStore.onStoreMemory).toBe(true);
    expect([onStore.moved, onStore.ownMemory, onStore.inKernelMemory]).toEqual([0, false, 30]);
    expect([own.moved, own.ownMemory, own.inKernelMemory]).toEqual([1, true, 0]);
    for (const r of [onStore, own]) {
      expect(r.pass.ranOnePass).toBe(30);
      expect(r.pass.kernelContacts).toBeGreaterThan(0);
      expect(same(r.x, js.x) + same(r.v, js.v)).toBe(0);
    }
  });

  it('gives the same bits with a turned head and with a particle at the head centre', () => {
    for (const [turned, centre] of [
      [true, false],
      [false, true],
    ]) {
      const js = run(false, 30, 0, turned, centre);
      const wa = run(true, 30, 0, turned, centre);
      expect(wa.inKernelMemory).toBe(30);
      // the contact kernels ran (unturned) or left every block to the JavaScript (turned); the
      // particle at the centre takes the sphere's own answer (+y) in the kernel too: no hand-back
      expect(wa.pass.kernelContacts > 0).toBe(!turned);
      expect(wa.pass.handedBack).toBe(0);
      expect(same(wa.x, js.x) + same(wa.v, js.v)).toBe(0);
    }
  });
});
