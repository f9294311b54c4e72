/**
 * The pair loops of position based fluids in AssemblyScript, compiled to
 * WebAssembly by scripts/build-kernels.ts into src/wasm/fluids.generated.ts. Each
 * function is a line-for-line port of the JavaScript function of the same
 * name in src/fluids/density-passes.ts, correction-passes.ts or
 * velocity-passes.ts (which document the formulas and cites the
 * papers) and performs the same floating-point operations in the same order,
 * so both give identical numbers bit for bit (test/fluids-wasm.test.ts).
 *
 * Arguments named like the JS arrays are byte addresses in the module's
 * (imported) memory: slot records of 8 doubles (64 bytes) at `acc`, i32
 * arrays for `sorted`, `start`, `nbr`, `live`, `liveStart`. The one addition
 * is a pair buffer `gBuf` (one double per listed pair, index k of the rows
 * walked): the density and XSPH passes store the spiky gradient factor g of
 * each pair there, and the correction and vorticity-gradient passes at the
 * same positions (Jacobi: nothing moves in between) read it back instead of
 * computing the square root and division again.
 */

/** density-passes.ts MIN_DISTANCE. */
const MIN_DISTANCE: f64 = 1e-6;

/** density-passes.ts listInside: appends the partners closer than √h2 to `live`; branch-free. */
function listInside(
  px: f64,
  py: f64,
  pz: f64,
  h2: f64,
  k0: i32,
  k1: i32,
  nbr: usize,
  rec: usize,
  live: usize,
  kl: i32,
): i32 {
  for (let k = k0; k < k1; k++) {
    const sj = load<i32>(nbr + ((<usize>k) << 2));
    const o = rec + ((<usize>sj) << 6);
    const dx = px - load<f64>(o, 40),
      dy = py - load<f64>(o, 48),
      dz = pz - load<f64>(o, 56);
    store<i32>(live + ((<usize>kl) << 2), sj);
    kl += i32(dx * dx + dy * dy + dz * dz < h2);
  }
  return kl;
}

/** density-passes.ts fluidDensityPass, storing g of pair k at gBuf[k]. */
export function fluidDensityPass(
  n: i32,
  off: i32,
  sorted: usize,
  start: usize,
  nbr: usize,
  wU: f64,
  h: f64,
  wCoef: f64,
  gCoef: f64,
  acc: usize,
  live: usize,
  liveStart: usize,
  allInside: bool,
  gBuf: usize,
): void {
  const h2 = h * h;
  const rMin = MIN_DISTANCE * h;
  let kl: i32 = 0;
  store<i32>(liveStart, 0);
  for (let a: i32 = 0; a < n; a++) {
    const oi = acc + ((<usize>(load<i32>(sorted + ((<usize>a) << 2)) - off)) << 6);
    const px = load<f64>(oi, 40),
      py = load<f64>(oi, 48),
      pz = load<f64>(oi, 56);
    let idx = nbr;
    let k0 = load<i32>(start + ((<usize>a) << 2));
    let k1 = load<i32>(start + ((<usize>a) << 2), 4);
    if (!allInside) {
      idx = live;
      const end = listInside(px, py, pz, h2, k0, k1, nbr, acc, live, kl);
      k0 = kl;
      k1 = kl = end;
    }
    let rhoI: f64 = 0,
      gxi: f64 = 0,
      gyi: f64 = 0,
      gzi: f64 = 0,
      ssI: f64 = 0;
    for (let k = k0; k < k1; k++) {
      const o = acc + ((<usize>load<i32>(idx + ((<usize>k) << 2))) << 6);
      let dx = px - load<f64>(o, 40),
        dy = py - load<f64>(o, 48),
        dz = pz - load<f64>(o, 56);
      let r2 = dx * dx + dy * dy + dz * dz;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        dx = rMin;
        dy = 0;
        dz = 0;
        r = rMin;
        r2 = rMin * rMin;
      }
      const t = h - r;
      const w = wCoef * t * t * t;
      const g = (-gCoef * t * t) / r;
      store<f64>(gBuf + ((<usize>k) << 3), g);
      const ax = g * dx,
        ay = g * dy,
        az = g * dz;
      const gg = wU * (g * g * r2);
      rhoI += w;
      gxi += ax;
      gyi += ay;
      gzi += az;
      ssI += gg;
      store<f64>(o, load<f64>(o, 0) + w, 0);
      store<f64>(o, load<f64>(o, 8) - ax, 8);
      store<f64>(o, load<f64>(o, 16) - ay, 16);
      store<f64>(o, load<f64>(o, 24) - az, 24);
      store<f64>(o, load<f64>(o, 32) + gg, 32);
    }
    store<f64>(oi, load<f64>(oi, 0) + rhoI, 0);
    store<f64>(oi, load<f64>(oi, 8) + gxi, 8);
    store<f64>(oi, load<f64>(oi, 16) + gyi, 16);
    store<f64>(oi, load<f64>(oi, 24) + gzi, 24);
    store<f64>(oi, load<f64>(oi, 32) + ssI, 32);
    if (!allInside) store<i32>(liveStart + ((<usize>(a + 1)) << 2), kl);
  }
}

