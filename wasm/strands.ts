/**
 * The WebAssembly module of the fused strand pass (src/strands/fused-pass.ts,
 * src/strands/strand-kernel.ts), compiled by scripts/build-kernels.ts into
 * src/wasm/strands.generated.ts: the particle kernels of one block of
 * strands, written in AssemblyScript as ports of the JavaScript functions
 * they stand for, with the same floating-point operations in the same order
 * (WebAssembly's f64 arithmetic is IEEE with no contraction), so that they
 * give the same numbers bit for bit — checked by test/strands-wasm.test.ts
 * against the JavaScript functions, which stay the path of every world the
 * module does not serve (no WebAssembly, `useWasmKernels(false)`, the
 * stages); in a threaded world every thread instantiates the module on one
 * shared memory and runs blocks of strands (src/strands/strand-threads.ts):
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

import { f, int, put3, zero3 } from './strand-memory';

// predict (predictRange) and update (updateRange) are printed from the particle passes' one
// definition, scripts/kernels/emit-particle-passes.ts, into wasm/particle-passes.generated.ts
export { predict, update } from './particle-passes.generated';

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
            zero3(corr, c3);
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
            zero3(corr, c3);
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
              zero3(corr, c3);
            }
            continue;
          }
        }
        const s2 = (exact ? l : limit * l) / len;
        const nx = f(p, j3) + dx * s2,
          ny = f(p, j3 + 1) + dy * s2,
          nz = f(p, j3 + 2) + dz * s2;
        put3(
          corr,
          c3,
          (first ? 0 : f(corr, c3)) + (nx - f(p, i3)),
          (first ? 0 : f(corr, c3 + 1)) + (ny - f(p, i3 + 1)),
          (first ? 0 : f(corr, c3 + 2)) + (nz - f(p, i3 + 2)),
        );
        put3(p, i3, nx, ny, nz);
      }
    }
  }
}

/** dftlStrands over strands [from, to): v_i −= k d_{i+1} (corr from particle corrFrom on). */
export function dftl(v: usize, w: usize, start: usize, corr: usize, k: f64, from: i32, to: i32, corrFrom: i32): void {
  for (let s = from; s < to; s++) {
    const last = int(start, s + 1) - 1;
    for (let i = int(start, s); i < last; i++) {
      if (f(w, i) == 0) continue;
      const i3 = 3 * i,
        c3 = 3 * (i + 1 - corrFrom);
      put3(v, i3, f(v, i3) - k * f(corr, c3), f(v, i3 + 1) - k * f(corr, c3 + 1), f(v, i3 + 2) - k * f(corr, c3 + 2));
    }
  }
}

// ---------------------------------------------------------------------------
// The sphere's contacts of a block (sphereContacts, projectSphereContacts, endSphereContacts) and the
// threaded pass's moveContacts are printed from one definition, scripts/kernels/emit-strand-contacts.ts
// (the contact list's slots, the collider velocity and the sphere's numbers written once), into
// wasm/strand-contacts.generated.ts.
export { sphereContacts, projectSphereContacts, endSphereContacts, moveContacts } from './strand-contacts.generated';
