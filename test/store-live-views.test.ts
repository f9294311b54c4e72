/**
 * Arrays a user holds stay live across steps (docs/architecture.md, "Live views: the store's
 * allocation", session 20): a view taken from `positions()` (and the store's x) before the first
 * step is, after N steps, the array the kernels moved — the same numbers as a fresh
 * `positions()` — on one thread in f64 and f32, on two threads, for a hair world (the strand
 * kernels) and for a soft body. Adding a body after stepping may still reallocate the store's
 * arrays, and then bumps `store.version` (the documented signal to re-bind).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { headOfHair, swayingHead } from '../bench/scenes.js';
import { copyRange, StoreMemory, zeroFill } from '../src/core/store-memory.js';
import { Cloth, gridMesh, ParticleStore, SoftBody, tetBox, World } from '../src/index.js';

const worlds: World[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.dispose();
});

async function world(opts: ConstructorParameters<typeof World>[0]): Promise<World> {
  const w = new World({ dt: 1 / 60, substeps: 10, ...opts });
  worlds.push(w);
  await w.threadsReady();
  return w;
}

/** Entries where a and b differ (Object.is), and a's and b's lengths. */
function differing(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) return -1;
  let d = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) d++;
  return d;
}

const cloth = (w: World) => {
  const c = new Cloth(w, {
    mesh: gridMesh({ width: 2, height: 2, cols: 100, rows: 100 }),
    density: 0.2,
    stretch: { compliance: 0 },
    bend: { compliance: 0.05 },
  });
  c.pin(0);
  return c;
};

/** Steps `w` n times with views held from before the first step; what they hold against fresh ones. */
function held(w: World, body: { positions(): Float64Array; offset: number; count: number }, n: number) {
  const xs = body.positions();
  const x = w.store.x;
  const v = w.store.v;
  const invMass = w.store.invMass;
  const start = xs.slice();
  for (let f = 0; f < n; f++) w.step();
  const now = body.positions();
  // the particles moved (else a stale view would equal a fresh one)
  expect(differing(start, now)).toBeGreaterThan(0);
  return {
    positions: differing(xs, now),
    x: x === w.store.x,
    v: v === w.store.v,
    invMass: invMass === w.store.invMass,
  };
}

const live = { positions: 0, x: true, v: true, invMass: true };

describe('views held from before the first step are the ones the kernels move', () => {
  for (const [name, opts] of [
    ['one thread, f64', {}],
    ['one thread, f32', { precision: 'f32' as const }],
    ['two threads, f64', { threads: 2 }],
    ['two threads, f32', { threads: 2, precision: 'f32' as const }],
  ] as const) {
    it(`cloth, ${name}`, async () => {
      const w = await world(opts);
      const c = cloth(w);
      expect(held(w, c, 10)).toEqual(live);
    });
  }

  it('a soft body, one thread', async () => {
    const w = await world({});
    const s = new SoftBody(w, {
      mesh: tetBox({ size: [0.3, 0.3, 0.3], resolution: [4, 4, 4], origin: [-0.15, 0.5, -0.15] }),
      density: 200,
      material: { youngsModulus: 2e4, poissonRatio: 0.3 },
    });
    expect(held(w, s, 10)).toEqual(live);
  });

  for (const threads of [1, 2]) {
    it(`a hair world (strand kernels), ${threads} thread(s)`, async () => {
      const w = await world({ threads, substeps: 1 });
      const head = swayingHead(w);
      const hair = headOfHair(w, { count: 300, segments: 16, length: 0.3 }, { damping: 0.9 }, head.motion!);
      expect(held(w, hair, 10)).toEqual(live);
    });
  }
});

/** A one-thread world with the cloth, stepped three times. */
async function stepped(): Promise<[World, Cloth]> {
  const w = await world({});
  const c = cloth(w);
  for (let f = 0; f < 3; f++) w.step();
  return [w, c];
}

