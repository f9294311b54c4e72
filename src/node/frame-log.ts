/**
 * The frame log of a bake: an append-only binary file with one record per
 * baked frame (statistics, and per body the vertex count, the triangles when
 * they changed, and optionally the positions). A checkpoint remembers the
 * log's length; resuming truncates the log there and appends again, so the
 * final outputs are assembled from exactly the frames an uninterrupted bake
 * would have recorded.
 *
 * Record layout (little-endian):
 *   u32 magic 'PBFR', u32 frame, u32 payload bytes,
 *   payload: f64 × columns (statistics), then per body:
 *     u32 vertex count, u32 flags (1 topology, 2 uvs, 4 positions, 8 lines),
 *     [topology] u32 index count, u32 × index count,
 *     [lines] u32 index count, u32 × index count (line segments, with the topology),
 *     [uvs] f64 × 2 · vertex count,
 *     [positions] f64 × 3 · vertex count,
 *   then per rigid body of the world: f64 × 7, its pose (centre of mass xyz, orientation xyzw of
 *   the principal frame; the store's x and q)
 */
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { PbdError } from '../core/errors.js';

const MAGIC = 0x52464250; // 'PBFR' read as a little-endian u32
const TOPOLOGY = 1;
const UVS = 2;
const POSITIONS = 4;
const LINES = 8;

/** One body in one frame record. */
export interface BodyRecord {
  vertices: number;
  /** Present when the topology changed since the previous record (always in the first). */
  triangles: Uint32Array | null;
  /** Line segments (strands), written with the triangles when the body has any. */
  lines?: Uint32Array | null;
  uvs: Float64Array | null;
  positions: Float64Array | null;
}

/** One frame as read back: triangles are filled in from earlier records when unchanged. */
export interface FrameRecord {
  frame: number;
  stats: Float64Array;
  bodies: {
    vertices: number;
    triangles: Uint32Array;
    /** Line segments (empty when the body has none). */
    lines: Uint32Array;
    uvs: Float64Array | null;
    positions: Float64Array | null;
  }[];
  /** Rigid bodies' poses: 7 per body (x y z, qx qy qz qw). */
  rigid: Float64Array;
}

/** Appends frame records to a log file. */
export class FrameLogWriter {
  readonly path: string;
  /** Bytes in the log (the length a checkpoint records). */
  bytes: number;
  private fd: number;

  /** Opens a new log, or an existing one truncated to `keepBytes`. */
  constructor(path: string, keepBytes?: number) {
    this.path = path;
    if (keepBytes === undefined) {
      this.fd = openSync(path, 'w');
      this.bytes = 0;
    } else {
      this.fd = openSync(path, 'r+');
      const size = fstatSync(this.fd).size;
      if (size < keepBytes) {
        closeSync(this.fd);
        throw new PbdError(
          'bake/log-truncated',
          path,
          `holds ${size} bytes but the checkpoint needs ${keepBytes}`,
          'the checkpoint folder is damaged: start over with --restart',
        );
      }
      ftruncateSync(this.fd, keepBytes);
      this.bytes = keepBytes;
    }
  }