/** correction-passes.ts powInt: x^n by squaring. */
function powInt(x: f64, n: i32): f64 {
  let r: f64 = 1;
  let b = x;
  while (n > 0) {
    if (n & 1) r *= b;
    b *= b;
    n >>= 1;
  }
  return r;
}

/**
 * correction-passes.ts fluidCorrectionPass over the rows the density pass walked, with g
 * read from gBuf. The distance is recomputed (for s_corr and the clamp of
 * near-coincident pairs); its square root only where r² < 4 r_min², the only
 * place where r < r_min can hold.
 */
export function fluidCorrectionPass(
  n: i32,
  off: i32,
  sorted: usize,
  start: usize,
  nbr: usize,
  h: f64,
  nCorr: i32,
  qRest3: f64,
  invQd3: f64,
  corrScale: f64,
  acc: usize,
  gBuf: usize,
): void {
  const h2 = h * h;
  const rMin = MIN_DISTANCE * h;
  const near = 4 * rMin * rMin;
  const corr = corrScale !== 0;
  for (let a: i32 = 0; a < n; a++) {
    const oi = acc + ((<usize>(load<i32>(sorted + ((<usize>a) << 2)) - off)) << 6);
    const px = load<f64>(oi, 40),
      py = load<f64>(oi, 48),
      pz = load<f64>(oi, 56);
    const li = load<f64>(oi, 0);
    let ax: f64 = 0,
      ay: f64 = 0,
      az: f64 = 0;
    const e = load<i32>(start + ((<usize>a) << 2), 4);
    for (let k = load<i32>(start + ((<usize>a) << 2)); k < e; k++) {
      const o = acc + ((<usize>load<i32>(nbr + ((<usize>k) << 2))) << 6);
      let dx = px - load<f64>(o, 40),
        dy = py - load<f64>(o, 48),
        dz = pz - load<f64>(o, 56);
      let r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < near && Math.sqrt(r2) < rMin) {
        dx = rMin;
        dy = 0;
        dz = 0;
        r2 = rMin * rMin;
      }
      const g = load<f64>(gBuf + ((<usize>k) << 3));
      let lij = li + load<f64>(o, 0);
      if (corr) {
        const q = h2 - r2;
        let ratio = (q * q * q - qRest3) * invQd3;
        if (ratio < 0) ratio = 0;
        let pw: f64;
        if (nCorr === 4) {
          const r2c = ratio * ratio;
          pw = r2c * r2c;
        } else {
          pw = powInt(ratio, nCorr);
        }
        lij += corrScale * pw;
      }
      const c = lij * g;
      const cx = c * dx,
        cy = c * dy,
        cz = c * dz;
      ax += cx;
      ay += cy;
      az += cz;
      const wj = load<f64>(o, 8);
      store<f64>(o, load<f64>(o, 16) - wj * cx, 16);
      store<f64>(o, load<f64>(o, 24) - wj * cy, 24);
      store<f64>(o, load<f64>(o, 32) - wj * cz, 32);
    }
    const wi = load<f64>(oi, 8);
    store<f64>(oi, load<f64>(oi, 16) + wi * ax, 16);
    store<f64>(oi, load<f64>(oi, 24) + wi * ay, 24);
    store<f64>(oi, load<f64>(oi, 32) + wi * az, 32);
  }
}

