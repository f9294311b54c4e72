import type { z } from 'zod';
import { PbdError } from '../../core/errors.js';
import { bunnyMesh, gridMesh, icosphere, placePositions, sackMesh } from '../../mesh/generators.js';
import type { TriangleMesh } from '../../mesh/triangle-mesh.js';
import { parseObj } from '../obj.js';
import type { meshSource, placement } from './common.js';

/** Builds the triangle mesh a scene names, placed in world space. */
export function resolveMesh(
  source: z.infer<typeof meshSource>,
  place: z.infer<typeof placement> | undefined,
  readFile: (path: string) => string,
  where: string,
): TriangleMesh {
  let mesh: TriangleMesh;
  if ('grid' in source) mesh = gridMesh(source.grid, `${where}.grid`);
  else if ('icosphere' in source) mesh = icosphere(source.icosphere.radius, source.icosphere.subdivisions);
  else if ('bunny' in source) mesh = bunnyMesh(source.bunny.height ?? 0.5);
  else if ('sack' in source)
    mesh = sackMesh(source.sack.radius, source.sack.height, source.sack.segments, source.sack.rings);
  else {
    let text: string;
    try {
      text = readFile(source.file);
    } catch (e) {
      throw new PbdError(
        'scene/missing-file',
        `${where}.file`,
        `cannot read '${source.file}': ${(e as Error).message}`,
        'paths are relative to the scene file',
      );
    }
    mesh = inFile(() => parseObj(text, source.file), `${where}.file`);
  }
  const positions = placePositions(mesh.positions, place);
  const triangles = new Uint32Array(mesh.triangles);
  // a mirroring scale flips the winding: restore outward orientation
  const s = place?.scale;
  if (Array.isArray(s) && s[0] * s[1] * s[2] < 0) {
    for (let t = 0; t < triangles.length; t += 3) {
      const k = triangles[t + 1];
      triangles[t + 1] = triangles[t + 2];
      triangles[t + 2] = k;
    }
  }
  return { positions, triangles, uvs: mesh.uvs };
}

/**
 * Runs a mesh file's reader; its errors (`file:line:column: …`) are located
 * at the scene field that named the file: `bodies[0].mesh.file (sail.obj:12:7)`.
 */
export function inFile<T>(read: () => T, field: string): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof PbdError) throw new PbdError(e.code, `${field} (${e.where})`, e.detail, e.hint);
    throw e;
  }
}

/** The files a mesh source reads (for loaders that must fetch assets first). */
export function meshFiles(source: z.infer<typeof meshSource> | object): string[] {
  return 'file' in source && typeof source.file === 'string' ? [source.file] : [];
}
