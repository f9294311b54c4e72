/**
 * Rest-state analysis of a shape-matching cloth mesh: its 2D coordinates in
 * the cloth's plane and its fiber clusters (warp and weft strips, Stumpp et
 * al. 2008; survey 000 §4.6).
 */

/** 2D coordinates of the rest vertices in their best-fit plane (principal axes of the point cloud). */
export function planarCoordinates(p: Float64Array): Float64Array {
  const n = p.length / 3;
  const c = [0, 0, 0];
  for (let j = 0; j < n; j++) for (let k = 0; k < 3; k++) c[k] += p[3 * j + k] / n;
  // covariance, and its two largest axes by power iteration with deflation
  const C = new Float64Array(9);
  for (let j = 0; j < n; j++)
    for (let a = 0; a < 3; a++)
      for (let b = 0; b < 3; b++) C[3 * a + b] += (p[3 * j + a] - c[a]) * (p[3 * j + b] - c[b]);
  const axes: number[][] = [];
  for (let k = 0; k < 2; k++) {
    let v = k === 0 ? [1, 0.7, 0.3] : [0.2, 1, 0.5];
    for (let it = 0; it < 100; it++) {
      const w = [0, 1, 2].map((a) => C[3 * a] * v[0] + C[3 * a + 1] * v[1] + C[3 * a + 2] * v[2]);
      for (const u of axes) {
        const d = w[0] * u[0] + w[1] * u[1] + w[2] * u[2];
        for (let a = 0; a < 3; a++) w[a] -= d * u[a];
      }
      const l = Math.hypot(w[0], w[1], w[2]) || 1;
      v = w.map((x) => x / l);
    }
    axes.push(v);
  }
  const out = new Float64Array(2 * n);
  for (let j = 0; j < n; j++) {
    const d = [p[3 * j] - c[0], p[3 * j + 1] - c[1], p[3 * j + 2] - c[2]];
    out[2 * j] = d[0] * axes[0][0] + d[1] * axes[0][1] + d[2] * axes[0][2];
    out[2 * j + 1] = d[0] * axes[1][0] + d[1] * axes[1][1] + d[2] * axes[1][2];
  }
  return out;
}

/**
 * Fiber clusters: maximal strips of edges whose directions in the rest plane
 * stay within 20° of one of the two principal axes (warp and weft) and turn
 * by less than 20° from edge to edge. Strips with fewer than 3 vertices are
 * dropped.
 */
export function findFibers(
  rest: Float64Array,
  uv: Float64Array,
  edges: Uint32Array,
): { start: number[]; members: number[] } {
  const n = rest.length / 3;
  const ne = edges.length / 2;
  const cosTol = Math.cos((20 * Math.PI) / 180);
  const adj: number[][] = Array.from({ length: n }, () => []);
  const dirOf = (e: number, from: number): [number, number] => {
    const a = from,
      b = edges[2 * e] === from ? edges[2 * e + 1] : edges[2 * e];
    const du = uv[2 * b] - uv[2 * a],
      dv = uv[2 * b + 1] - uv[2 * a + 1];
    const l = Math.hypot(du, dv) || 1;
    return [du / l, dv / l];
  };
  const axisOf = (e: number): number => {
    const [du, dv] = dirOf(e, edges[2 * e]);
    if (Math.abs(du) >= cosTol) return 0;
    if (Math.abs(dv) >= cosTol) return 1;
    return -1;
  };
  const axis = new Int8Array(ne);
  for (let e = 0; e < ne; e++) {
    axis[e] = axisOf(e);
    if (axis[e] >= 0) {
      adj[edges[2 * e]].push(e);
      adj[edges[2 * e + 1]].push(e);
    }
  }
  const used = new Uint8Array(ne);
  const start = [0],
    members: number[] = [];
  const other = (e: number, v: number) => (edges[2 * e] === v ? edges[2 * e + 1] : edges[2 * e]);
  const extend = (chain: number[], e0: number, from: number) => {
    let e = e0,
      v = other(e, from);
    for (;;) {
      chain.push(v);
      const [du, dv] = dirOf(e, other(e, v));
      let best = -1,
        bestDot = cosTol;
      for (const f of adj[v]) {
        if (used[f] || axis[f] !== axis[e0]) continue;
        const [fu, fv] = dirOf(f, v);
        const d = fu * du + fv * dv;
        if (d > bestDot) {
          bestDot = d;
          best = f;
        }
      }
      if (best < 0) return;
      used[best] = 1;
      e = best;
      v = other(best, v);
    }
  };
  for (let e = 0; e < ne; e++) {
    if (used[e] || axis[e] < 0) continue;
    used[e] = 1;
    const a = edges[2 * e],
      b = edges[2 * e + 1];
    const fwd: number[] = [];
    extend(fwd, e, a); // a → b → …
    const bwd: number[] = [];
    // continue from a away from b
    let v = a,
      prevDir = dirOf(e, b);
    for (;;) {
      let best = -1,
        bestDot = cosTol;
      for (const f of adj[v]) {
        if (used[f] || axis[f] !== axis[e]) continue;
        const [fu, fv] = dirOf(f, v);
        const d = fu * prevDir[0] + fv * prevDir[1];
        if (d > bestDot) {
          bestDot = d;
          best = f;
        }
      }
      if (best < 0) break;
      used[best] = 1;
      const w = other(best, v);
      prevDir = dirOf(best, v);
      bwd.push(w);
      v = w;
    }
    const strip = [...bwd.reverse(), a, ...fwd];
    if (strip.length >= 3) {
      members.push(...strip);
      start.push(members.length);
    }
  }
  return { start, members };
}
