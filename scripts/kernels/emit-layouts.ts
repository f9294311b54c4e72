/**
 * The per-entry arrays of the rigid family's growable stores and of the collider contacts, declared
 * once per store in a small table and printed as a base class with the typed-array fields and their
 * `grow` (every array resized to `cap` entries, the `count` in use kept, stride values each):
 *
 * - ContactArrays (src/rigid/contact-arrays.generated.ts), which ContactStore (contact-store.ts)
 *   extends: the rigid contacts, one entry per contact point;
 * - JointArrays (src/rigid/joint-arrays.generated.ts), which RigidJoints (joints.ts) extends: one
 *   entry per joint;
 * - RigidAttachmentArrays (src/rigid/rigid-attachment-arrays.generated.ts), which RigidAttachments
 *   (rigid-attachments.ts) extends: one entry per particle–rigid attachment;
 * - ColliderPoseArrays (src/rigid/collider-pose-arrays.generated.ts), which ColliderPoses
 *   (collider-poses.ts) extends: one entry per world collider;
 * - ColliderContactArrays (src/collision/collider-contact-arrays.generated.ts), which
 *   ColliderContacts (src/collision/collider-contacts.ts) extends: one entry per particle–collider
 *   contact (session 19: the class had declared them and listed them again in its grow);
 * - SurfaceContactArrays (src/collision/surface-contact-arrays.generated.ts), which
 *   SurfaceContactList (src/collision/surface-contact-list.ts) extends: one entry per self-collision
 *   contact, with its `push` (session 20: the class had declared them, listed them again in its
 *   grow and a third time in its push);
 * - SegmentContactArrays (src/collision/segment-contact-arrays.generated.ts), which SegmentContacts
 *   (src/collision/segment-contacts.ts) extends, itself extending BodyPairContacts: one entry per
 *   segment–segment contact, with its `push` (session 20, likewise);
 * - RigidArrays (src/core/rigid-arrays.generated.ts), which RigidStore (src/core/rigid-store.ts)
 *   extends: one entry per rigid body, on SharedArrayBuffer when the store's memory is shared, with
 *   its checkpoint state (session 21: the store had listed its arrays in their declarations, its
 *   allocation, its state's type, its saveState and its loadState);
 * - ParticleContactArrays (src/collision/particle-contact-arrays.generated.ts), which
 *   ParticleContacts (src/collision/particle-contacts.ts) extends, itself extending
 *   BodyPairContacts: one entry per particle–particle contact, and the previous substep's list of
 *   the fields its friction anchors carry over (session 21: the class had declared them, listed
 *   them again in its grow and the carried ones a third time in its swap).
 *
 * Before (session 17) each store declared its arrays, then listed them again in its grow, and the
 * two stores' lists had the same shape (issue 14's pairs contact-store ~ joints, and with the
 * collider contacts' and the attachments' declarations). A table line reads
 * `names: Type` or `names: Type × stride` (one array per name, stride values per entry, 1 when
 * left out; a stride may name a constant of the table); the `#` lines before it are the doc
 * comment of its fields, `=` lines declare an exported constant with its doc. With `push`, the
 * class also gets `push(…)`, which appends one entry (grown to twice its capacity, at least 256,
 * when full) from one argument per value, in the table's order (`name0 … name(s−1)` for stride s),
 * except the fields whose line ends in `= 0`: push writes them zero (a multiplier's start).
 *
 * With `state`, the fields whose line ends in `saved` are what a checkpoint holds of the store: the
 * class gets the state's type (their arrays, and `count` first with `state.count`), `saveState`
 * (their first count entries, copied) and `loadSaved(s)`, which sets them from a state whose count
 * the store already holds. `saved?` marks a field that older checkpoints lack: the state's type has
 * it optional, and loadSaved sets such fields only when the state has all of them and returns
 * whether it did (the caller fills them otherwise). Session 21: the rigid store's and the rigid
 * contacts' save and load lists had been written out by hand beside their tables (issue 14's pair
 * rigid-store ~ contact-store).
 *
 * With `previous`, the fields whose line ends in `previous` have a second array each, `prevName`,
 * the list of the previous substep (prevCount entries): grow grows both lists, and
 * `swapPrevious()` makes the current list the previous one (the arrays change places) and empties
 * the current one.
 */