/** velocity-passes.ts xsphVorticityPass (R and Q records), storing the vorticity g of live pair k at gBuf[k]. */
export function xsphVorticityPass(
  n: i32,
  off: i32,
  sorted: usize,
  start: usize,
  nbr: usize,
  R: usize,
  h: f64,
  cW: f64,
  gCoef: f64,
  vort: bool,
  Q: usize,
  live: usize,
  liveStart: usize,
  gBuf: usize,
): void {
  const h2 = h * h;
  let kl: i32 = 0;
  store<i32>(liveStart, 0);
  for (let a: i32 = 0; a < n; a++) {
    const si = (<usize>(load<i32>(sorted + ((<usize>a) << 2)) - off)) << 6;
    const ri = R + si,
      qi = Q + si;
    const px = load<f64>(ri, 40),
      py = load<f64>(ri, 48),
      pz = load<f64>(ri, 56);
    const vx = load<f64>(ri, 0),
      vy = load<f64>(ri, 8),
      vz = load<f64>(ri, 16);
    const k0 = kl;
    const k1 = (kl = listInside(
      px,
      py,
      pz,
      h2,
      load<i32>(start + ((<usize>a) << 2)),
      load<i32>(start + ((<usize>a) << 2), 4),
      nbr,
      R,
      live,
      kl,
    ));
    let ax: f64 = 0,
      ay: f64 = 0,
      az: f64 = 0,
      ox: f64 = 0,
      oy: f64 = 0,
      oz: f64 = 0;
    for (let k = k0; k < k1; k++) {
      const sj = (<usize>load<i32>(live + ((<usize>k) << 2))) << 6;
      const rj = R + sj,
        qj = Q + sj;
      const dx = px - load<f64>(rj, 40),
        dy = py - load<f64>(rj, 48),
        dz = pz - load<f64>(rj, 56);
      const r2 = dx * dx + dy * dy + dz * dz;
      const ux = load<f64>(rj, 0) - vx,
        uy = load<f64>(rj, 8) - vy,
        uz = load<f64>(rj, 16) - vz;
      const q = h2 - r2;
      const wv = cW * q * q * q;
      ax += wv * ux;
      ay += wv * uy;
      az += wv * uz;
      store<f64>(qj, load<f64>(qj, 0) - wv * ux, 0);
      store<f64>(qj, load<f64>(qj, 8) - wv * uy, 8);
      store<f64>(qj, load<f64>(qj, 16) - wv * uz, 16);
      let g: f64 = 0;
      if (vort && r2 > 0) {
        const r = Math.sqrt(r2);
        const t = h - r;
        g = (gCoef * t * t) / r;
        const gx = g * dx,
          gy = g * dy,
          gz = g * dz;
        const cx = uy * gz - uz * gy,
          cy = uz * gx - ux * gz,
          cz = ux * gy - uy * gx;
        ox += cx;
        oy += cy;
        oz += cz;
        store<f64>(qj, load<f64>(qj, 24) + cx, 24);
        store<f64>(qj, load<f64>(qj, 32) + cy, 32);
        store<f64>(qj, load<f64>(qj, 40) + cz, 40);
      }
      store<f64>(gBuf + ((<usize>k) << 3), g);
    }
    store<f64>(qi, load<f64>(qi, 0) + ax, 0);
    store<f64>(qi, load<f64>(qi, 8) + ay, 8);
    store<f64>(qi, load<f64>(qi, 16) + az, 16);
    store<f64>(qi, load<f64>(qi, 24) + ox, 24);
    store<f64>(qi, load<f64>(qi, 32) + oy, 32);
    store<f64>(qi, load<f64>(qi, 40) + oz, 40);
    store<i32>(liveStart + ((<usize>(a + 1)) << 2), kl);
  }
}

/** velocity-passes.ts vorticityGradientPass over the live rows of xsphVorticityPass, with g read from gBuf. */
export function vorticityGradientPass(
  n: i32,
  off: i32,
  sorted: usize,
  start: usize,
  nbr: usize,
  R: usize,
  gBuf: usize,
): void {
  for (let a: i32 = 0; a < n; a++) {
    const oi = R + ((<usize>(load<i32>(sorted + ((<usize>a) << 2)) - off)) << 6);
    const px = load<f64>(oi, 40),
      py = load<f64>(oi, 48),
      pz = load<f64>(oi, 56);
    const mi = load<f64>(oi, 24);
    let ex: f64 = 0,
      ey: f64 = 0,
      ez: f64 = 0;
    const e = load<i32>(start + ((<usize>a) << 2), 4);
    for (let k = load<i32>(start + ((<usize>a) << 2)); k < e; k++) {
      const o = R + ((<usize>load<i32>(nbr + ((<usize>k) << 2))) << 6);
      const dx = px - load<f64>(o, 40),
        dy = py - load<f64>(o, 48),
        dz = pz - load<f64>(o, 56);
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 === 0) continue;
      const f = (mi - load<f64>(o, 24)) * load<f64>(gBuf + ((<usize>k) << 3));
      ex += f * dx;
      ey += f * dy;
      ez += f * dz;
      store<f64>(o, load<f64>(o, 0) + f * dx, 0);
      store<f64>(o, load<f64>(o, 8) + f * dy, 8);
      store<f64>(o, load<f64>(o, 16) + f * dz, 16);
    }
    store<f64>(oi, load<f64>(oi, 0) + ex, 0);
    store<f64>(oi, load<f64>(oi, 8) + ey, 8);
    store<f64>(oi, load<f64>(oi, 16) + ez, 16);
  }
}

