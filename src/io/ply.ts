import { PbdError } from '../core/errors.js';
import type { WorldBody } from '../core/world-body.js';

/** What a PLY point file holds besides the positions. */
export interface PlyOptions {
  /** Binary little-endian (default, compact and fast) or ASCII. */
  format?: 'binary' | 'ascii';
  /** Add the velocity of each point (vx, vy, vz). Default true. */
  velocities?: boolean;
  /**
   * Add a stable id per point (int `id`): a fluid's particle ids (stable
   * while it reorders its particles), else the body-local index. Default true.
   */
  ids?: boolean;
  /** Add the contact radius of each point (float `radius`). Default false. */
  radius?: boolean;
  /** A comment line (e.g. the frame time). */
  comment?: string;
}

/**
 * The particles of a body as a PLY point cloud (one `vertex` element, no
 * faces): float x, y, z, then optionally vx, vy, vz, int id and float radius.
 * Works for any body; for a Fluid only the active particles are written.
 * Returns the file's bytes (no file system access: the caller writes them).
 */
export function bodyToPly(body: WorldBody, options: PlyOptions = {}): Uint8Array {
  const format = options.format ?? 'binary';
  if (format !== 'binary' && format !== 'ascii') {
    throw new PbdError('ply/format', 'PLY format', `unknown format '${format}'`, "use 'binary' or 'ascii'");
  }
  const withV = options.velocities ?? true;
  const withId = options.ids ?? true;
  const withR = options.radius ?? false;
  const n = body.activeCount;
  const store = body.world.store;
  const off = body.offset;
  const ids = (body as { ids?: Int32Array }).ids;
  const idOf = (s: number) => (ids && ids.length >= n ? ids[s] : s);
  const comment = (options.comment ?? '').replace(/[\r\n]+/g, ' ');
  const header = [
    'ply',
    `format ${format === 'binary' ? 'binary_little_endian' : 'ascii'} 1.0`,
    `comment pbdkit ${body.type} '${body.name}'${comment ? ` ${comment}` : ''}`,
    `element vertex ${n}`,
    'property float x',
    'property float y',
    'property float z',
    ...(withV ? ['property float vx', 'property float vy', 'property float vz'] : []),
    ...(withId ? ['property int id'] : []),
    ...(withR ? ['property float radius'] : []),
    'end_header',
    '',
  ].join('\n');
  const x = store.x,
    v = store.v,
    radius = store.radius;
  if (format === 'ascii') {
    const lines: string[] = [header];
    for (let s = 0; s < n; s++) {
      const i = off + s;
      let line = `${x[3 * i]} ${x[3 * i + 1]} ${x[3 * i + 2]}`;
      if (withV) line += ` ${v[3 * i]} ${v[3 * i + 1]} ${v[3 * i + 2]}`;
      if (withId) line += ` ${idOf(s)}`;
      if (withR) line += ` ${radius[i]}`;
      lines.push(`${line}\n`);
    }
    return new TextEncoder().encode(lines.join(''));
  }
  const head = new TextEncoder().encode(header);
  const stride = 12 + (withV ? 12 : 0) + (withId ? 4 : 0) + (withR ? 4 : 0);
  const out = new Uint8Array(head.length + stride * n);
  out.set(head);
  const view = new DataView(out.buffer);
  let o = head.length;
  for (let s = 0; s < n; s++) {
    const i = off + s;
    view.setFloat32(o, x[3 * i], true);
    view.setFloat32(o + 4, x[3 * i + 1], true);
    view.setFloat32(o + 8, x[3 * i + 2], true);
    o += 12;
    if (withV) {
      view.setFloat32(o, v[3 * i], true);
      view.setFloat32(o + 4, v[3 * i + 1], true);
      view.setFloat32(o + 8, v[3 * i + 2], true);
      o += 12;
    }
    if (withId) {
      view.setInt32(o, idOf(s), true);
      o += 4;
    }
    if (withR) {
      view.setFloat32(o, radius[i], true);
      o += 4;
    }
  }
  return out;
}