/** One store's table: the class printed, its doc, and the lines described above. */
interface Layout {
  file: string;
  className: string;
  doc: string;
  /** 'public': the capacity and grow are for other modules too (default: protected, the store's own). */
  access?: 'public';
  /** Print `push` (see above): one entry appended from its values. */
  push?: boolean;
  /** 'protected': the arrays and push too are the subclass's own (default: public). */
  members?: 'protected';
  /**
   * The class it extends, which then holds `count` (the printed class is abstract), and the import
   * lines that this needs.
   */
  base?: { name: string; imports: string[] };
  /**
   * The arrays are allocated where `this.shared` says (grownArray's shared flag): the printed class
   * is abstract and its subclass sets `shared` before it first grows.
   */
  shared?: boolean;
  /** Print `version`, which grow increases (the arrays were replaced: read them afresh). */
  version?: boolean;
  /** Print the checkpoint state of the `saved` fields (see above): its type's name and doc. */
  state?: { name: string; doc: string; count?: boolean };
  /** Print the previous substep's list of the `previous` fields (see above), with its doc. */
  previous?: string;
  /** The printed class's type parameters, passed on to its base (`<G extends ContactGroup>`). */
  typeParams?: string;
  table: string;
}

const CONTACTS: Layout = {
  file: 'src/rigid/contact-arrays.generated.ts',
  className: 'ContactArrays',
  doc: 'The per-contact arrays of the rigid contacts (ContactStore, contact-store.ts, extends this class).',
  table: `
# Body 1 (a store index) and body 2 (a store index, or −1 − k for collider k).
a, b: Int32Array saved
# Anchors in the frames of body 1 and 2 (3 each), the normal in its frame (3) and which frame (NF_*).
rA, rB: Float64Array × 3 saved
nL: Float64Array × 3 saved?
nf: Int8Array saved?
# Radii of the cores (sphere, capsule) on each side.
radA, radB: Float64Array
# Static and kinetic friction and restitution of the pair.
muS, muD, rest: Float64Array
# Normal and tangential multipliers of this substep, and the normal velocity before its projection.
lamN, lamT, vn0: Float64Array
# The last world normal, for anchors that meet (NF_CORES).
nW: Float64Array × 3
# Per contact, the first contact of its manifold (the contacts of one pair's patch are added together).
first: Int32Array saved?
# At a manifold's first contact: the normal impulse of its contacts in this substep times h (the
# projection's λ_n and the velocity pass's normal impulses), dynamic friction's budget (faceFriction).
lamNM: Float64Array
# Per contact between two bodies, the pair's relative pose when its manifold was built: body 2's
# centre in body 1's frame, R₁ᵀ (x₂ − x₁), and its orientation relative to body 1's, q₁⁻¹ q₂ (7 each;
# body 2 may be a collider). A manifold is kept while the pose stays near it (ContactStore.keep).
rel: Float64Array × 7 saved?
`,
  state: {
    name: 'ContactState',
    doc: 'What a checkpoint holds of the contacts (ContactStore.saveState); the last four are absent from older checkpoints.',
  },
};

const JOINTS: Layout = {
  file: 'src/rigid/joint-arrays.generated.ts',
  className: 'JointArrays',
  doc: 'The per-joint arrays of the rigid joints (RigidJoints, joints.ts, extends this class).',
  table: `
= SLOTS 5 Multipliers per joint: attachment, alignment, limit 1, limit 2, motor.
# The joint's type (FIXED … DISTANCE, joints.ts).
type: Int8Array
# Bodies (b = −1: the world) and whether the joint is on.
a, b: Int32Array
on: Uint8Array
# Anchors in the bodies' frames (the world's for b = −1), 3 each; joint frames in the bodies' frames, 4 each.
pA, pB: Float64Array × 3
qA, qB: Float64Array × 4
# Compliance of the attachment (m/N) and of the alignment (rad/(N m)).
compliance, angularCompliance: Float64Array
# Limits: hinge angle, prismatic offset, distance [min, max]; ball: swing in lo, twist [lo2, hi2].
hasLimit: Uint8Array
lo, hi: Float64Array
hasLimit2: Uint8Array
lo2, hi2: Float64Array
# Motor: mode, target (rad or m), speed (rad/s or m/s), compliance, largest force or torque.
motor: Int8Array
target, speed, motorCompliance, maxForce: Float64Array
# Bodies of a joint do not collide when 0.
collide: Uint8Array
# Multipliers (SLOTS per joint), reset every substep.
lambda: Float64Array × SLOTS
`,
};

