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

@inline function f(a: usize, i: i32): f64 {
  return load<f64>(a + (<usize>i << 3));
}

@inline function put(a: usize, i: i32, v: f64): void {
  store<f64>(a + (<usize>i << 3), v);
}

/** a[i], a[i + 1], a[i + 2] ← x, y, z (the three stores after the three values, as the JavaScript's
 * per-component writes give when a's components are not read by the others' values). */
@inline function put3(a: usize, i: i32, x: f64, y: f64, z: f64): void {
  put(a, i, x);
  put(a, i + 1, y);
  put(a, i + 2, z);
}

@inline function zero3(a: usize, i: i32): void {
  put3(a, i, 0, 0, 0);
}

@inline function int(a: usize, i: i32): i32 {
  return load<i32>(a + (<usize>i << 2));
}

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
// The sphere's contacts of a block (src/collision/collider-contacts-sphere.ts generateSphereContacts,
// collider-contacts-blocks.ts projectPlainContacts, collider-contacts.ts endStepRange), for one sphere
// that follows no rigid body and is unturned, particles that share one radius, group and mask, and no
// disabled body (the strand kernel checks these and otherwise calls the JavaScript).

/** Slots of the address table (i32 each): the arrays of the store and of the contact list, then the
 * list's count (an address), the collider's index and the substep (numbers). */
enum Slot {
  X, P, V, W, PART, COL, Q, N, LN, LT, SLID, INC, VN0, DEEP, RIGID, AT, OF, AOF, SEEN, LOCAL, STN, STT,
  COUNT, C, SUB,
}

/** Slots of the number table (f64 each): the sphere and the substep's numbers. */
enum Num {
  RAD, CP, LV = 4, AV = 7, MARGIN = 10, R0, H, MAXDEP, DECAY, MU, MUS, REST, E,
}

@inline function addr(A: usize, slot: i32): usize {
  return <usize>load<i32>(A + (<usize>slot << 2));
}

/**
 * generateSphereContacts (record, uniform, unturned, no chunks) over particles [from, to): the same
 * contacts with the same numbers, appended at the list's count. Returns −1 when done, or the particle
 * it stopped at, before recording anything of it, for the JavaScript to generate: a deep penetration
 * (recordDeep). A point within 1e-12 of the centre takes the unturned sphere's own answer (normal +y),
 * as the JavaScript's query gives it.
 */
