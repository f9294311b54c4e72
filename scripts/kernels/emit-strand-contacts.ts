/**
 * The strand module's sphere contacts (wasm/strands.ts re-exports them), written once here and
 * printed as AssemblyScript into wasm/strand-contacts.generated.ts for the module's memory layout:
 * the arrays of the store and of the contact list at byte addresses read from an address table
 * (`Slot`), the sphere's and the substep's numbers from a number table (`Num`). For one sphere that
 * follows no rigid body and is unturned, particles that share one radius, group and mask, and no
 * disabled body (src/strands/strand-kernel.ts checks these and otherwise calls the JavaScript):
 *
 * - `sphereContacts`: src/collision/collider-contacts-sphere.ts generateSphereContacts (the loop
 *   that scripts/kernels/emit-collider-contacts.ts prints per collider shape; 003 §3.4: the
 *   continuous test along x → p, the static fallback, the closest point within reach; Macklin et al.
 *   2014 §6.1: the friction anchor) with record, uniform radius, no chunks;
 * - `projectSphereContacts`: src/collision/collider-contacts-blocks.ts projectPlainContacts, not
 *   opening (003 §3.4 the normal projection; Müller et al. 2020 §3.5 the static cone);
 * - `endSphereContacts`: src/collision/collider-contacts.ts endStepRange (003 §3.5 restitution);
 * - `moveContacts`: the threaded pass's move of a block's contacts (src/strands/strand-threads.ts).
 *
 * The contact list's slots (with their bytes per contact), the sphere's numbers, the collider's
 * velocity at a point (v_c = v + ω × (q − c)) and the table reads are written once below; each
 * pass keeps the operations, in their order, of the JavaScript it ports (WebAssembly's f64
 * arithmetic is IEEE and never contracts): test/strands-wasm, test/strands-fused,
 * test/threads-strands, the strand scenes' checksums.
 */

/**
 * The address table's slots (i32 each), `NAME:bytes` for the contact list's per-contact arrays (their
 * bytes per contact); the others are arrays of the store or per particle, or numbers:
 * X: x
 * P: p
 * V: v
 * W: inverse masses
 * PART: the contact's particle, 4 bytes per contact
 * COL: the contact's collider, 4 bytes per contact
 * Q: the surface point q, 24 bytes per contact
 * N: the normal n, 24 bytes per contact
 * LN: λ_n, 8 bytes per contact
 * LT: λ_t, 8 bytes per contact
 * SLID: slid (u8), 1 byte per contact
 * INC: the incoming slip, 8 bytes per contact
 * VN0: the normal speed at generation, 8 bytes per contact
 * DEEP: deep (u8), 1 byte per contact
 * RIGID: the contact's rigid body, 4 bytes per contact
 * AT: the anchor in world space, 24 bytes per contact
 * OF: each particle's contact (contactOf)
 * AOF: each particle's anchor's collider + 1 (anchorOf)
 * SEEN: the substep each particle was last in contact
 * LOCAL: each particle's anchor in the collider's frame
 * STN: each particle's banked normal sticking
 * STT: each particle's tangential sticking
 * COUNT: the list's count (an address)
 * C: the collider's index (a number)
 * SUB: the substep (a number)
 */
const SLOTS: [string, number][] = (
  'X P V W PART:4 COL:4 Q:24 N:24 LN:8 LT:8 SLID:1 INC:8 VN0:8 DEEP:1 RIGID:4 AT:24 ' +
  'OF AOF SEEN LOCAL STN STT COUNT C SUB'
)
  .split(' ')
  .map((s) => {
    const [name, bytes] = s.split(':');
    return [name, Number(bytes ?? 0)];
  });

/** The number table's slots (f64 each) and their widths. */
const NUMS: [string, number][] = [
  ['RAD', 1],
  ['CP', 3],
  ['LV', 3],
  ['AV', 3],
  ['MARGIN', 1],
  ['R0', 1],
  ['H', 1],
  ['MAXDEP', 1],
  ['DECAY', 1],
  ['MU', 1],
  ['MUS', 1],
  ['REST', 1],
  ['E', 1],
];

const XYZ = ['x', 'y', 'z'];
/** A particle's components at i3. */
const I3 = ['i3', 'i3 + 1', 'i3 + 2'];

/** `enum Num { RAD, CP, LV = 4, … }`: an explicit value after a slot wider than one. */
function numEnum(): string {
  let at = 0;
  let prev = 1;
  const names = NUMS.map(([name, width]) => {
    const s = prev === 1 ? name : `${name} = ${at}`;
    at += width;
    prev = width;
    return s;
  });
  return `enum Num {\n  ${names.join(', ')},\n}`;
}

