/**
 * The numbered slots of the pool's parameter blocks and of the WebAssembly modules' address
 * tables, each table written once here and printed as named constants:
 *
 * - NARROW: the address table of the surface narrow phase's module, printed twice from one list,
 *   for TypeScript (src/collision/narrow-slots.generated.ts, which WasmNarrow in
 *   surface-narrow-wasm.ts fills) and for AssemblyScript (wasm/narrow-slots.generated.ts, which
 *   bind in wasm/narrow.ts reads), so that the two sides of the table cannot disagree;
 * - FLUID_ROWS: the Float64 slots of the fluid pool's parameter block `par`
 *   (src/fluids/row-slots.generated.ts): row-tasks.ts's passes, pair-blocks.ts's pair passes
 *   (34 … 46), the walls', the reordering's and the chains';
 * - STRANDS: the strand pool's `par` (the substep's numbers) and `lay` (the kernel memory's byte
 *   addresses) (src/strands/strand-slots.generated.ts, read by strand-threads.ts);
 * - BROAD (below, emitBroadTable): the broad phase module's address table, as TypeScript lists of
 *   field names and as the module's globals with their loads.
 *
 * Before (session 17) each file wrote its list by hand as `const A = 0, B = 1, …` (issue 14's
 * pairs among surface-narrow-wasm.ts, wasm/narrow.ts, pair-blocks.ts, row-tasks.ts and
 * strand-threads.ts, all alike in shape), and the narrow table's two sides agreed only by hand.
 *
 * A table line reads `NAME` (the slot after the previous one; 0 for the first) or `NAME n` (slot n,
 * never below the next free one), optionally followed by `: doc` (the doc comment of that slot).
 * A `#` line starts a new declaration; its text is the declaration's doc comment. A `---` line
 * starts another block of the same module (its numbers from 0 again).
 */

/** One table: the modules printed (TypeScript, and AssemblyScript where the module reads it), its lines. */
interface SlotTable {
  name: string;
  ts: string;
  as?: string;
  doc: string;
  table: string;
}

const NARROW: SlotTable = {
  name: 'NARROW',
  ts: 'src/collision/narrow-slots.generated.ts',
  as: 'wasm/narrow-slots.generated.ts',
  doc: "The surface narrow phase module's address table (i32 slots: byte addresses of the arrays the scans read and write, 003 §4.3), filled by WasmNarrow (surface-narrow-wasm.ts) and read by bind (wasm/narrow.ts).",
  table: `
# The topology arrays, in the order of surface-narrow-wasm.ts's TOPO.
T_TRI
T_EDGE
T_VERTEX
T_VS
T_TS
T_ES
# The per-vertex and per-edge arrays of the scan, its candidates and its hits.
T_HR
T_THICK
T_LABEL
T_SHARP
T_W
T_X
T_P
T_SV
T_MOTION
T_VT
T_VTD
T_EE
T_EED
T_RECHECK
T_VTHITS
T_EEHITS
T_SCALARS: f64 scalars: marginFactor, meanEdge, tangled (1/0), rescan (1/0).
T_SLOTS: Slots in the table.
`,
};

const FLUID_ROWS: SlotTable = {
  name: 'FLUID_ROWS',
  ts: 'src/fluids/row-slots.generated.ts',
  doc: "The Float64 slots of the fluid pool's parameter block `par` (FluidRowBlocks, row-blocks.ts; read by the blocks of row-tasks.ts and pair-blocks.ts on any thread).",
  table: `
# The pass and its numbers (row-tasks.ts, PBF: 001 §3–§5).
PASS
PHASE
COLOURS
SIZE
N
OFF
ALL_INSIDE
H
WU
MF
WCOEF
GCOEF
NCORR
QREST3
INVQD3
CORRSCALE
CW
VORT
SELF
INVRHO0
UNILATERAL
EPS
FULL
HAS_COUNTS
K_VORT
WASM_ON: 1: the pair pass runs in WebAssembly, at the byte addresses below.
AT_SORTED
AT_START
AT_NBR
AT_LIVE
AT_LIVESTART
AT_ACC
AT_POST
AT_GBUF
# The pair passes' numbers (pair-blocks.ts): block size, slots, grid, reach, the byte addresses.
B_SIZE
B_N
B_NX
B_NY
B_NZ
B_REACH
B_R2
B_POS
B_CELLSTART
B_START
B_NBR
B_SCRATCH
B_RANGES
# A fused pair pass's epoch (FluidRowBlocks.run: PHASE −1, the blocks marking themselves done with it).
FUSED_EPOCH
# The wall passes with the slot passes: 1 when there are wall records; their numbers.
WALLS
W_D
W_RHO
W_GRAD
W_RHO0
# The reordering of the range by cell on the pool (FluidRowBlocks.reorder): rows per block, slots, fluid offset.
R_SIZE
R_N
R_OFF
# 1: INIT_RECORDS also compares each block's p with the positions of the search (RowArrays.searchP).
SAME
# 1: the reordering's PUT leaves the grid's order (RowArrays.order) the identity (FluidRowBlocks.reorder).
R_IDENTITY
# A chain of passes run as one job (FluidRowBlocks.chain): where its table starts in RowArrays.fused.
CHAIN_AT
# 1: the λ and Δp passes copy ρ and λ to RowArrays.rho and lambda (the substep's last iteration: only its are read).
KEEP
# Slots in the block.
PAR_SLOTS
`,
};