describe('a body added after stepping', () => {
  it('may reallocate the store: then store.version goes up, and fresh views are live again', async () => {
    const [w, a] = await stepped();
    const version = w.store.version;
    const cap = w.store.capacity;
    // enough particles to outgrow the capacity
    const b = new Cloth(w, {
      mesh: gridMesh({ width: 1, height: 1, cols: 80, rows: 80 }),
      density: 0.2,
      stretch: { compliance: 0 },
    });
    expect(w.store.capacity).toBeGreaterThan(cap);
    expect(w.store.version).toBeGreaterThan(version);
    expect(held(w, a, 5)).toEqual(live);
    expect(held(w, b, 5)).toEqual(live);
  });
});

describe('a checkpoint', () => {
  it('restores into the arrays a user holds (World.loadState writes into them)', async () => {
    const [w, c] = await stepped();
    const state = w.saveState();
    const xs = c.positions();
    const snapshot = xs.slice();
    for (let f = 0; f < 3; f++) w.step();
    expect(differing(xs, snapshot)).toBeGreaterThan(0);
    w.loadState(state);
    expect(differing(xs, snapshot)).toBe(0);
    expect(held(w, c, 3)).toEqual(live);
  });
});

describe('StoreMemory', () => {
  it('gives regions back and reuses them; a full plain memory says so, and the store falls back to plain arrays', () => {
    const m = StoreMemory.plain(4096)!;
    const a = m.alloc(1000);
    const b = m.alloc(1000);
    expect(b - a).toBe(1024);
    m.release(a);
    m.release(b);
    // coalesced and the top lowered: the same address again for a region of both sizes
    expect(m.alloc(2048)).toBe(a);
    // 256 MiB never grow: a region past them is refused
    expect(m.alloc(300 * 2 ** 20)).toBe(-1);
    expect(m.alloc(250 * 2 ** 20)).toBeGreaterThan(0);
    // (about 6 MiB left: 128 Ki particles need 10 MiB)
    const store = new ParticleStore(128 * 1024, { memory: m });
    expect(m.owns(store.x.buffer)).toBe(false);
    const fits = new ParticleStore(1024, { memory: m });
    expect([fits.x, fits.p, fits.v, fits.invMass].every((c) => m.owns(c.buffer))).toBe(true);
  });

  it("a World's memory is the growable shared one, one page until the store takes its arrays (session 20, home27b)", () => {
    // home27's one-thread memory was 4096 plain pages: 256 MiB that V8 counts as external memory
    const w = new World({ dt: 1 / 60 });
    worlds.push(w);
    const m = w.store.memory!;
    expect(m.shared).toBe(true);
    expect(m.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    // x, p, v and invMass of the default 1024 particles: 80 KiB, two pages and the first KiB
    expect(m.memory.buffer.byteLength).toBeLessThanOrEqual(2 * 65536);
    cloth(w);
    expect(m.owns(w.store.x.buffer)).toBe(true);
  });

  it('zeroFill and copyRange run wasm bulk operations on a shared memory: the same values as fill and set', () => {
    const m = StoreMemory.create()!;
    expect(m.bulkOps()).not.toBeNull();
    const a = m.f64(1000)!;
    const b = m.f64(1000)!;
    const f = new Float32Array(m.buffer, m.alloc(4 * 999), 999);
    m.note(f.buffer);
    for (let i = 0; i < 1000; i++) a[i] = Math.sin(i) * 1e300 * (i % 7 === 0 ? -1 : 1) || -0;
    f.fill(3.5);
    zeroFill(f);
    expect(f.every((x) => Object.is(x, 0))).toBe(true);
    const ref = new Float64Array(1000);
    ref.set(a.subarray(10, 990), 7);
    copyRange(b, 7, a, 10, 990);
    expect(differing(b, ref)).toBe(0);
    // the bytes around a region stay untouched
    a.fill(1);
    zeroFill(a.subarray(1, 999));
    expect([a[0], a[1], a[998], a[999]]).toEqual([1, 0, 0, 1]);
    // plain arrays: the typed arrays' own operations
    const p = new Float64Array([1, 2, 3]);
    zeroFill(p);
    expect([...p]).toEqual([0, 0, 0]);
  });
});