/** contactBytes: the per-contact arrays' bytes, grouped by size (4 the default). */
function contactBytes(): string {
  const sizes = [24, 8, 1].map((b) => {
    const slots = SLOTS.filter(([, n]) => n === b).map(([s]) => `s === Slot.${s}`);
    return `  if (${slots.join(' || ')}) return ${b};`;
  });
  return sizes.join('\n');
}

/** The addresses of the named slots: `const a = addr(A, Slot.S), …;`. */
const addrs = (decls: [string, string][]): string =>
  `const ${decls.map(([name, slot]) => `${name} = addr(A, Slot.${slot})`).join(',\n    ')};`;

/** The numbers of the named slots: `const a = f(F, Num.S), …;` (a vector name ends in x, y, z). */
const nums = (decls: [string, string][]): string =>
  `const ${decls.map(([name, slot]) => `${name} = f(F, Num.${slot})`).join(',\n    ')};`;

/** A vector of the number table: [cpx, CP], [cpy, CP + 1], [cpz, CP + 2]. */
const numVec = (name: string, slot: string): [string, string][] =>
  XYZ.map((c, i) => [`${name}${c}`, i === 0 ? slot : `${slot} + ${i}`]);

/** The sphere's centre and velocities (v, ω). */
const MOTION = [...numVec('cp', 'CP'), ...numVec('lv', 'LV'), ...numVec('av', 'AV')];

/** `const rx = e(x), ry = e(y), rz = e(z);` */
const vec3 = (name: string, e: (c: string, i: number) => string): string =>
  `const ${XYZ.map((c, i) => `${name}${c} = ${e(c, i)}`).join(',\n      ')};`;

/** The collider's velocity at r = q − c: v_c = v + ω × r. */
const COLLIDER_VELOCITY = `const cvx = lvx + avy * rz - avz * ry;
    const cvy = lvy + avz * rx - avx * rz;
    const cvz = lvz + avx * ry - avy * rx;`;

/** (v_i − v_c) · n */
const RELATIVE_NORMAL_SPEED = '(f(v, i3) - cvx) * nx + (f(v, i3 + 1) - cvy) * ny + (f(v, i3 + 2) - cvz) * nz';

/** The contact's normal n at k3. */
const NORMAL = vec3('n', (_, i) => (i === 0 ? 'f(n, k3)' : `f(n, k3 + ${i})`));