const STRANDS: SlotTable = {
  name: 'STRANDS',
  ts: 'src/strands/strand-slots.generated.ts',
  doc: "The strand pool's shared numbers (StrandPool, strand-threads.ts): the Float64 block `par` and the Int32 block `lay`.",
  table: `
# Slots of \`par\`: the block pass's epoch, then the substep's numbers (fused-pass.ts runKernels).
P_EPOCH
P_H
P_G
P_FD 5
P_VMAX
P_INVH
P_REACH
P_GEN
P_K0
P_STAGE: 1: every block takes the staging list (tests: the path of a block whose place is not known yet).
P_CLEAR: 1: each block puts its particles' contactOf back to −1 first (the list's clear, skipped by the caller).
P_MOTION: 1: every root follows one motion, whose rotation (x, y, z, w), centre and translation are at P_Q, P_C and P_T: each block computes its roots' targets (rootTargets' operations).
P_Q 16
P_C 20
P_T 23
P_SETS 32: Per FTL set f: DFTL's damping / h at P_SETS + 2f, the stretch limit after it.
---
# Slots of \`lay\`: byte addresses in the memory (strand-kernel.ts).
L_X
L_P
L_V
L_W
L_A
L_F
L_TA
L_CELL
L_COUNTS
L_CORR
L_CSTRIDE
L_HELD
L_TARGET
L_HELDN
L_ASTRIDE
L_THREADS
L_ENTRY
L_ANCHOR
L_SETS: Per FTL set f: its start's address at L_SETS + 2f, its rest's after it.
`,
};

export const SLOT_TABLES: readonly SlotTable[] = [NARROW, FLUID_ROWS, STRANDS];

/** One slot: its name, number and doc ('' for none). */
interface Slot {
  name: string;
  at: number;
  doc: string;
}

/** The table's declarations: each a doc and its slots, numbered. */
function parseSlots(t: SlotTable): { doc: string; slots: Slot[] }[] {
  const decls: { doc: string; slots: Slot[] }[] = [];
  let next = 0;
  for (const raw of t.table.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line === '---') {
      next = 0;
      continue;
    }
    if (line.startsWith('#')) {
      decls.push({ doc: line.slice(1).trim(), slots: [] });
      continue;
    }
    const m = /^([A-Z][A-Z0-9_]*)(?:\s+(\d+))?(?::\s*(.*))?$/.exec(line);
    if (!m) throw new Error(`emit-slots: cannot read the ${t.name} line "${line}"`);
    const at = m[2] === undefined ? next : Number(m[2]);
    if (at < next)
      throw new Error(`emit-slots: ${t.name}'s ${m[1]} (${at}) is below the next free slot ${next}`);
    if (decls.length === 0) decls.push({ doc: '', slots: [] });
    decls[decls.length - 1].slots.push({ name: m[1], at, doc: m[3] ?? '' });
    next = at + 1;
  }
  return decls;
}