export function sphereContacts(A: usize, F: usize, from: i32, to: i32): i32 {
  const x = addr(A, Slot.X),
    p = addr(A, Slot.P),
    v = addr(A, Slot.V),
    w = addr(A, Slot.W);
  const part = addr(A, Slot.PART),
    cid = addr(A, Slot.COL),
    qa = addr(A, Slot.Q),
    na = addr(A, Slot.N),
    lamN = addr(A, Slot.LN),
    lamT = addr(A, Slot.LT),
    slid = addr(A, Slot.SLID),
    inc = addr(A, Slot.INC),
    vn0a = addr(A, Slot.VN0),
    deepA = addr(A, Slot.DEEP),
    rigid = addr(A, Slot.RIGID),
    at = addr(A, Slot.AT),
    contactOf = addr(A, Slot.OF),
    anchorOf = addr(A, Slot.AOF),
    seen = addr(A, Slot.SEEN),
    al = addr(A, Slot.LOCAL),
    stickN = addr(A, Slot.STN),
    stickT = addr(A, Slot.STT);
  const countAt = addr(A, Slot.COUNT);
  const c = load<i32>(A + (<usize>Slot.C << 2)),
    substep = load<i32>(A + (<usize>Slot.SUB << 2));
  const rad = f(F, Num.RAD),
    cpx = f(F, Num.CP),
    cpy = f(F, Num.CP + 1),
    cpz = f(F, Num.CP + 2),
    lvx = f(F, Num.LV),
    lvy = f(F, Num.LV + 1),
    lvz = f(F, Num.LV + 2),
    avx = f(F, Num.AV),
    avy = f(F, Num.AV + 1),
    avz = f(F, Num.AV + 2),
    margin = f(F, Num.MARGIN),
    r0 = f(F, Num.R0),
    h = f(F, Num.H),
    maxDep = f(F, Num.MAXDEP),
    decay = f(F, Num.DECAY);
  let count = load<i32>(countAt);
  for (let i = from; i < to; i++) {
    if (f(w, i) == 0) continue;
    const i3 = 3 * i;
    const px = f(p, i3),
      py = f(p, i3 + 1),
      pz = f(p, i3 + 2);
    const xx = f(x, i3),
      xy = f(x, i3 + 1),
      xz = f(x, i3 + 2);
    const r = margin + r0;
    const mx = px - xx,
      my = py - xy,
      mz = pz - xz;
    const seg = Math.sqrt(mx * mx + my * my + mz * mz);
    {
      const dx = 0.5 * (px + xx) - cpx,
        dy = 0.5 * (py + xy) - cpy,
        dz = 0.5 * (pz + xz) - cpz;
      const reach = rad + 2 * (r + seg) + 0.5 * seg;
      if (dx * dx + dy * dy + dz * dz > reach * reach) continue;
    }
    const ax = xx - cpx,
      ay = xy - cpy,
      az = xz - cpz;
    const lenX = Math.sqrt(ax * ax + ay * ay + az * az);
    let len = lenX;
    // at the centre (within 1e-12) the unturned sphere's own query (Collider.distanceAt through
    // SphereCollider.localDistance) gives the normal +y and the same distance len − radius
    const dX = lenX - rad;
    let nx: f64, ny: f64, nz: f64;
    let qx: f64 = 0,
      qy: f64 = 0,
      qz: f64 = 0;
    let atP: i32 = 0;
    if (dX >= r) {
      let t: f64 = -1;
      if (seg > dX - r) {
        const bx = px - cpx,
          by = py - cpy,
          bz = pz - cpz;
        const RR = rad + r;
        const ex = bx - ax,
          ey = by - ay,
          ez = bz - az;
        const a = ex * ex + ey * ey + ez * ez;
        if (a != 0) {
          const b = 2 * (ax * ex + ay * ey + az * ez);
          const cq = ax * ax + ay * ay + az * az - RR * RR;
          if (!(cq < 0)) {
            const disc = b * b - 4 * a * cq;
            if (!(disc < 0)) {
              const tt = (-b - Math.sqrt(disc)) / (2 * a);
              if (tt >= 0 && tt <= 1) t = tt;
            }
          }
        }
      }
      if (t >= 0) {
        qx = xx + t * mx;
        qy = xy + t * my;
        qz = xz + t * mz;
        atP = 3;
      } else atP = 2;
    } else {
      if (lenX > 1e-12) {
        nx = ax / lenX;
        ny = ay / lenX;
        nz = az / lenX;
      } else {
        nx = 0;
        ny = 1;
        nz = 0;
      }
      const sn =
        (lvx + avy * az - avz * ay) * nx + (lvy + avz * ax - avx * az) * ny + (lvz + avx * ay - avy * ax) * nz;
      const excess = r - dX - (max(sn, 0) + maxDep) * h;
      if (excess > 0) {
        store<i32>(countAt, count);
        return i;
      }
      atP = 1;
    }
    {
      // the normal at the ray's hit q (atP 3) or at p (1: the static fallback, 2: the closest point,
      // no contact when out of reach this substep), whose closest surface point is then q
      const hx = (atP === 3 ? qx : px) - cpx,
        hy = (atP === 3 ? qy : py) - cpy,
        hz = (atP === 3 ? qz : pz) - cpz;
      len = Math.sqrt(hx * hx + hy * hy + hz * hz);
      if (len > 1e-12) {
        nx = hx / len;
        ny = hy / len;
        nz = hz / len;
      } else {
        // the point at the centre: the sphere's own query's +y, as above
        nx = 0;
        ny = 1;
        nz = 0;
      }
      if (atP !== 3) {
        const dP = len - rad;
        if (atP === 2 && dP >= 2 * (r + seg)) continue;
        qx = px - (dP - r) * nx;
        qy = py - (dP - r) * ny;
        qz = pz - (dP - r) * nz;
      }
    }
    // velocity of the collider at q
    const rx = qx - cpx,
      ry = qy - cpy,
      rz = qz - cpz;
    const cvx = lvx + avy * rz - avz * ry;
    const cvy = lvy + avz * rx - avx * rz;
    const cvz = lvz + avx * ry - avy * rx;
    const vn0 = (f(v, i3) - cvx) * nx + (f(v, i3 + 1) - cvy) * ny + (f(v, i3 + 2) - cvz) * nz;
    const k = count++;
    const k3 = 3 * k;
    store<i32>(part + (<usize>k << 2), i);
    store<i32>(cid + (<usize>k << 2), c);
    put3(qa, k3, qx, qy, qz);
    put3(na, k3, nx, ny, nz);
    put(lamN, k, 0);
    put(lamT, k, 0);
    store<u8>(slid + <usize>k, 0);
    put(vn0a, k, vn0);
    store<u8>(deepA + <usize>k, 0);
    store<i32>(rigid + (<usize>k << 2), -1);
    {
      // incomingSlip (collider-contact-chunks.ts)
      const dx = f(p, i3) - f(x, i3) - cvx * h,
        dy = f(p, i3 + 1) - f(x, i3 + 1) - cvy * h,
        dz = f(p, i3 + 2) - f(x, i3 + 2) - cvz * h;
      const dn = dx * nx + dy * ny + dz * nz;
      const tx = dx - dn * nx,
        ty = dy - dn * ny,
        tz = dz - dn * nz;
      put(inc, k, Math.sqrt(tx * tx + ty * ty + tz * tz));
    }
    store<i32>(contactOf + (<usize>i << 2), k);
    if (load<i32>(anchorOf + (<usize>i << 2)) != c + 1 || load<i32>(seen + (<usize>i << 2)) < substep - 1) {
      put3(al, i3, f(x, i3) + cvx * h - cpx, f(x, i3 + 1) + cvy * h - cpy, f(x, i3 + 2) + cvz * h - cpz);
      store<i32>(anchorOf + (<usize>i << 2), c + 1);
      put(stickN, i, 0);
      zero3(stickT, i3);
    } else {
      put(stickN, i, f(stickN, i) * decay);
      put3(stickT, i3, f(stickT, i3) * decay, f(stickT, i3 + 1) * decay, f(stickT, i3 + 2) * decay);
    }
    store<i32>(seen + (<usize>i << 2), substep);
    put3(at, k3, f(al, i3) + cpx, f(al, i3 + 1) + cpy, f(al, i3 + 2) + cpz);
  }
  store<i32>(countAt, count);
  return -1;
}

