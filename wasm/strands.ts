/**
 * The WebAssembly module of the fused strand pass (src/strands/fused-pass.ts,
 * src/strands/strand-kernel.ts), compiled by scripts/build-kernels.ts into
 * src/wasm/strands.generated.ts: the particle kernels of one block of
 * strands, written in AssemblyScript as ports of the JavaScript functions
 * they stand for, with the same floating-point operations in the same order
 * (WebAssembly's f64 arithmetic is IEEE with no contraction), so that they
 * give the same numbers bit for bit — checked by test/strands-wasm.test.ts
 * against the JavaScript functions, which stay the path of every world the
 * module does not serve (no WebAssembly, `useWasmKernels(false)`, a threaded
 * world, the stages):
 *
 * - predict: src/core/particle-tasks.ts predictRange (003 Algorithm 1, lines 5–7);
 * - ftl: src/strands/follow-the-leader.ts ftlStrands (000 §3.5, Figure 9);
 * - update: src/core/particle-tasks.ts updateRange (003 Algorithm 1, lines 12–15);
 * - dftl: src/strands/follow-the-leader.ts dftlStrands (000 §3.5, DFTL's velocity term).
 *
 * Arguments named like the JavaScript arrays are byte addresses in the
 * module's (imported) memory, where the strand kernel keeps the store's x, p,
 * v and inverse masses and the FTL sets' layouts; particle indices are the
 * store's.
 */

/** Strands advanced together in ftl (follow-the-leader.ts GROUP). */
const GROUP: i32 = 8;

@inline function f(a: usize, i: i32): f64 {
  return load<f64>(a + (<usize>i << 3));
}

@inline function put(a: usize, i: i32, v: f64): void {
  store<f64>(a + (<usize>i << 3), v);
}

@inline function int(a: usize, i: i32): i32 {
  return load<i32>(a + (<usize>i << 2));
}

/** predictRange: v ← (v + h g) f held to vmax, then p = x + h v, particles [from, to). */
export function predict(
  x: usize,
  p: usize,
  v: usize,
  w: usize,
  h: f64,
  gx: f64,
  gy: f64,
  gz: f64,
  fd: f64,
  vmax: f64,
  from: i32,
  to: i32,
): void {
  const vmax2 = vmax * vmax;
  for (let i = from; i < to; i++) {
    const i3 = 3 * i;
    let vx = f(v, i3);
    let vy = f(v, i3 + 1);
    let vz = f(v, i3 + 2);
    if (f(w, i) != 0) {
      vx = (vx + gx) * fd;
      vy = (vy + gy) * fd;
      vz = (vz + gz) * fd;
      const s2 = vx * vx + vy * vy + vz * vz;
      if (s2 > vmax2) {
        const k = vmax / Math.sqrt(s2);
        vx *= k;
        vy *= k;
        vz *= k;
      }
      put(v, i3, vx);
      put(v, i3 + 1, vy);
      put(v, i3 + 2, vz);
    }
    put(p, i3, f(x, i3) + h * vx);
    put(p, i3 + 1, f(x, i3 + 1) + h * vy);
    put(p, i3 + 2, f(x, i3 + 2) + h * vz);
  }
}

/**
 * ftlStrands over strands [from, to): p_i ← p_{i−1} + l_i (p_i − p_{i−1})/|p_i − p_{i−1}| from each
 * root down, d_i written to corr from particle corrFrom on (`first`: 0 + d_i).
 */