/**
 * neighbour-grid.ts buildForwardPairs for a body range already in cell order
 * (the `contiguous` case: item a is slot a), with forwardRanges and
 * contiguousRows inlined: the same pairs in the same order. `pos` holds the
 * range's positions (24 bytes per slot), `cellStart` the grid's cell starts,
 * `ranges` scratch for 2 (2R + 1)² i32. Writes rows into start/nbr and
 * returns the number of pairs, or −1 when a cell's worst case would pass
 * `cap` pairs (the caller makes room and calls again).
 */
export function buildForwardPairs(
  pos: usize,
  cellStart: usize,
  nx: i32,
  ny: i32,
  nz: i32,
  R: i32,
  r2: f64,
  start: usize,
  nbr: usize,
  cap: i32,
  ranges: usize,
): i32 {
  let k: i32 = 0;
  store<i32>(start, 0);
  const nxy = nx * ny;
  const cells = nxy * nz;
  for (let c: i32 = 0; c < cells; c++) {
    const first = load<i32>(cellStart + ((<usize>c) << 2)),
      last = load<i32>(cellStart + ((<usize>c) << 2), 4);
    if (first === last) continue;
    const iz = c / nxy;
    const rem = c - iz * nxy;
    const iy = rem / nx;
    const ix = rem - iy * nx;
    const x0 = max<i32>(ix - R, 0);
    const x1 = min<i32>(ix + R, nx - 1);
    const ownEnd = load<i32>(cellStart + ((<usize>(iy * nx + iz * nxy + x1 + 1)) << 2));
    // forwardRanges: the rows of cells (dy, dz) after the cell's own row, [x0, x1] along x
    let nr: i32 = 0;
    let worst = ownEnd - first + 1;
    for (let dz: i32 = 0; dz <= R; dz++) {
      const cz = iz + dz;
      if (cz >= nz) break;
      for (let dy: i32 = dz === 0 ? 1 : -R; dy <= R; dy++) {
        const cy = iy + dy;
        if (cy < 0 || cy >= ny) continue;
        const base = nx * (cy + ny * cz);
        const lo = load<i32>(cellStart + ((<usize>(base + x0)) << 2)),
          hi = load<i32>(cellStart + ((<usize>(base + x1 + 1)) << 2));
        if (lo === hi) continue;
        store<i32>(ranges + ((<usize>nr) << 2), lo);
        store<i32>(ranges + ((<usize>nr) << 2), hi, 4);
        nr += 2;
        worst += hi - lo;
      }
    }
    if (<i64>k + <i64>worst * <i64>(last - first) > <i64>cap) return -1;
    // contiguousRows
    for (let a = first; a < last; a++) {
      const pa = pos + <usize>a * 24;
      const px = load<f64>(pa, 0),
        py = load<f64>(pa, 8),
        pz = load<f64>(pa, 16);
      for (let b = a + 1; b < ownEnd; b++) {
        const pb = pos + <usize>b * 24;
        const dx = px - load<f64>(pb, 0),
          dy = py - load<f64>(pb, 8),
          dz = pz - load<f64>(pb, 16);
        store<i32>(nbr + ((<usize>k) << 2), b);
        k += i32(dx * dx + dy * dy + dz * dz < r2);
      }
      for (let q: i32 = 0; q < nr; q += 2) {
        const e = load<i32>(ranges + ((<usize>q) << 2), 4);
        for (let b = load<i32>(ranges + ((<usize>q) << 2)); b < e; b++) {
          const pb = pos + <usize>b * 24;
          const dx = px - load<f64>(pb, 0),
            dy = py - load<f64>(pb, 8),
            dz = pz - load<f64>(pb, 16);
          store<i32>(nbr + ((<usize>k) << 2), b);
          k += i32(dx * dx + dy * dy + dz * dz < r2);
        }
      }
      store<i32>(start + ((<usize>(a + 1)) << 2), k);
    }
  }
  return k;
}