/** projectPlainContacts (not opening) over contacts [k0, k1) of the unturned sphere (μ, μ_s at F). */
export function projectSphereContacts(A: usize, F: usize, k0: i32, k1: i32): void {
  const p = addr(A, Slot.P);
  const part = addr(A, Slot.PART),
    q = addr(A, Slot.Q),
    n = addr(A, Slot.N),
    lam = addr(A, Slot.LN),
    lamT = addr(A, Slot.LT),
    slid = addr(A, Slot.SLID),
    inc = addr(A, Slot.INC),
    at = addr(A, Slot.AT),
    local = addr(A, Slot.LOCAL),
    stickN = addr(A, Slot.STN),
    stickT = addr(A, Slot.STT);
  const mu = f(F, Num.MU),
    mus = f(F, Num.MUS),
    cpx = f(F, Num.CP),
    cpy = f(F, Num.CP + 1),
    cpz = f(F, Num.CP + 2);
  for (let k = k0; k < k1; k++) {
    const i = load<i32>(part + (<usize>k << 2));
    const i3 = 3 * i,
      k3 = 3 * k;
    const nx = f(n, k3),
      ny = f(n, k3 + 1),
      nz = f(n, k3 + 2);
    let C0 = (f(p, i3) - f(q, k3)) * nx + (f(p, i3 + 1) - f(q, k3 + 1)) * ny + (f(p, i3 + 2) - f(q, k3 + 2)) * nz;
    if (C0 >= 0) {
      if (!(f(lam, k) > 0)) continue;
      C0 = 0;
    } else {
      put3(p, i3, f(p, i3) - C0 * nx, f(p, i3 + 1) - C0 * ny, f(p, i3 + 2) - C0 * nz);
      put(lam, k, f(lam, k) - C0);
    }
    if (mu == 0 && mus == 0) continue;
    const dx = f(p, i3) - f(at, k3),
      dy = f(p, i3 + 1) - f(at, k3 + 1),
      dz = f(p, i3 + 2) - f(at, k3 + 2);
    const dn = dx * nx + dy * ny + dz * nz;
    const tx = dx - dn * nx,
      ty = dy - dn * ny,
      tz = dz - dn * nz;
    const s3 = i3;
    const sn = f(stickT, s3) * nx + f(stickT, s3 + 1) * ny + f(stickT, s3 + 2) * nz;
    const sx = f(stickT, s3) - sn * nx + tx,
      sy = f(stickT, s3 + 1) - sn * ny + ty,
      sz = f(stickT, s3 + 2) - sn * nz + tz;
    const budget = mus * (f(stickN, i) - C0);
    if (load<u8>(slid + <usize>k) == 0 && f(inc, k) <= mus * f(lam, k) && sx * sx + sy * sy + sz * sz <= budget * budget) {
      put3(p, i3, f(p, i3) - tx, f(p, i3 + 1) - ty, f(p, i3 + 2) - tz);
      put(stickN, i, f(stickN, i) - C0);
      put3(stickT, s3, sx, sy, sz);
      continue;
    }
    store<u8>(slid + <usize>k, 1);
    const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
    const g = tl > 1e-15 ? max(min((mu * f(lam, k) - f(lamT, k)) / tl, 1), 0) : 0;
    put3(p, i3, f(p, i3) - g * tx, f(p, i3 + 1) - g * ty, f(p, i3 + 2) - g * tz);
    put(lamT, k, f(lamT, k) + g * tl);
    put3(local, s3, f(p, i3) - cpx, f(p, i3 + 1) - cpy, f(p, i3 + 2) - cpz);
    put(stickN, i, 0);
    zero3(stickT, s3);
  }
}