const ATTACHMENTS: Layout = {
  file: 'src/rigid/rigid-attachment-arrays.generated.ts',
  className: 'RigidAttachmentArrays',
  doc: 'The per-entry arrays of the particle–rigid attachments (RigidAttachments, rigid-attachments.ts, extends this class).',
  table: `
# The particle (a store index) and the body (a rigid store index) of the entry.
particle, body: Int32Array
# The attachment point in the body frame (3 per entry).
local: Float64Array × 3
# Compliance α (m/N) and the multiplier of this substep.
compliance, lambda: Float64Array
`,
};

const COLLIDER_POSES: Layout = {
  file: 'src/rigid/collider-pose-arrays.generated.ts',
  className: 'ColliderPoseArrays',
  doc: "The per-collider arrays of the colliders' poses as the rigid contacts see them (ColliderPoses, collider-poses.ts, extends this class).",
  table: `
# Position and rotation now.
x: Float64Array × 3
q: Float64Array × 4
# The pose at the substep's start (x − h v, and q turned back by h ω).
xp: Float64Array × 3
qp: Float64Array × 4
# Linear and angular velocity.
v, w: Float64Array × 3
`,
};

const COLLIDER_CONTACTS: Layout = {
  file: 'src/collision/collider-contact-arrays.generated.ts',
  className: 'ColliderContactArrays',
  doc: "The per-contact arrays of the particles' collider contacts (ColliderContacts, collider-contacts.ts, extends this class; the generation loops of collider-contact-loops.generated.ts grow them).",
  access: 'public',
  table: `
# The contact's particle (a store index) and collider (an index into the world's colliders).
particle, collider: Int32Array
# The point q_c and the unit normal n_c of the plane constraint C(p) = (p − q_c) · n_c ≥ 0 (3 each).
q, n: Float64Array × 3
# Total normal correction applied this substep (m).
lambdaN: Float64Array
# Kinetic tangential correction applied this substep (m): with several iterations the kinetic
# corrections of the substep's projections together stay within μ times lambdaN.
lambdaT: Float64Array
# 1 once the contact has slid in this substep (its later projections are kinetic).
slid: Uint8Array
# The length (m) of the tangential motion the prediction brings over the substep, relative to the
# collider's surface, |(p − x − h v_c)_t| at generation: what static friction must cancel of the
# particle's own momentum (a push), which Coulomb's law bounds by μs times this substep's normal
# correction (see ColliderContacts's class comment).
incoming: Float64Array
# Normal velocity relative to the collider before the substep (m/s).
vn0: Float64Array
# The rigid body its collider follows (a RigidStore index), or −1.
rigid: Int32Array
# With a rigid body: the point q and the normal n in the body's frame (3 each).
anchor, normalLocal: Float64Array × 3
# 1 when its particle was moved out of a deep penetration on its own this substep.
deep: Uint8Array
# Its particle's friction anchor in world coordinates at the collider's pose of the substep.
anchorAt: Float64Array × 3
`,
};

const SEGMENT_CONTACTS: Layout = {
  file: 'src/collision/segment-contact-arrays.generated.ts',
  className: 'SegmentContactArrays',
  doc: 'The per-contact arrays of the segment–segment contacts (SegmentContacts, segment-contacts.ts, extends this class).',
  push: true,
  members: 'protected',
  base: {
    name: 'BodyPairContacts<ContactGroup>',
    imports: ["import { BodyPairContacts, type ContactGroup } from './contact-groups.js';"],
  },
  table: `
# The end particles of the two segments, (a, b) and (c, d).
ca, cb, cc, cd: Int32Array
# The unit normal at the substep's start, from segment (a, b) toward (c, d): the side the pair keeps (3 each).
nrm: Float64Array × 3
# The two radii's sum (m), and the pair's static and kinetic friction.
radiusSum, muS, muK: Float64Array
# The accumulated normal multiplier of the substep.
lambda: Float64Array = 0
`,
};