  append(frame: number, stats: ArrayLike<number>, bodies: BodyRecord[], rigid?: ArrayLike<number>): void {
    let size = 8 * stats.length + 8 * (rigid?.length ?? 0);
    for (const b of bodies) {
      size += 8;
      if (b.triangles) size += 4 + 4 * b.triangles.length;
      if (b.triangles && b.lines && b.lines.length > 0) size += 4 + 4 * b.lines.length;
      if (b.uvs) size += 16 * b.vertices;
      if (b.positions) size += 24 * b.vertices;
    }
    const buf = Buffer.alloc(12 + size);
    let o = 0;
    o = buf.writeUInt32LE(MAGIC, o);
    o = buf.writeUInt32LE(frame, o);
    o = buf.writeUInt32LE(size, o);
    for (let k = 0; k < stats.length; k++) o = buf.writeDoubleLE(stats[k], o);
    for (const b of bodies) {
      const lines = b.triangles && b.lines && b.lines.length > 0 ? b.lines : null;
      const flags =
        (b.triangles ? TOPOLOGY : 0) |
        (b.uvs ? UVS : 0) |
        (b.positions ? POSITIONS : 0) |
        (lines ? LINES : 0);
      o = buf.writeUInt32LE(b.vertices, o);
      o = buf.writeUInt32LE(flags, o);
      if (b.triangles) {
        o = writeCounted(buf, o, b.triangles);
      }
      if (lines) o = writeCounted(buf, o, lines);
      if (b.uvs) for (let k = 0; k < 2 * b.vertices; k++) o = buf.writeDoubleLE(b.uvs[k], o);
      if (b.positions) for (let k = 0; k < 3 * b.vertices; k++) o = buf.writeDoubleLE(b.positions[k], o);
    }
    if (rigid) for (let k = 0; k < rigid.length; k++) o = buf.writeDoubleLE(rigid[k], o);
    let w = 0;
    while (w < buf.length) w += writeSync(this.fd, buf, w, buf.length - w, this.bytes + w);
    this.bytes += buf.length;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/** A list of u32 (triangle or segment indices) at byte o: its length, then its values; returns the end. */
function writeCounted(buf: Buffer, o: number, a: ArrayLike<number>): number {
  o = buf.writeUInt32LE(a.length, o);
  for (let k = 0; k < a.length; k++) o = buf.writeUInt32LE(a[k], o);
  return o;
}

/** The list writeCounted wrote at byte o (it ends at o + 4 + 4 × its length). */
function readCounted(data: Buffer, o: number): Uint32Array {
  const a = new Uint32Array(data.readUInt32LE(o));
  for (let k = 0; k < a.length; k++) a[k] = data.readUInt32LE(o + 4 + 4 * k);
  return a;
}

/**
 * Reads the first `bytes` bytes of a log (all of it by default): one record
 * per frame, with each body's triangles carried over from the last record
 * that changed them (the same Uint32Array object while they do not change).
 */
export function readFrameLog(
  path: string,
  columns: number,
  bodies: number,
  bytes?: number,
  rigids = 0,
): FrameRecord[] {
  const fd = openSync(path, 'r');
  try {
    const size = bytes ?? fstatSync(fd).size;
    const data = Buffer.alloc(size);
    let r = 0;
    while (r < size) {
      const n = readSync(fd, data, r, size - r, r);
      if (n === 0) break;
      r += n;
    }
    const corrupt = (at: number, what: string) =>
      new PbdError('bake/log-corrupt', `${path} at byte ${at}`, what, 'start over with --restart');
    if (r < size) throw corrupt(r, 'ends early');
    const out: FrameRecord[] = [];
    const tris: (Uint32Array | null)[] = new Array(bodies).fill(null);
    const segs: Uint32Array[] = new Array(bodies).fill(new Uint32Array(0));
    const uvs: (Float64Array | null)[] = new Array(bodies).fill(null);
    let o = 0;
    while (o < size) {
      if (o + 12 > size || data.readUInt32LE(o) !== MAGIC) throw corrupt(o, 'has no frame record here');
      const frame = data.readUInt32LE(o + 4);
      const end = o + 12 + data.readUInt32LE(o + 8);
      if (end > size) throw corrupt(o, `frame ${frame} is cut short`);
      o += 12;
      const stats = new Float64Array(columns);
      for (let k = 0; k < columns; k++, o += 8) stats[k] = data.readDoubleLE(o);
      const rec: FrameRecord = { frame, stats, bodies: [], rigid: new Float64Array(7 * rigids) };
      for (let b = 0; b < bodies; b++) {
        const vertices = data.readUInt32LE(o);
        const flags = data.readUInt32LE(o + 4);
        o += 8;
        if (flags & TOPOLOGY) {
          const t = readCounted(data, o);
          o += 4 + 4 * t.length;
          tris[b] = t;
          if (!(flags & UVS)) uvs[b] = null;
          segs[b] = new Uint32Array(0);
        }
        if (flags & LINES) {
          segs[b] = readCounted(data, o);
          o += 4 + 4 * segs[b].length;
        }
        if (flags & UVS) {
          const u = new Float64Array(2 * vertices);
          for (let k = 0; k < u.length; k++, o += 8) u[k] = data.readDoubleLE(o);
          uvs[b] = u;
        }
        let positions: Float64Array | null = null;
        if (flags & POSITIONS) {
          positions = new Float64Array(3 * vertices);
          for (let k = 0; k < positions.length; k++, o += 8) positions[k] = data.readDoubleLE(o);
        }
        const t = tris[b];
        if (!t) throw corrupt(o, `body ${b} has no triangles before frame ${frame}`);
        rec.bodies.push({ vertices, triangles: t, lines: segs[b], uvs: uvs[b], positions });
      }
      for (let k = 0; k < 7 * rigids && o < end; k++, o += 8) rec.rigid[k] = data.readDoubleLE(o);
      if (o !== end) throw corrupt(o, `frame ${frame} has ${end - o} unexplained bytes`);
      out.push(rec);
    }
    return out;
  } finally {
    closeSync(fd);
  }
}