/** endStepRange over contacts [k0, k1) of the sphere (none follows a rigid body; restitution at F). */
export function endSphereContacts(A: usize, F: usize, k0: i32, k1: i32): void {
  const v = addr(A, Slot.V);
  const part = addr(A, Slot.PART),
    q = addr(A, Slot.Q),
    n = addr(A, Slot.N),
    lam = addr(A, Slot.LN),
    vn0a = addr(A, Slot.VN0),
    deepA = addr(A, Slot.DEEP);
  const restThreshold = f(F, Num.REST),
    restitution = f(F, Num.E),
    cpx = f(F, Num.CP),
    cpy = f(F, Num.CP + 1),
    cpz = f(F, Num.CP + 2),
    lvx = f(F, Num.LV),
    lvy = f(F, Num.LV + 1),
    lvz = f(F, Num.LV + 2),
    avx = f(F, Num.AV),
    avy = f(F, Num.AV + 1),
    avz = f(F, Num.AV + 2);
  for (let k = k0; k < k1; k++) {
    const deep = load<u8>(deepA + <usize>k) != 0;
    if (f(lam, k) <= 0 && !deep) continue;
    const vn0 = f(vn0a, k);
    if (!(vn0 < 0) && !deep) continue;
    const e = -vn0 > restThreshold && !deep ? restitution : 0;
    const i3 = 3 * load<i32>(part + (<usize>k << 2)),
      k3 = 3 * k;
    const nx = f(n, k3),
      ny = f(n, k3 + 1),
      nz = f(n, k3 + 2);
    const rx = f(q, k3) - cpx,
      ry = f(q, k3 + 1) - cpy,
      rz = f(q, k3 + 2) - cpz;
    const cvx = lvx + avy * rz - avz * ry;
    const cvy = lvy + avz * rx - avx * rz;
    const cvz = lvz + avx * ry - avy * rx;
    const vn = (f(v, i3) - cvx) * nx + (f(v, i3 + 1) - cvy) * ny + (f(v, i3 + 2) - cvz) * nz;
    const dv = deep ? min(max(vn0, 0) - vn, 0) : -e * vn0 - vn;
    put3(v, i3, f(v, i3) + dv * nx, f(v, i3 + 1) + dv * ny, f(v, i3 + 2) + dv * nz);
  }
}

/**
 * Bytes per contact of the contact list's array at slot s, from Slot.PART to Slot.AT (the per-contact
 * ones). A function, not a table: the module keeps no data in memory (the strand kernel's arrays start
 * at address 64, and each thread's instantiation would write a data segment again).
 */
@inline function contactBytes(s: i32): usize {
  if (s === Slot.Q || s === Slot.N || s === Slot.AT) return 24;
  if (s === Slot.LN || s === Slot.LT || s === Slot.INC || s === Slot.VN0) return 8;
  if (s === Slot.SLID || s === Slot.DEEP) return 1;
  return 4;
}

/**
 * Moves contacts [from, from + n) of the list whose arrays table As names to [to, to + n) of As's
 * destination table Ad (the threaded pass, src/strands/strand-threads.ts: each block's contacts,
 * generated at its first particle's slot of a staging list, go to their place in particle order), and
 * points the contacts' particles' contactOf (Ad's) at their new slots.
 */
export function moveContacts(As: usize, Ad: usize, from: i32, n: i32, to: i32): void {
  if (n <= 0) return;
  for (let s: i32 = Slot.PART; s <= Slot.AT; s++) {
    const b = contactBytes(s);
    memory.copy(addr(Ad, s) + <usize>to * b, addr(As, s) + <usize>from * b, <usize>n * b);
  }
  const part = addr(Ad, Slot.PART),
    contactOf = addr(Ad, Slot.OF);
  for (let k = to; k < to + n; k++) store<i32>(contactOf + (<usize>load<i32>(part + (<usize>k << 2)) << 2), k);
}