const SURFACE_CONTACTS: Layout = {
  file: 'src/collision/surface-contact-arrays.generated.ts',
  className: 'SurfaceContactArrays',
  doc: "The per-contact arrays of the self-collision contacts of one substep (SurfaceContactList, surface-contact-list.ts, extends this class; the narrow phase's hits push them).",
  push: true,
  table: `
# The contact's type (TYPE_VT, TYPE_EE) and flags (FLAG_*, surface-contact-list.ts).
type, flags: Uint8Array
# Four global particle indices per contact: VT (q, a, b, c), EE (a, b, c, d).
idx: Int32Array × 4
# The side s = ±1 the pair keeps and the thickness h (m) of C = s d − h ≥ 0.
side, thick: Float64Array
# Static and kinetic friction and restitution of the pair.
muS, muK, rest: Float64Array
# The accumulated multiplier λ of the substep (m).
lambda: Float64Array = 0
# The relative normal velocity at the start of the substep (m/s; restitution).
vn0: Float64Array
`,
};

const PARTICLE_CONTACTS: Layout = {
  file: 'src/collision/particle-contact-arrays.generated.ts',
  className: 'ParticleContactArrays',
  doc: 'The per-contact arrays of the particle–particle contacts (ParticleContacts, particle-contacts.ts, extends this class).',
  members: 'protected',
  typeParams: '<G extends ContactGroup>',
  base: {
    name: 'BodyPairContacts<G>',
    imports: ["import { BodyPairContacts, type ContactGroup } from './contact-groups.js';"],
  },
  previous:
    'The contacts of the previous substep: their anchors carry over to the same pairs (ParticleContacts.push).',
  table: `
# The pair (store indices).
pi, pj: Int32Array previous
# Static and kinetic friction and restitution of the pair.
muS, muK, rest: Float64Array
# The accumulated multiplier of the substep, and the normal velocity before it (restitution).
lambda, vn0: Float64Array
# The tangential relative motion the prediction brings over the substep (ColliderContacts.incoming, for the pair).
inc: Float64Array
# The friction anchor p_i − p_j (3), and the normal (1) and tangential (3) corrections of sticking since it was set.
anc: Float64Array × 3 previous
sN: Float64Array previous
sT: Float64Array × 3 previous
`,
};

const RIGIDS: Layout = {
  file: 'src/core/rigid-arrays.generated.ts',
  className: 'RigidArrays',
  doc: 'The per-body arrays of the rigid-body store (RigidStore, rigid-store.ts, extends this class).',
  access: 'public',
  shared: true,
  version: true,
  state: {
    name: 'RigidState',
    doc: 'What a checkpoint holds of the rigid-body store (RigidStore.saveState).',
    count: true,
  },
  table: `
# Position of the centre of mass (3 per body) and orientation (x, y, z, w; 4 per body): the pose.
x: Float64Array × 3 saved
q: Float64Array × 4 saved
# The pose at the start of the substep.
xPrev: Float64Array × 3
qPrev: Float64Array × 4
# Linear velocity (m/s) and angular velocity (rad/s, world frame), 3 per body.
v, omega: Float64Array × 3 saved
# Mass (kg) and inverse mass (0: never moved by forces or constraints).
mass, invMass: Float64Array saved
# Principal moments of inertia in the body frame (kg m²) and their inverses, 3 per body.
inertia, invInertia: Float64Array × 3 saved
# RIGID_NO_GRAVITY | RIGID_DISABLED.
flags: Int32Array saved
`,
};

export const LAYOUTS: readonly Layout[] = [
  CONTACTS,
  JOINTS,
  ATTACHMENTS,
  COLLIDER_POSES,
  COLLIDER_CONTACTS,
  SURFACE_CONTACTS,
  SEGMENT_CONTACTS,
  PARTICLE_CONTACTS,
  RIGIDS,
];

/**
 * One array of a table: its name, typed-array type, stride, the doc printed before it ('' for none),
 * whether push writes it zero instead of taking its values, and whether a checkpoint holds it
 * ('saved', or 'optional' where older checkpoints lack it; '' not).
 */
interface Field {
  name: string;
  type: string;
  stride: string;
  doc: string;
  zero: boolean;
  saved: '' | 'saved' | 'optional';
  previous: boolean;
}

