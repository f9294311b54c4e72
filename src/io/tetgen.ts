import { PbdError } from '../core/errors.js';
import type { TetMesh } from '../softbody/tet-mesh.js';

interface NumberLine {
  /** 1-based line number. */
  line: number;
  values: number[];
  /** 1-based column of each value. */
  cols: number[];
}

/** Splits a TetGen file into lines of numbers, dropping comments (#) and blank lines; keeps line and column numbers. */
function numberLines(text: string, file: string): NumberLine[] {
  const out: NumberLine[] = [];
  const lines = text.split(/\r?\n/);
  const token = /[^\s#]+/g;
  for (let k = 0; k < lines.length; k++) {
    const raw = lines[k];
    const hash = raw.indexOf('#');
    const s = hash >= 0 ? raw.slice(0, hash) : raw;
    const values: number[] = [];
    const cols: number[] = [];
    token.lastIndex = 0;
    for (let m = token.exec(s); m; m = token.exec(s)) {
      const v = Number(m[0]);
      if (!Number.isFinite(v)) {
        throw new PbdError(
          'tetgen/syntax',
          `${file}:${k + 1}:${m.index + 1}`,
          `"${m[0].slice(0, 40)}" is not a number (line "${raw.trim().slice(0, 80)}")`,
        );
      }
      values.push(v);
      cols.push(m.index + 1);
    }
    if (values.length > 0) out.push({ line: k + 1, values, cols });
  }
  return out;
}

/** `file:line:column` of value k of a line (the line's end when it has fewer values). */
function at(file: string, l: NumberLine, k: number): string {
  const col = k < l.cols.length ? l.cols[k] : (l.cols[l.cols.length - 1] ?? 0) + 1;
  return `${file}:${l.line}:${col}`;
}

/** The value lines of a TetGen file, refusing one without a header line (tetgen/empty; `usage` says what it starts with). */
function headedLines(text: string, file: string, usage: string): NumberLine[] {
  const lines = numberLines(text, file);
  if (lines.length === 0) throw new PbdError('tetgen/empty', file, 'has no header line', usage);
  return lines;
}

/**
 * Checks the count a header declares (its first value): a positive integer
 * (tetgen/count), with at least that many lines after the header
 * (tetgen/truncated). `noun` names what is counted (point, tet).
 */
function checkCount(lines: NumberLine[], file: string, noun: string): void {
  const n = lines[0].values[0];
  if (!(Number.isInteger(n) && n > 0))
    throw new PbdError('tetgen/count', at(file, lines[0], 0), `${noun} count ${n} is not a positive integer`);
  if (lines.length - 1 < n)
    throw new PbdError(
      'tetgen/truncated',
      at(file, lines[0], 0),
      `declares ${n} ${noun}s but lists ${lines.length - 1}`,
      'the file is incomplete',
    );
}

/**
 * Reads a TetGen mesh: the .node file (`<#points> 3 <#attributes> <#markers>`,
 * then `<index> x y z …`) and the .ele file (`<#tets> <4|10> <#attributes>`,
 * then `<index> n0 n1 n2 n3 …`; of 10-node tets the four corners are used).
 * Indices may start at 0 or 1, as the first point says. Errors name the file,
 * line and column.
 */
export function parseTetGen(
  nodeText: string,
  eleText: string,
  nodeFile = 'mesh.node',
  eleFile = 'mesh.ele',
): TetMesh {
  const nodes = headedLines(
    nodeText,
    nodeFile,
    'a .node file starts with "<#points> 3 <#attributes> <#markers>"',
  );
  const [np, dim, nattr = 0, nmark = 0] = nodes[0].values;
  if (dim !== 3)
    throw new PbdError('tetgen/dimension', at(nodeFile, nodes[0], 1), `dimension is ${dim}, expected 3`);
  checkCount(nodes, nodeFile, 'point');
  const positions = new Float64Array(3 * np);
  const base = nodes[1].values[0];
  if (base !== 0 && base !== 1)
    throw new PbdError(
      'tetgen/index-base',
      at(nodeFile, nodes[1], 0),
      `first point index is ${base}, expected 0 or 1`,
    );
  for (let i = 0; i < np; i++) {
    const l = nodes[1 + i];
    const values = l.values;
    if (values.length < 4 + nattr + nmark) {
      throw new PbdError(
        'tetgen/syntax',
        at(nodeFile, l, values.length),
        `a point needs an index, three coordinates, ${nattr} attributes and ${nmark} markers`,
      );
    }
    if (values[0] !== i + base) {
      throw new PbdError(
        'tetgen/order',
        at(nodeFile, l, 0),
        `point index ${values[0]} out of order (expected ${i + base})`,
        'points must be listed in index order',
      );
    }
    positions[3 * i] = values[1];
    positions[3 * i + 1] = values[2];
    positions[3 * i + 2] = values[3];
  }
  const eles = headedLines(eleText, eleFile, 'an .ele file starts with "<#tets> 4 <#attributes>"');
  const [nt, per] = eles[0].values;
  if (per !== 4 && per !== 10)
    throw new PbdError(
      'tetgen/nodes-per-tet',
      at(eleFile, eles[0], 1),
      `${per} nodes per tet; expected 4 or 10`,
    );
  checkCount(eles, eleFile, 'tet');
  const tets = new Uint32Array(4 * nt);
  for (let t = 0; t < nt; t++) {
    const l = eles[1 + t];
    const values = l.values;
    if (values.length < 1 + per)
      throw new PbdError(
        'tetgen/syntax',
        at(eleFile, l, values.length),
        `a tet needs an index and ${per} nodes`,
      );
    for (let k = 0; k < 4; k++) {
      const v = values[1 + k] - base;
      if (!(Number.isInteger(v) && v >= 0 && v < np)) {
        throw new PbdError(
          'tetgen/bad-index',
          at(eleFile, l, 1 + k),
          `tet ${t} refers to point ${values[1 + k]}, but the points are ${base}…${np - 1 + base}`,
          'the .ele file does not belong to this .node file, or its index base differs',
        );
      }
      tets[4 * t + k] = v;
    }
  }
  return { positions, tets };
}

/** Writes a tet mesh as TetGen .node and .ele text (0-based indices). */
export function formatTetGen(mesh: TetMesh): { node: string; ele: string } {
  const nv = mesh.positions.length / 3;
  const nt = mesh.tets.length / 4;
  const node: string[] = ['# written by pbdkit', `${nv} 3 0 0`];
  for (let i = 0; i < nv; i++)
    node.push(`${i} ${mesh.positions[3 * i]} ${mesh.positions[3 * i + 1]} ${mesh.positions[3 * i + 2]}`);
  const ele: string[] = ['# written by pbdkit', `${nt} 4 0`];
  for (let t = 0; t < nt; t++)
    ele.push(
      `${t} ${mesh.tets[4 * t]} ${mesh.tets[4 * t + 1]} ${mesh.tets[4 * t + 2]} ${mesh.tets[4 * t + 3]}`,
    );
  return { node: `${node.join('\n')}\n`, ele: `${ele.join('\n')}\n` };
}