/** generateSphereContacts over particles [from, to): see the file's comment. */
const SPHERE_CONTACTS = `/**
 * generateSphereContacts (record, uniform, unturned, no chunks) over particles [from, to): the same
 * contacts with the same numbers, appended at the list's count. Returns −1 when done, or the particle
 * it stopped at, before recording anything of it, for the JavaScript to generate: a deep penetration
 * (recordDeep). A point within 1e-12 of the centre takes the unturned sphere's own answer (normal +y),
 * as the JavaScript's query gives it.
 */
export function sphereContacts(A: usize, F: usize, from: i32, to: i32): i32 {
  ${addrs([
    ['x', 'X'],
    ['p', 'P'],
    ['v', 'V'],
    ['w', 'W'],
  ])}
  ${addrs([
    ['part', 'PART'],
    ['cid', 'COL'],
    ['qa', 'Q'],
    ['na', 'N'],
    ['lamN', 'LN'],
    ['lamT', 'LT'],
    ['slid', 'SLID'],
    ['inc', 'INC'],
    ['vn0a', 'VN0'],
    ['deepA', 'DEEP'],
    ['rigid', 'RIGID'],
    ['at', 'AT'],
    ['contactOf', 'OF'],
    ['anchorOf', 'AOF'],
    ['seen', 'SEEN'],
    ['al', 'LOCAL'],
    ['stickN', 'STN'],
    ['stickT', 'STT'],
  ])}
  ${addrs([['countAt', 'COUNT']])}
  const c = load<i32>(A + (<usize>Slot.C << 2)),
    substep = load<i32>(A + (<usize>Slot.SUB << 2));
  ${nums([
    ['rad', 'RAD'],
    ...MOTION,
    ['margin', 'MARGIN'],
    ['r0', 'R0'],
    ['h', 'H'],
    ['maxDep', 'MAXDEP'],
    ['decay', 'DECAY'],
  ])}
  let count = load<i32>(countAt);
  for (let i = from; i < to; i++) {
    if (f(w, i) == 0) continue;
    const i3 = 3 * i;
    ${vec3('p', (_, i) => (i === 0 ? 'f(p, i3)' : `f(p, i3 + ${i})`))}
    ${vec3('x', (_, i) => (i === 0 ? 'f(x, i3)' : `f(x, i3 + ${i})`))}
    const r = margin + r0;
    ${vec3('m', (c) => `p${c} - x${c}`)}
    const seg = Math.sqrt(mx * mx + my * my + mz * mz);
    {
      ${vec3('d', (c) => `0.5 * (p${c} + x${c}) - cp${c}`)}
      const reach = rad + 2 * (r + seg) + 0.5 * seg;
      if (dx * dx + dy * dy + dz * dz > reach * reach) continue;
    }
    ${vec3('a', (c) => `x${c} - cp${c}`)}
    const lenX = Math.sqrt(ax * ax + ay * ay + az * az);
    let len = lenX;
    // at the centre (within 1e-12) the unturned sphere's own query (Collider.distanceAt through
    // SphereCollider.localDistance) gives the normal +y and the same distance len − radius
    const dX = lenX - rad;
    let nx: f64, ny: f64, nz: f64;
    let qx: f64 = 0,
      qy: f64 = 0,
      qz: f64 = 0;
    let atP: i32 = 0;
    if (dX >= r) {
      // the ray x → p against the sphere grown by r (003 §3.4, continuous)
      let t: f64 = -1;
      if (seg > dX - r) {
        ${vec3('b', (c) => `p${c} - cp${c}`)}
        const RR = rad + r;
        ${vec3('e', (c) => `b${c} - a${c}`)}
        const a = ex * ex + ey * ey + ez * ez;
        if (a != 0) {
          const b = 2 * (ax * ex + ay * ey + az * ez);
          const cq = ax * ax + ay * ay + az * az - RR * RR;
          if (!(cq < 0)) {
            const disc = b * b - 4 * a * cq;
            if (!(disc < 0)) {
              const tt = (-b - Math.sqrt(disc)) / (2 * a);
              if (tt >= 0 && tt <= 1) t = tt;
            }
          }
        }
      }
      if (t >= 0) {
        ${XYZ.map((c) => `q${c} = x${c} + t * m${c};`).join('\n        ')}
        atP = 3;
      } else atP = 2;
    } else {
      // the static fallback (003 §3.4): a particle deeper than it may leave in the substep is the
      // JavaScript's (recordDeep)
      ${unitOrUp('lenX', 'a')}
      const sn =
        (lvx + avy * az - avz * ay) * nx + (lvy + avz * ax - avx * az) * ny + (lvz + avx * ay - avy * ax) * nz;
      const excess = r - dX - (max(sn, 0) + maxDep) * h;
      if (excess > 0) {
        store<i32>(countAt, count);
        return i;
      }
      atP = 1;
    }
    {
      // the normal at the ray's hit q (atP 3) or at p (1: the static fallback, 2: the closest point,
      // no contact when out of reach this substep), whose closest surface point is then q
      ${vec3('h', (c) => `(atP === 3 ? q${c} : p${c}) - cp${c}`)}
      len = Math.sqrt(hx * hx + hy * hy + hz * hz);
      ${unitOrUp('len', 'h')}
      if (atP !== 3) {
        const dP = len - rad;
        if (atP === 2 && dP >= 2 * (r + seg)) continue;
        ${XYZ.map((c) => `q${c} = p${c} - (dP - r) * n${c};`).join('\n        ')}
      }
    }
    // velocity of the collider at q
    ${vec3('r', (c) => `q${c} - cp${c}`)}
    ${COLLIDER_VELOCITY}
    const vn0 = ${RELATIVE_NORMAL_SPEED};
    const k = count++;
    const k3 = 3 * k;
    store<i32>(part + (<usize>k << 2), i);
    store<i32>(cid + (<usize>k << 2), c);
    put3(qa, k3, qx, qy, qz);
    put3(na, k3, nx, ny, nz);
    put(lamN, k, 0);
    put(lamT, k, 0);
    store<u8>(slid + <usize>k, 0);
    put(vn0a, k, vn0);
    store<u8>(deepA + <usize>k, 0);
    store<i32>(rigid + (<usize>k << 2), -1);
    {
      // incomingSlip (collider-contact-chunks.ts)
      ${vec3('d', (c, i) => `f(p, ${I3[i]}) - f(x, ${I3[i]}) - cv${c} * h`)}
      const dn = dx * nx + dy * ny + dz * nz;
      ${vec3('t', (c) => `d${c} - dn * n${c}`)}
      put(inc, k, Math.sqrt(tx * tx + ty * ty + tz * tz));
    }
    store<i32>(contactOf + (<usize>i << 2), k);
    if (load<i32>(anchorOf + (<usize>i << 2)) != c + 1 || load<i32>(seen + (<usize>i << 2)) < substep - 1) {
      // a new anchor (Macklin et al. 2014 §6.1): where x is carried by the collider this substep
      put3(al, i3, ${XYZ.map((c, i) => `f(x, ${I3[i]}) + cv${c} * h - cp${c}`).join(', ')});
      store<i32>(anchorOf + (<usize>i << 2), c + 1);
      put(stickN, i, 0);
      zero3(stickT, i3);
    } else {
      put(stickN, i, f(stickN, i) * decay);
      put3(stickT, i3, ${XYZ.map((_, i) => `f(stickT, ${I3[i]}) * decay`).join(', ')});
    }
    store<i32>(seen + (<usize>i << 2), substep);
    put3(at, k3, ${XYZ.map((c, i) => `f(al, ${I3[i]}) + cp${c}`).join(', ')});
  }
  store<i32>(countAt, count);
  return -1;
}`;