/** The table's fields and constants ([name, value, doc]). */
function parseTable(table: string): { fields: Field[]; consts: [string, string, string][] } {
  const fields: Field[] = [];
  const consts: [string, string, string][] = [];
  let doc: string[] = [];
  for (const raw of table.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#')) {
      doc.push(line.slice(1).trim());
      continue;
    }
    if (line.startsWith('=')) {
      const [name, value, ...text] = line.slice(1).trim().split(' ');
      consts.push([name, value, text.join(' ')]);
      continue;
    }
    const m = /^([\w, ]+):\s*(\w+)(?:\s*×\s*(\w+))?(\s*= 0)?(\s+saved(\?)?)?(\s+previous)?$/.exec(line);
    if (!m) throw new Error(`emit-layouts: cannot read the table line "${line}"`);
    const names = m[1].split(',').map((n) => n.trim());
    const saved = m[6] ? 'optional' : m[5] ? 'saved' : '';
    names.forEach((name, i) => {
      const d = i === 0 ? doc.join(' ') : '';
      fields.push({ name, type: m[2], stride: m[3] ?? '1', doc: d, zero: !!m[4], saved, previous: !!m[7] });
    });
    doc = [];
  }
  return { fields, consts };
}

/** `s × n`, without the factor 1. */
const times = (s: string, n: string): string => (s === '1' ? n : `${s} * ${n}`);

/** The values of field f in push's arguments: its name, or name0 … name(s−1) for a numeric stride s > 1. */
function pushNames(f: Field): string[] {
  if (f.stride === '1') return [f.name];
  const s = Number(f.stride);
  if (!(s > 1)) throw new Error(`emit-layouts: push needs a number as the stride of ${f.name}`);
  return Array.from({ length: s }, (_, j) => `${f.name}${j}`);
}

/** `push`: one entry appended, its values in the table's order (the fields marked `= 0` zeroed). */
function emitPush(fields: Field[], members: string): string[] {
  const args = fields.filter((f) => !f.zero).flatMap(pushNames);
  return [
    '',
    '/** Appends one entry (the arrays grown when full); the values in the order of the fields. */',
    `${members}push(${args.map((a) => `${a}: number`).join(', ')}): void {`,
    'if (this.count === this.capacity) this.grow(Math.max(256, 2 * this.capacity));',
    'const k = this.count++;',
    ...fields.flatMap((f) =>
      pushNames(f).map((v, j) => {
        const at = f.stride === '1' ? 'k' : j === 0 ? `${f.stride} * k` : `${f.stride} * k + ${j}`;
        return `this.${f.name}[${at}] = ${f.zero ? '0' : v};`;
      }),
    ),
    '}',
  ];
}

/** A field's first n entries: `n`, or `s * n` for stride s. */
const entries = (f: Field, n: string): string => times(f.stride, n);

/**
 * The checkpoint state of the `saved` fields: its type, `saveState` (their first count entries,
 * copied) and `loadSaved` (see the header).
 */
function emitState(l: Layout, fields: Field[]): { type: string[]; methods: string[] } {
  const st = l.state;
  if (!st) return { type: [], methods: [] };
  const saved = fields.filter((f) => f.saved !== '');
  const always = saved.filter((f) => f.saved === 'saved');
  const optional = saved.filter((f) => f.saved === 'optional');
  const type = [
    `/** ${st.doc} */`,
    `export interface ${st.name} {`,
    ...(st.count ? ['count: number;'] : []),
    ...saved.map((f) => `${f.name}${f.saved === 'optional' ? '?' : ''}: ${f.type};`),
    '}',
    '',
  ];
  const set = (f: Field): string => `this.${f.name}.set(s.${f.name});`;
  const methods = [
    '',
    `/** What a checkpoint holds (${st.name}): the saved arrays' first count entries, copied. */`,
    `saveState(): ${st.name} {`,
    'const n = this.count;',
    'return {',
    ...(st.count ? ['count: n,'] : []),
    ...saved.map((f) => `${f.name}: this.${f.name}.slice(0, ${entries(f, 'n')}),`),
    '};',
    '}',
    '',
    optional.length > 0
      ? `/** Sets the saved arrays from s, whose count the store holds already; returns false, leaving ${optional.map((f) => f.name).join(', ')} as they are, where s is from a checkpoint without them. */`
      : '/** Sets the saved arrays from s, whose count the store holds already. */',
    `protected loadSaved(s: ${st.name}): ${optional.length > 0 ? 'boolean' : 'void'} {`,
    ...always.map(set),
    ...(optional.length > 0
      ? [
          `if (!(${optional.map((f) => `s.${f.name}`).join(' && ')})) return false;`,
          ...optional.map(set),
          'return true;',
        ]
      : []),
    '}',
  ];
  return { type, methods };
}

