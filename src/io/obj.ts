import { PbdError } from '../core/errors.js';
import type { TriangleMesh } from '../mesh/triangle-mesh.js';

/**
 * Reads a Wavefront OBJ: `v` positions, `vt` texture coordinates and `f`
 * faces (polygons are fan-triangulated; `v/vt/vn` and negative indices are
 * understood). Vertices no face uses are dropped. Errors name the line and
 * column.
 */
export function parseObj(text: string, where = 'mesh.obj'): TriangleMesh {
  const pos: number[] = [];
  const tex: number[] = [];
  const faces: number[] = [];
  const faceTex: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln].trim();
    if (line === '' || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    const tag = parts[0];
    if (tag === 'v') {
      const x = Number(parts[1]),
        y = Number(parts[2]),
        z = Number(parts[3]);
      if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
        const bad = !Number.isFinite(x) ? 1 : !Number.isFinite(y) ? 2 : 3;
        throw new PbdError(
          'obj/bad-vertex',
          `${where}:${ln + 1}:${column(lines[ln], bad)}`,
          `vertex "${line}" has a non-numeric or non-finite coordinate`,
        );
      }
      pos.push(x, y, z);
    } else if (tag === 'vt') {
      tex.push(Number(parts[1]) || 0, Number(parts[2]) || 0);
    } else if (tag === 'f') {
      const nv = pos.length / 3,
        nt = tex.length / 2;
      const corners: number[] = [];
      const cornerTex: number[] = [];
      for (let k = 1; k < parts.length; k++) {
        const [vs, ts] = parts[k].split('/');
        let vi = Number.parseInt(vs, 10);
        if (!Number.isFinite(vi) || vi === 0) {
          throw new PbdError(
            'obj/bad-face',
            `${where}:${ln + 1}:${column(lines[ln], k)}`,
            `face corner "${parts[k]}" is not a vertex index`,
          );
        }
        vi = vi < 0 ? nv + vi : vi - 1;
        if (vi < 0 || vi >= nv) {
          throw new PbdError(
            'obj/index-out-of-range',
            `${where}:${ln + 1}:${column(lines[ln], k)}`,
            `face refers to vertex ${vs} but only ${nv} vertices are defined before it`,
          );
        }
        corners.push(vi);
        let ti = ts ? Number.parseInt(ts, 10) : 0;
        ti = ti < 0 ? nt + ti : ti - 1;
        cornerTex.push(ti >= 0 && ti < nt ? ti : -1);
      }
      if (corners.length < 3)
        throw new PbdError(
          'obj/bad-face',
          `${where}:${ln + 1}:${column(lines[ln], parts.length)}`,
          'a face needs at least three corners',
        );
      for (let k = 1; k + 1 < corners.length; k++) {
        faces.push(corners[0], corners[k], corners[k + 1]);
        faceTex.push(cornerTex[0], cornerTex[k], cornerTex[k + 1]);
      }
    }
  }
  if (faces.length === 0)
    throw new PbdError('obj/empty', where, 'has no faces', 'a cloth or surface needs triangles (f lines)');
  // compact: keep referenced vertices in their original order
  const remap = new Int32Array(pos.length / 3).fill(-1);
  let used = 0;
  for (const v of faces) if (remap[v] < 0) remap[v] = 0;
  for (let i = 0; i < remap.length; i++) if (remap[i] === 0) remap[i] = used++;
  const positions = new Float64Array(3 * used);
  for (let i = 0; i < remap.length; i++) {
    if (remap[i] < 0) continue;
    positions.set(pos.slice(3 * i, 3 * i + 3), 3 * remap[i]);
  }
  const triangles = Uint32Array.from(faces, (v) => remap[v]);
  const mesh: TriangleMesh = { positions, triangles };
  if (tex.length > 0 && faceTex.every((t) => t >= 0)) {
    const uvs = new Float64Array(2 * used);
    for (let k = 0; k < faces.length; k++) {
      const v = remap[faces[k]];
      uvs[2 * v] = tex[2 * faceTex[k]];
      uvs[2 * v + 1] = tex[2 * faceTex[k] + 1];
    }
    mesh.uvs = uvs;
  }
  return mesh;
}

/** 1-based column of the k-th whitespace-separated token of a line (the line's end past its last token). */
function column(line: string, k: number): number {
  const token = /\S+/g;
  let m = token.exec(line);
  for (let i = 0; m && i < k; i++) m = token.exec(line);
  return m ? m.index + 1 : line.trimEnd().length + 1;
}

/** Writes positions (xyz interleaved, `count` vertices from `offset`) and triangles as OBJ text. */
export function formatObj(
  positions: ArrayLike<number>,
  triangles: ArrayLike<number>,
  options: {
    offset?: number;
    count?: number;
    uvs?: ArrayLike<number> | null;
    comment?: string;
    /** Line segments (pairs of vertex indices), written as `l` polylines (consecutive segments joined). */
    lines?: ArrayLike<number> | null;
  } = {},
): string {
  const off = options.offset ?? 0;
  const count = options.count ?? positions.length / 3 - off;
  const out: string[] = [];
  if (options.comment) out.push(`# ${options.comment}`);
  for (let i = 0; i < count; i++) {
    const k = 3 * (off + i);
    out.push(`v ${fmt(positions[k])} ${fmt(positions[k + 1])} ${fmt(positions[k + 2])}`);
  }
  const uv = options.uvs;
  if (uv) for (let i = 0; i < count; i++) out.push(`vt ${fmt(uv[2 * i])} ${fmt(uv[2 * i + 1])}`);
  for (let t = 0; t < triangles.length; t += 3) {
    const a = triangles[t] + 1,
      b = triangles[t + 1] + 1,
      c = triangles[t + 2] + 1;
    out.push(uv ? `f ${a}/${a} ${b}/${b} ${c}/${c}` : `f ${a} ${b} ${c}`);
  }
  const lines = options.lines;
  if (lines && lines.length > 0) {
    // a strand's segments (j − 1, j), (j, j + 1) … become one polyline
    let poly = [lines[0] + 1, lines[1] + 1];
    for (let k = 2; k < lines.length; k += 2) {
      if (lines[k] + 1 === poly[poly.length - 1]) poly.push(lines[k + 1] + 1);
      else {
        out.push(`l ${poly.join(' ')}`);
        poly = [lines[k] + 1, lines[k + 1] + 1];
      }
    }
    out.push(`l ${poly.join(' ')}`);
  }
  return `${out.join('\n')}\n`;
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(9);
}