/** n = h/len, or at the centre (len ≤ 1e-12) the unturned sphere's own query's +y. */
function unitOrUp(len: string, h: string): string {
  return `if (${len} > 1e-12) {
        ${XYZ.map((c) => `n${c} = ${h}${c} / ${len};`).join('\n        ')}
      } else {
        nx = 0;
        ny = 1;
        nz = 0;
      }`;
}

/** projectPlainContacts over contacts [k0, k1): see the file's comment. */
const PROJECT = `/** projectPlainContacts (not opening) over contacts [k0, k1) of the unturned sphere (μ, μ_s at F). */
export function projectSphereContacts(A: usize, F: usize, k0: i32, k1: i32): void {
  ${addrs([['p', 'P']])}
  ${addrs([
    ['part', 'PART'],
    ['q', 'Q'],
    ['n', 'N'],
    ['lam', 'LN'],
    ['lamT', 'LT'],
    ['slid', 'SLID'],
    ['inc', 'INC'],
    ['at', 'AT'],
    ['local', 'LOCAL'],
    ['stickN', 'STN'],
    ['stickT', 'STT'],
  ])}
  ${nums([['mu', 'MU'], ['mus', 'MUS'], ...numVec('cp', 'CP')])}
  for (let k = k0; k < k1; k++) {
    const i = load<i32>(part + (<usize>k << 2));
    const i3 = 3 * i,
      k3 = 3 * k;
    ${NORMAL}
    // the normal projection (003 §3.4): C = (p − q) · n ≥ 0
    let C0 = (f(p, i3) - f(q, k3)) * nx + (f(p, i3 + 1) - f(q, k3 + 1)) * ny + (f(p, i3 + 2) - f(q, k3 + 2)) * nz;
    if (C0 >= 0) {
      if (!(f(lam, k) > 0)) continue;
      C0 = 0;
    } else {
      put3(p, i3, f(p, i3) - C0 * nx, f(p, i3 + 1) - C0 * ny, f(p, i3 + 2) - C0 * nz);
      put(lam, k, f(lam, k) - C0);
    }
    // position-level Coulomb friction against the anchor (static within the cone, Müller et al. 2020 §3.5)
    if (mu == 0 && mus == 0) continue;
    ${vec3('d', (_, i) => `f(p, ${I3[i]}) - f(at, ${i === 0 ? 'k3' : `k3 + ${i}`})`)}
    const dn = dx * nx + dy * ny + dz * nz;
    ${vec3('t', (c) => `d${c} - dn * n${c}`)}
    const s3 = i3;
    const sn = f(stickT, s3) * nx + f(stickT, s3 + 1) * ny + f(stickT, s3 + 2) * nz;
    ${vec3('s', (c, i) => `f(stickT, ${i === 0 ? 's3' : `s3 + ${i}`}) - sn * n${c} + t${c}`)}
    const budget = mus * (f(stickN, i) - C0);
    if (load<u8>(slid + <usize>k) == 0 && f(inc, k) <= mus * f(lam, k) && sx * sx + sy * sy + sz * sz <= budget * budget) {
      put3(p, i3, ${XYZ.map((c, i) => `f(p, ${I3[i]}) - t${c}`).join(', ')});
      put(stickN, i, f(stickN, i) - C0);
      put3(stickT, s3, sx, sy, sz);
      continue;
    }
    store<u8>(slid + <usize>k, 1);
    const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
    const g = tl > 1e-15 ? max(min((mu * f(lam, k) - f(lamT, k)) / tl, 1), 0) : 0;
    put3(p, i3, ${XYZ.map((c, i) => `f(p, ${I3[i]}) - g * t${c}`).join(', ')});
    put(lamT, k, f(lamT, k) + g * tl);
    put3(local, s3, ${XYZ.map((c, i) => `f(p, ${I3[i]}) - cp${c}`).join(', ')});
    put(stickN, i, 0);
    zero3(stickT, s3);
  }
}`;

