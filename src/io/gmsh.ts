import { PbdError } from '../core/errors.js';
import type { TetMesh } from '../softbody/tet-mesh.js';

/** Gmsh element types that are tetrahedra: 4 = 4-node, 11 = 10-node (corners first). */
const TET_TYPES: Record<number, number> = { 4: 4, 11: 10 };
/** Nodes per element type, for skipping the other elements in v2 files. */
const NODES_PER_TYPE: Record<number, number> = {
  1: 2,
  2: 3,
  3: 4,
  4: 4,
  5: 8,
  6: 6,
  7: 5,
  8: 3,
  9: 6,
  10: 9,
  11: 10,
  15: 1,
};

class Reader {
  private k = 0;
  readonly lines: string[];
  constructor(
    text: string,
    readonly file: string,
  ) {
    this.lines = text.split(/\r?\n/);
  }
  get line(): number {
    return this.k;
  }
  /** `file:line:column` of the line read last (column 1: its start, unless given). */
  at(column = 1): string {
    return `${this.file}:${this.k}:${column}`;
  }
  done(): boolean {
    while (this.k < this.lines.length && this.lines[this.k].trim() === '') this.k++;
    return this.k >= this.lines.length;
  }
  next(): string {
    if (this.done())
      throw new PbdError(
        'gmsh/truncated',
        `${this.file}:${this.lines.length}:1`,
        'ends unexpectedly',
        'the file is incomplete',
      );
    return this.lines[this.k++].trim();
  }
  numbers(count?: number): number[] {
    const s = this.next();
    const v = s.split(/\s+/).map(Number);
    const bad = v.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0 || (count !== undefined && v.length < count)) {
      // the column of the first bad number, or the end of a short line
      const raw = this.lines[this.k - 1];
      let col = raw.trimEnd().length + 1;
      const token = /\S+/g;
      for (let m = token.exec(raw), i = 0; m && bad >= 0; m = token.exec(raw), i++) {
        if (i === bad) {
          col = m.index + 1;
          break;
        }
      }
      throw new PbdError(
        'gmsh/syntax',
        this.at(col),
        `expected ${count ?? 'some'} numbers, got "${s.slice(0, 60)}"`,
      );
    }
    return v;
  }
  expect(tag: string): void {
    const s = this.next();
    if (s !== tag) throw new PbdError('gmsh/syntax', this.at(), `expected ${tag}, got "${s.slice(0, 40)}"`);
  }
}

/** Refuses a $Nodes or $Elements section (`section`) met before $MeshFormat gave the version. */
function formatRead(r: Reader, version: number, section: string): void {
  if (version === 0) throw new PbdError('gmsh/syntax', r.at(), `${section} before $MeshFormat`);
}

/**
 * Reads the tetrahedra of a Gmsh mesh in ASCII format 2 (2.x) or 4 (4.0,
 * 4.1). Other elements (lines, triangles, points) are ignored; nodes that no
 * tet uses are dropped. Node tags may be any positive integers. Errors name
 * the file, line and column.
 */