/** The module of one table (TypeScript and AssemblyScript read the same text). */
function emitSlotModule(t: SlotTable, banner: string): string {
  const out = [
    banner,
    `// The table is written once in scripts/kernels/emit-slots.ts (${t.name}).`,
    '',
    `// ${t.doc}`,
    '',
  ];
  for (const d of parseSlots(t)) {
    if (d.doc) out.push(`/** ${d.doc} */`);
    d.slots.forEach((s, i) => {
      const head = i === 0 ? 'export const ' : '  ';
      const tail = i === d.slots.length - 1 ? ';' : ',';
      if (s.doc) out.push(`${i === 0 ? '' : '  '}/** ${s.doc} */`);
      out.push(`${head}${s.name} = ${s.at}${tail}`);
    });
    out.push('');
  }
  return out.join('\n');
}

/** Every table's modules: [path, source before formatting]. */
export function emitSlots(banner: (from: string) => string): [string, string][] {
  const b = banner('scripts/kernels/emit-slots.ts');
  return SLOT_TABLES.flatMap((t): [string, string][] => {
    const code = emitSlotModule(t, b);
    return t.as
      ? [
          [t.ts, code],
          [t.as, code],
        ]
      : [[t.ts, code]];
  });
}

/**
 * The broad phase module's address table (surface-broad-wasm.ts BroadWasmArrays writes it, 003 §4.2's
 * candidate tests read it): per slot the array's name on the TypeScript side and the module's global.
 * Printed as the TypeScript lists ARRAYS (BroadArrays' fields), TREE_ARRAYS (BvhNodes' fields, then
 * the tree's parents and leaves) and GROUP_SLOTS, in src/collision/broad-slots.generated.ts, and as
 * the module's globals with `loadTable` (one u32 load per slot, in this order) in
 * wasm/broad-table.generated.ts, which wasm/surfaces.ts's setArrays calls.
 */
const BROAD = `
# ARRAYS
tri tri
edge edge
vertex vertex
vertexSurface vertexSurface
triSurface triSurface
edgeSurface edgeSurface
ownVStart ownVStart
ownV ownV
ownEStart ownEStart
ownE ownE
halfReach halfReach
thickness thickness
pairOn pairOn
snap snap
delta delta
vBox vBox
tBox tBox
tSphere tSphere
eBox eBox
eHalf eHalf
sharp sharp
group group
mask mask
vDirty vDirty
tDirty tDirty
eDirty eDirty
# TREE_ARRAYS
box nBox
right nRight
start nStart
count nCount
items nItems
parent nParent
leafOf nLeafOf
# GROUPS
dirty dirtyList
ends dirtyEnds
`;

/** The broad table's two modules: [TypeScript path, source], [AssemblyScript path, source]. */
export function emitBroadTable(banner: (from: string) => string): [string, string][] {
  const groups = new Map<string, [string, string][]>();
  let at: [string, string][] = [];
  for (const raw of BROAD.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#')) {
      at = [];
      groups.set(line.slice(1).trim(), at);
      continue;
    }
    const [ts, as] = line.split(' ');
    at.push([ts, as]);
  }
  const all = [...groups.values()].flat();
  const list = (g: string): string => `[${(groups.get(g) ?? []).map(([n]) => `'${n}'`).join(', ')}] as const`;
  const b = banner('scripts/kernels/emit-slots.ts');
  const head = `${b}\n// The table is written once in scripts/kernels/emit-slots.ts (BROAD).\n`;
  const ts = [
    head,
    "/** The BroadArrays the candidate tests read, in the order of the module's address table. */",
    `export const ARRAYS = ${list('ARRAYS')};`,
    "/** The triangle tree's node arrays (BvhNodes), after ARRAYS in the address table, then its parents and each item's leaf. */",
    `export const TREE_ARRAYS = ${list('TREE_ARRAYS')};`,
    "/** Then an incremental update's dirty triangles and the ends of their groups. */",
    `export const GROUP_SLOTS = ${groups.get('GROUPS')?.length ?? 0};`,
    '',
  ].join('\n');
  const as = [
    head,
    "// the byte addresses of the broad phase's arrays in the memory, one per slot of the address table",
    `export let ${all.map(([, g]) => `${g}: usize = 0`).join(',\n  ')};`,
    '',
    '/** Reads the address table at `table` (u32 slots, in the order of ARRAYS, TREE_ARRAYS, the groups). */',
    '@inline export function loadTable(table: usize): void {',
    ...all.map(([, g], i) => `  ${g} = load<u32>(${i === 0 ? 'table' : `table + ${4 * i}`});`),
    '}',
    '',
  ].join('\n');
  return [
    ['src/collision/broad-slots.generated.ts', ts],
    ['wasm/broad-table.generated.ts', as],
  ];
}