/** The previous list's array of field f. */
const prev = (f: Field): string => `prev${f.name[0].toUpperCase()}${f.name.slice(1)}`;

/**
 * The previous substep's list (see the header): its arrays and count, the lines of grow that grow
 * them, and `swapPrevious`.
 */
function emitPrevious(l: Layout, fields: Field[], members: string) {
  const carried = fields.filter((f) => f.previous);
  if (!l.previous) return { fields: [], grow: [], methods: [] };
  return {
    fields: [
      `/** ${l.previous} */`,
      ...carried.map((f) => `${members}${prev(f)} = new ${f.type}(0);`),
      `${members}prevCount = 0;`,
    ],
    grow: [
      'const m = this.prevCount;',
      ...carried.map(
        (f) => `this.${prev(f)} = grownArray(this.${prev(f)}, ${entries(f, 'cap')}, ${entries(f, 'm')});`,
      ),
    ],
    methods: [
      '',
      '/** The current list becomes the previous one (the arrays change places), and the current one is emptied. */',
      `${members}swapPrevious(): void {`,
      ...carried.map((f) => `[this.${prev(f)}, this.${f.name}] = [this.${f.name}, this.${prev(f)}];`),
      'this.prevCount = this.count;',
      'this.count = 0;',
      '}',
    ],
  };
}

/** The module of one layout (before formatting). */
function emitLayout(l: Layout, banner: string): string {
  const { fields, consts } = parseTable(l.table);
  const types = [...new Set(fields.map((f) => f.type))];
  const access = l.access === 'public' ? '' : 'protected ';
  const members = l.members === 'protected' ? 'protected ' : '';
  const state = emitState(l, fields);
  const previous = emitPrevious(l, fields, members);
  const tp = l.typeParams ?? '';
  const abstract = l.base || l.shared ? 'abstract ' : '';
  return [
    banner,
    `// The per-entry arrays' table is in scripts/kernels/emit-layouts.ts (${l.className}).`,
    "import { grownArray } from '../math/arrays.js';",
    ...(l.base?.imports ?? []),
    '',
    ...consts.flatMap(([name, value, doc]) => [`/** ${doc} */`, `export const ${name} = ${value};`, '']),
    ...state.type,
    `/** ${l.doc} */`,
    `export ${abstract}class ${l.className}${tp}${l.base ? ` extends ${l.base.name}` : ''} {`,
    ...(l.base ? [] : ['/** Entries in use. */', 'count = 0;']),
    '/** Entries the arrays hold. */',
    `${access}capacity = 0;`,
    ...(l.version ? ['/** Increases whenever the arrays are reallocated. */', 'version = 0;'] : []),
    ...(l.shared
      ? ['/** The arrays are on SharedArrayBuffer. */', 'abstract readonly shared: boolean;']
      : []),
    ...fields.flatMap((f) => [
      ...(f.doc ? [`/** ${f.doc} */`] : []),
      `${members}${f.name} = new ${f.type}(0);`,
    ]),
    ...previous.fields,
    '',
    `/** Grows every array to cap entries (${types.join(', ')}), the count in use kept. */`,
    `${access}grow(cap: number): void {`,
    'const n = this.count;',
    ...fields.map(
      (f) =>
        `this.${f.name} = grownArray(this.${f.name}, ${entries(f, 'cap')}, ${entries(f, 'n')}${l.shared ? ', this.shared' : ''});`,
    ),
    ...previous.grow,
    'this.capacity = cap;',
    ...(l.version ? ['this.version++;'] : []),
    '}',
    ...(l.push ? emitPush(fields, members) : []),
    ...previous.methods,
    ...state.methods,
    '}',
    '',
  ].join('\n');
}

/** Every layout's module: [path, source before formatting]. */
export function emitLayouts(banner: (from: string) => string): [string, string][] {
  return LAYOUTS.map((l) => [l.file, emitLayout(l, banner('scripts/kernels/emit-layouts.ts'))]);
}