export function parseGmsh(text: string, file = 'mesh.msh'): TetMesh {
  const r = new Reader(text, file);
  let version = 0;
  const nodeTag = new Map<number, number>();
  const coords: number[] = [];
  /** Records node `tag` at (x, y, z), in file order. */
  const addNode = (tag: number, x: number, y: number, z: number): void => {
    nodeTag.set(tag, coords.length / 3);
    coords.push(x, y, z);
  };
  /** Reads `n` node lines "tag x y z" (2.x, and 4.0's blocks). */
  const taggedNodes = (n: number): void => {
    for (let i = 0; i < n; i++) {
      const [tag, x, y, z] = r.numbers(4);
      addNode(tag, x, y, z);
    }
  };
  const tetTags: number[] = [];
  const tetLine: number[] = [];
  while (!r.done()) {
    const section = r.next();
    if (section === '$MeshFormat') {
      const [v, binary] = r.numbers(3);
      version = v;
      if (binary !== 0)
        throw new PbdError(
          'gmsh/binary',
          r.at(),
          'is a binary .msh file',
          'export it as ASCII (gmsh -save_all -format msh2 or msh4 with Binary=0)',
        );
      if (!(Math.floor(v) === 2 || Math.floor(v) === 4)) {
        throw new PbdError('gmsh/version', r.at(), `format ${v} is not supported`, 'use format 2.2 or 4.1');
      }
      r.expect('$EndMeshFormat');
    } else if (section === '$Nodes') {
      formatRead(r, version, section);
      if (version < 3) {
        taggedNodes(r.numbers(1)[0]);
      } else {
        const head = r.numbers(2);
        const blocks = head[0];
        for (let b = 0; b < blocks; b++) {
          const bh = r.numbers(4);
          // 4.1: entityDim entityTag parametric n; 4.0: entityTag entityDim parametric n
          // (parametric coordinates, if any, trail the xyz and are ignored)
          const n = bh[3];
          if (version >= 4.1) {
            const tags: number[] = [];
            for (let i = 0; i < n; i++) tags.push(r.numbers(1)[0]);
            for (let i = 0; i < n; i++) {
              const [x, y, z] = r.numbers(3);
              addNode(tags[i], x, y, z);
            }
          } else {
            taggedNodes(n);
          }
        }
      }
      r.expect('$EndNodes');
    } else if (section === '$Elements') {
      formatRead(r, version, section);
      if (version < 3) {
        const [n] = r.numbers(1);
        for (let i = 0; i < n; i++) {
          const v = r.numbers(3);
          const type = v[1];
          const ntags = v[2];
          const per = NODES_PER_TYPE[type];
          if (per === undefined)
            throw new PbdError('gmsh/element-type', r.at(), `unknown element type ${type}`);
          if (v.length < 3 + ntags + per)
            throw new PbdError('gmsh/syntax', r.at(), `element needs ${per} nodes`);
          if (TET_TYPES[type]) {
            tetTags.push(v[3 + ntags], v[4 + ntags], v[5 + ntags], v[6 + ntags]);
            tetLine.push(r.line);
          }
        }
      } else {
        const head = r.numbers(2);
        for (let b = 0; b < head[0]; b++) {
          const bh = r.numbers(4);
          const type = bh[2];
          const n = bh[3];
          const per = TET_TYPES[type];
          for (let i = 0; i < n; i++) {
            const v = r.numbers(1);
            if (per) {
              if (v.length < 1 + per)
                throw new PbdError('gmsh/syntax', r.at(), `a tetrahedron needs ${per} nodes`);
              tetTags.push(v[1], v[2], v[3], v[4]);
              tetLine.push(r.line);
            }
          }
        }
      }
      r.expect('$EndElements');
    } else if (section.startsWith('$')) {
      // skip unknown sections ($Entities, $PhysicalNames, $NodeData …)
      const end = `$End${section.slice(1)}`;
      while (r.next() !== end) {
        /* skip */
      }
    } else {
      throw new PbdError('gmsh/syntax', r.at(), `unexpected "${section.slice(0, 40)}" outside a section`);
    }
  }
  if (tetTags.length === 0) {
    throw new PbdError(
      'gmsh/no-tets',
      file,
      'contains no tetrahedra',
      'mesh the volume (gmsh -3) before exporting',
    );
  }
  // keep only the nodes tets use, in file order
  const nn = coords.length / 3;
  const local = new Int32Array(tetTags.length);
  const used = new Uint8Array(nn);
  for (let k = 0; k < tetTags.length; k++) {
    const src = nodeTag.get(tetTags[k]);
    if (src === undefined) {
      throw new PbdError(
        'gmsh/bad-index',
        `${file}:${tetLine[k >> 2]}:1`,
        `tetrahedron ${k >> 2} refers to node ${tetTags[k]}, which is not in $Nodes`,
        'the file is inconsistent; re-export it',
      );
    }
    local[k] = src;
    used[src] = 1;
  }
  const remap = new Int32Array(nn);
  const positions: number[] = [];
  for (let i = 0; i < nn; i++) {
    if (!used[i]) continue;
    remap[i] = positions.length / 3;
    positions.push(coords[3 * i], coords[3 * i + 1], coords[3 * i + 2]);
  }
  const tets = new Uint32Array(tetTags.length);
  for (let k = 0; k < tets.length; k++) tets[k] = remap[local[k]];
  return { positions: Float64Array.from(positions), tets };
}

/** Writes a tet mesh as an ASCII Gmsh file, format '2.2' or '4.1' (tags start at 1). */
export function formatGmsh(mesh: TetMesh, version: '2.2' | '4.1' = '4.1'): string {
  const nv = mesh.positions.length / 3;
  const nt = mesh.tets.length / 4;
  const x = mesh.positions,
    t = mesh.tets;
  const out: string[] = ['$MeshFormat', `${version} 0 8`, '$EndMeshFormat'];
  if (version === '2.2') {
    out.push('$Nodes', `${nv}`);
    for (let i = 0; i < nv; i++) out.push(`${i + 1} ${x[3 * i]} ${x[3 * i + 1]} ${x[3 * i + 2]}`);
    out.push('$EndNodes', '$Elements', `${nt}`);
    for (let e = 0; e < nt; e++)
      out.push(
        `${e + 1} 4 2 0 1 ${t[4 * e] + 1} ${t[4 * e + 1] + 1} ${t[4 * e + 2] + 1} ${t[4 * e + 3] + 1}`,
      );
    out.push('$EndElements');
  } else {
    out.push('$Nodes', `1 ${nv} 1 ${nv}`, `3 1 0 ${nv}`);
    for (let i = 0; i < nv; i++) out.push(`${i + 1}`);
    for (let i = 0; i < nv; i++) out.push(`${x[3 * i]} ${x[3 * i + 1]} ${x[3 * i + 2]}`);
    out.push('$EndNodes', '$Elements', `1 ${nt} 1 ${nt}`, `3 1 4 ${nt}`);
    for (let e = 0; e < nt; e++)
      out.push(`${e + 1} ${t[4 * e] + 1} ${t[4 * e + 1] + 1} ${t[4 * e + 2] + 1} ${t[4 * e + 3] + 1}`);
    out.push('$EndElements');
  }
  return `${out.join('\n')}\n`;
}