/** endStepRange over contacts [k0, k1): see the file's comment. */
const END = `/** endStepRange over contacts [k0, k1) of the sphere (none follows a rigid body; restitution at F). */
export function endSphereContacts(A: usize, F: usize, k0: i32, k1: i32): void {
  ${addrs([['v', 'V']])}
  ${addrs([
    ['part', 'PART'],
    ['q', 'Q'],
    ['n', 'N'],
    ['lam', 'LN'],
    ['vn0a', 'VN0'],
    ['deepA', 'DEEP'],
  ])}
  ${nums([['restThreshold', 'REST'], ['restitution', 'E'], ...MOTION])}
  for (let k = k0; k < k1; k++) {
    const deep = load<u8>(deepA + <usize>k) != 0;
    if (f(lam, k) <= 0 && !deep) continue;
    const vn0 = f(vn0a, k);
    if (!(vn0 < 0) && !deep) continue;
    // restitution (003 §3.5) above the threshold; a deep contact only stops approaching
    const e = -vn0 > restThreshold && !deep ? restitution : 0;
    const i3 = 3 * load<i32>(part + (<usize>k << 2)),
      k3 = 3 * k;
    ${NORMAL}
    ${vec3('r', (c, i) => `f(q, ${i === 0 ? 'k3' : `k3 + ${i}`}) - cp${c}`)}
    ${COLLIDER_VELOCITY}
    const vn = ${RELATIVE_NORMAL_SPEED};
    const dv = deep ? min(max(vn0, 0) - vn, 0) : -e * vn0 - vn;
    put3(v, i3, ${XYZ.map((c, i) => `f(v, ${I3[i]}) + dv * n${c}`).join(', ')});
  }
}`;

/** The strand module's sphere contacts in AssemblyScript (wasm/strand-contacts.generated.ts). */
export function emitStrandContacts(banner: string): string {
  return `${banner}
// The sphere's contacts of a block of the fused strand pass, printed from
// scripts/kernels/emit-strand-contacts.ts: wasm/strands.ts re-exports sphereContacts,
// projectSphereContacts, endSphereContacts and moveContacts.

import { f, put, put3, zero3 } from './strand-memory';

/** Slots of the address table (i32 each): the arrays of the store and of the contact list, then the
 * list's count (an address), the collider's index and the substep (numbers). */
enum Slot {
${SLOTS.map(([s]) => `  ${s},`).join('\n')}
}

/** Slots of the number table (f64 each): the sphere and the substep's numbers. */
${numEnum()}

@inline function addr(A: usize, slot: i32): usize {
  return <usize>load<i32>(A + (<usize>slot << 2));
}

${SPHERE_CONTACTS}

${PROJECT}

${END}

/**
 * Bytes per contact of the contact list's array at slot s, from Slot.PART to Slot.AT (the per-contact
 * ones). A function, not a table: the module keeps no data in memory (the strand kernel's arrays start
 * at address 64, and each thread's instantiation would write a data segment again).
 */
@inline function contactBytes(s: i32): usize {
${contactBytes()}
  return 4;
}

/**
 * Moves contacts [from, from + n) of the list whose arrays table As names to [to, to + n) of As's
 * destination table Ad (the threaded pass, src/strands/strand-threads.ts: each block's contacts,
 * generated at its first particle's slot of a staging list, go to their place in particle order), and
 * points the contacts' particles' contactOf (Ad's) at their new slots.
 */
export function moveContacts(As: usize, Ad: usize, from: i32, n: i32, to: i32): void {
  if (n <= 0) return;
  for (let s: i32 = Slot.PART; s <= Slot.AT; s++) {
    const b = contactBytes(s);
    memory.copy(addr(Ad, s) + <usize>to * b, addr(As, s) + <usize>from * b, <usize>n * b);
  }
  const part = addr(Ad, Slot.PART),
    contactOf = addr(Ad, Slot.OF);
  for (let k = to; k < to + n; k++) store<i32>(contactOf + (<usize>load<i32>(part + (<usize>k << 2)) << 2), k);
}
`;
}