export function ftl(
  p: usize,
  x: usize,
  w: usize,
  start: usize,
  rest: usize,
  corr: usize,
  limit: f64,
  first: bool,
  from: i32,
  to: i32,
  corrFrom: i32,
): void {
  const off = int(start, 0);
  const exact = limit == 1;
  for (let s0 = from; s0 < to; s0 += GROUP) {
    const s1 = min(to, s0 + GROUP);
    let longest: i32 = 0;
    for (let s = s0; s < s1; s++) longest = max(longest, int(start, s + 1) - int(start, s));
    for (let k: i32 = 1; k < longest; k++) {
      for (let s = s0; s < s1; s++) {
        const i = int(start, s) + k;
        if (i >= int(start, s + 1)) continue;
        const c3 = 3 * (i - corrFrom);
        if (f(w, i) == 0) {
          if (first) {
            put(corr, c3, 0);
            put(corr, c3 + 1, 0);
            put(corr, c3 + 2, 0);
          }
          continue;
        }
        const i3 = 3 * i,
          j3 = i3 - 3;
        let dx = f(p, i3) - f(p, j3),
          dy = f(p, i3 + 1) - f(p, j3 + 1),
          dz = f(p, i3 + 2) - f(p, j3 + 2);
        let len = Math.sqrt(dx * dx + dy * dy + dz * dz);
        const l = f(rest, i - off);
        if (!exact && len <= limit * l) {
          if (first) {
            put(corr, c3, 0);
            put(corr, c3 + 1, 0);
            put(corr, c3 + 2, 0);
          }
          continue;
        }
        if (!(len > 1e-12 * l)) {
          dx = f(x, i3) - f(x, j3);
          dy = f(x, i3 + 1) - f(x, j3 + 1);
          dz = f(x, i3 + 2) - f(x, j3 + 2);
          len = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (!(len > 1e-12 * l)) {
            if (first) {
              put(corr, c3, 0);
              put(corr, c3 + 1, 0);
              put(corr, c3 + 2, 0);
            }
            continue;
          }
        }
        const s2 = (exact ? l : limit * l) / len;
        const nx = f(p, j3) + dx * s2,
          ny = f(p, j3 + 1) + dy * s2,
          nz = f(p, j3 + 2) + dz * s2;
        put(corr, c3, (first ? 0 : f(corr, c3)) + (nx - f(p, i3)));
        put(corr, c3 + 1, (first ? 0 : f(corr, c3 + 1)) + (ny - f(p, i3 + 1)));
        put(corr, c3 + 2, (first ? 0 : f(corr, c3 + 2)) + (nz - f(p, i3 + 2)));
        put(p, i3, nx);
        put(p, i3 + 1, ny);
        put(p, i3 + 2, nz);
      }
    }
  }
}

/**
 * updateRange: v = (p − x)/h, x = p over particles [from, to); a non-finite p reset to x with v = 0,
 * a move longer than `reach` held to it. Writes the two counts (recoveries, clamps) as i32 at `counts`.
 */
export function update(
  x: usize,
  p: usize,
  v: usize,
  invH: f64,
  reach: f64,
  from: i32,
  to: i32,
  counts: usize,
): void {
  const reach2 = reach * reach;
  let recoveries: i32 = 0;
  let clamps: i32 = 0;
  for (let i = from; i < to; i++) {
    const i3 = 3 * i;
    let px = f(p, i3);
    let py = f(p, i3 + 1);
    let pz = f(p, i3 + 2);
    if (px - px != 0 || py - py != 0 || pz - pz != 0) {
      put(v, i3, 0);
      put(v, i3 + 1, 0);
      put(v, i3 + 2, 0);
      put(p, i3, f(x, i3));
      put(p, i3 + 1, f(x, i3 + 1));
      put(p, i3 + 2, f(x, i3 + 2));
      recoveries++;
      continue;
    }
    let dx = px - f(x, i3);
    let dy = py - f(x, i3 + 1);
    let dz = pz - f(x, i3 + 2);
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 > reach2) {
      const k = reach / Math.sqrt(d2);
      dx *= k;
      dy *= k;
      dz *= k;
      px = f(x, i3) + dx;
      py = f(x, i3 + 1) + dy;
      pz = f(x, i3 + 2) + dz;
      clamps++;
    }
    put(v, i3, dx * invH);
    put(v, i3 + 1, dy * invH);
    put(v, i3 + 2, dz * invH);
    put(x, i3, px);
    put(x, i3 + 1, py);
    put(x, i3 + 2, pz);
  }
  store<i32>(counts, recoveries);
  store<i32>(counts, clamps, 4);
}

/** dftlStrands over strands [from, to): v_i −= k d_{i+1} (corr from particle corrFrom on). */
export function dftl(v: usize, w: usize, start: usize, corr: usize, k: f64, from: i32, to: i32, corrFrom: i32): void {
  for (let s = from; s < to; s++) {
    const last = int(start, s + 1) - 1;
    for (let i = int(start, s); i < last; i++) {
      if (f(w, i) == 0) continue;
      const i3 = 3 * i,
        c3 = 3 * (i + 1 - corrFrom);
      put(v, i3, f(v, i3) - k * f(corr, c3));
      put(v, i3 + 1, f(v, i3 + 1) - k * f(corr, c3 + 1));
      put(v, i3 + 2, f(v, i3 + 2) - k * f(corr, c3 + 2));
    }
  }
}
