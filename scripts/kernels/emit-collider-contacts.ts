/**
 * The collider contacts' generation loop (003 §3.4: the continuous test along x → p, the static
 * fallback with its depenetration, the closest point within reach; Macklin et al. 2014 §6.1: the
 * friction anchor), written once here and printed per collider shape into
 * src/collision/collider-contact-loops.generated.ts:
 *
 * - `generateColliderContacts`: any collider, through its array queries (distanceAt, raycastAt,
 *   boxDistanceBound), with a rigid body's coupling (ColliderContacts.generate's generic loop);
 * - `generateSphereContacts`: a sphere that follows no rigid body, its queries written out as
 *   arithmetic (hair on a head; also the fused strand pass's blocks, src/strands/fused-pass.ts);
 * - `planeBlock`: a block of particles of a plane that follows no rigid body, on the worker pool
 *   (count, then fill: src/collision/collider-contacts-planes.ts).
 *
 * The loop (`contactLoop`) is the same for the three; what varies is the shape's part (`Shape`):
 * how the distance and normal at a point, the ray's entry and the chunk bound are computed, and how
 * a contact is claimed. Each shape's part is the code that was written out by hand before (session
 * 17), with the same operations in the same order, so every scene keeps its bits.
 */

/** One collider shape's part of the loop: statements (or expressions) printed into contactLoop. */
interface Shape {
  /** The function's doc comment, signature and the locals before the loop. */
  head: string;
  /** The loop's header and its first lines (the particle index i). */
  loop: string;
  /** The loop variable that a culled chunk skips forward. */
  loopVar: string;
  /** The condition under which the chunk test runs (before `(i & (chunkSize - 1)) === 0`). */
  cullWhen: string;
  /** The bound of the distance from the collider to chunk box b6 (WorldCollider.boxDistanceBound). */
  bound: string;
  /** The group and mask test, the disabled bodies' test: statements that `continue`. */
  filters: string;
  /** The particle's radius. */
  radius: string;
  /** The bounding-sphere rejection of the segment x → p ('' for none). */
  reject: string;
  /** The distance dX at x (declared), and what the static fallback needs of it. */
  distX: string;
  /** Sets t (≥ 0: the ray x → p enters the grown collider at x + t (p − x)). */
  ray: string;
  /** The normal at the entry point q (set: nx, ny, nz). */
  normalAtHit: string;
  /** The distance dP (declared) and the normal (set: nx, ny, nz) at (px, py, pz) named by the arguments. */
  distAt: (a: string, px: string, py: string, pz: string) => string;
  /** The normal at x in the static fallback (set: nx, ny, nz). */
  normalX: string;
  /** What a particle deeper than it may leave in the substep does (excess > 0). */
  deepOut: string;
  /** Whether the static fallback may move x and p (then the prediction is read again). */
  moves: boolean;
  /** Before the contact is written: the plane's count pass lists it and goes on. */
  beforeWrite: string;
  /** The contact's index k (declared), its list T. */
  claim: string;
  /** The contact list's name (cc, A). */
  T: string;
  /** The collider's rotation is (0, 0, 0, w) when `unturned` holds: the anchor's turns are left out. */
  unturnedAnchor: boolean;
  /** The contact's rigid body (−1: none) and the coupling. */
  rigid: string;
  /** After the loop. */
  tail: string;
}

const XYZ = ['x', 'y', 'z'];
/** `const ax = e(x), ay = e(y), az = e(z);` */
const vec3 = (decl: string, name: string, e: (c: string, i: number) => string): string =>
  `${decl} ${XYZ.map((c, i) => `${name}${c} = ${e(c, i)}`).join(', ')};`;

/** The loop over the particles, with one shape's part (see Shape). */
function contactLoop(s: Shape): string {
  const T = s.T;
  const q = (a: string, c: string, i: number) => (i === 0 ? `${a}[${c}]` : `${a}[${c} + ${i}]`);
  const rotate = (out: string, qs: string, v: string, plus: (i: number) => string) => {
    const [qx, qy, qz, qw] = qs.split(' ');
    return [
      `const tx = 2 * (${qy} * ${v}z - ${qz} * ${v}y);`,
      `const ty = 2 * (${qz} * ${v}x - ${qx} * ${v}z);`,
      `const tz = 2 * (${qx} * ${v}y - ${qy} * ${v}x);`,
      `${out}[i3] = ${v}x + ${qw} * tx + (${qy} * tz - ${qz} * ty)${plus(0)};`,
      `${out}[i3 + 1] = ${v}y + ${qw} * ty + (${qz} * tx - ${qx} * tz)${plus(1)};`,
      `${out}[i3 + 2] = ${v}z + ${qw} * tz + (${qx} * ty - ${qy} * tx)${plus(2)};`,
    ].join('\n');
  };
  /** q = the point (a) moved onto the surface along the normal: a − (dP − r) n. */
  const closest = (a: string) => XYZ.map((c) => `q${c} = ${a}${c} - (dP - r) * n${c};`).join('\n');
  const prediction = s.moves
    ? [
        vec3('const', 'qp', (_, i) => q('p', 'i3', i)),
        s.distAt('dP', 'qpx', 'qpy', 'qpz'),
        closest('qp'),
      ].join('\n')
    : [s.distAt('dP', 'px', 'py', 'pz'), closest('p')].join('\n');
  const turnedAnchorLocal = `{
        // quatRotateInverse (rotateByParts by (−q_xyz, q_w)), written out
        ${rotate('al', 'iqx iqy iqz cqw', 'e', () => '')}
      }`;
  const anchorLocal = s.unturnedAnchor
    ? `if (unturned) {
        ${XYZ.map((c, i) => `${q('al', 'i3', i)} = e${c};`).join('\n')}
      } else ${turnedAnchorLocal}`
    : turnedAnchorLocal;
  const turnedAnchorAt = `{
      // quatRotate (rotateByParts by q) + the collider's position, written out
      ${vec3('const', 'u', (_, i) => q('al', 'i3', i))}
      ${rotate('at', 'cqx cqy cqz cqw', 'u', (i) => ` + cp${XYZ[i]}`).replace(/\[i3/g, '[k3')}
    }`;
  const anchorAt = s.unturnedAnchor
    ? `if (unturned) {
      ${XYZ.map((c, i) => `${q('at', 'k3', i)} = ${q('al', 'i3', i)} + cp${c};`).join('\n')}
    } else ${turnedAnchorAt}`
    : turnedAnchorAt;
  return `${s.head}
  ${s.loop}
    if (${s.cullWhen}(i & (chunkSize - 1)) === 0) {
      // a chunk whose box is out of its particles' reach: the tests below would reject each one
      const b6 = (6 * i) / chunkSize;
      const bound = ${s.bound};
      tested++;
      if (bound - 2 * margin > 2 * chunkReach[i / chunkSize] + cullSlack) {
        culled++;
        ${s.loopVar} += chunkSize - 1;
        continue;
      }
    }
    if (invMass[i] === 0) continue;
    ${s.filters}
    const i3 = 3 * i;
    ${vec3('const', 'p', (_, i) => q('p', 'i3', i))}
    ${vec3('const', 'x', (_, i) => q('x', 'i3', i))}
    const r = margin + ${s.radius};
    let deep = 0;
    ${vec3('const', 'm', (c) => `p${c} - x${c}`)}
    const seg = Math.sqrt(mx * mx + my * my + mz * mz);
    ${s.reject}
    ${s.distX}
    let qx: number, qy: number, qz: number, nx: number, ny: number, nz: number;
    if (dX >= r) {
      // x outside: continuous test along x → p, only if the segment can reach the surface
      let t = -1;
      if (seg > dX - r) {
        ${s.ray}
      }
      if (t >= 0) {
        ${XYZ.map((c) => `q${c} = x${c} + t * m${c};`).join('\n')}
        ${s.normalAtHit}
      } else {
        ${s.distAt('dP', 'px', 'py', 'pz')}
        if (dP >= 2 * (r + seg)) continue; // out of reach this substep (see ColliderContacts)
        ${closest('p')}
      }
    } else {
      // static fallback: a penetration deeper than the particle may leave in a substep at the
      // depenetration speed (plus the surface's own motion along n) is first moved out to that depth,
      // x and p together
      ${s.normalX}
      ${vec3('const', 'r', (c) => `x${c} - cp${c}`)}
      const sn =
        (lvx + avy * rz - avz * ry) * nx +
        (lvy + avz * rx - avx * rz) * ny +
        (lvz + avx * ry - avy * rx) * nz;
      const excess = r - dX - (Math.max(sn, 0) + maxDep) * h;
      ${s.deepOut}
      // the closest surface point of the prediction
      ${prediction}
    }
    ${s.beforeWrite}
    // velocity of the collider at q
    ${vec3('const', 'r', (c) => `q${c} - cp${c}`)}
    const cvx = lvx + avy * rz - avz * ry;
    const cvy = lvy + avz * rx - avx * rz;
    const cvz = lvz + avx * ry - avy * rx;
    const vn0 = (v[i3] - cvx) * nx + (v[i3 + 1] - cvy) * ny + (v[i3 + 2] - cvz) * nz;
    // the contact
    ${s.claim}
    const k3 = 3 * k;
    ${T}.particle[k] = i;
    ${T}.collider[k] = c;
    const qOut = ${T}.q,
      nOut = ${T}.n;
    ${XYZ.map((c, i) => `${q('qOut', 'k3', i)} = q${c};`).join('\n')}
    ${XYZ.map((c, i) => `${q('nOut', 'k3', i)} = n${c};`).join('\n')}
    ${T}.lambdaN[k] = 0;
    ${T}.lambdaT[k] = 0;
    ${T}.slid[k] = 0;
    ${T}.vn0[k] = vn0;
    ${T}.deep[k] = deep;
    ${T}.contactOf[i] = k;
    {
      // the tangential motion the prediction brings over the substep relative to the surface,
      // |(p − x − h v_c)_t| (ColliderContacts.incoming; incomingSlip, written out)
      ${vec3('const', 'd', (c, i) => `${q('p', 'i3', i)} - ${q('x', 'i3', i)} - cv${c} * h`)}
      const dn = dx * nx + dy * ny + dz * nz;
      ${vec3('const', 't', (c) => `d${c} - dn * n${c}`)}
      ${T}.incoming[k] = Math.sqrt(tx * tx + ty * ty + tz * tz);
    }
    // the friction anchor: kept while the particle stays in contact with this collider, else set
    // where the particle is, carried by the surface's motion over the substep (x + h v_c)
    const al = ${T}.anchorLocal,
      stickT = ${T}.stickT,
      at = ${T}.anchorAt;
    if (${T}.anchorOf[i] !== c + 1 || ${T}.anchorSeen[i] < substep - 1) {
      ${vec3('const', 'e', (c, i) => `${q('x', 'i3', i)} + cv${c} * h - cp${c}`)}
      ${anchorLocal}
      ${T}.anchorOf[i] = c + 1;
      ${T}.stickN[i] = 0;
      stickT[i3] = stickT[i3 + 1] = stickT[i3 + 2] = 0;
    } else {
      ${T}.stickN[i] *= decay;
      stickT[i3] *= decay;
      stickT[i3 + 1] *= decay;
      stickT[i3 + 2] *= decay;
    }
    ${T}.anchorSeen[i] = substep;
    ${anchorAt}
    ${s.rigid}
  }
  ${s.tail}
}
`;
}

/** The locals of a collider's pose and motion read from WorldCollider `col`. */
const COLLIDER_LOCALS = [
  'const cp = col.position, cr = col.rotation;',
  vec3('const', 'cp', (_, i) => `cp[${i}]`),
  "// the collider's rotation (cq*) and its inverse's vector part (iq*): the anchor's turns",
  `const ${['x', 'y', 'z', 'w'].map((c, i) => `cq${c} = cr[${i}]`).join(', ')};`,
  vec3('const', 'iq', (c) => `-cq${c}`),
  'const lv = col.linearVelocity, av = col.angularVelocity;',
  `${vec3('const', 'lv', (_, i) => `lv[${i}]`).slice(0, -1)}, ${vec3('', 'av', (_, i) => `av[${i}]`).slice(1)}`,
  'const margin = col.margin, cgroup = col.group, cmask = col.mask;',
].join('\n');

/** The contact list's and the store's locals (generic and sphere). */
const LIST_LOCALS = `const s = ctx.store;
  const { x, p, v, invMass, radius, group, mask, body } = s;
  const off = cc.disabledBody, nrm = cc.nrm, chunkReach = cc.chunkReach, box = cc.chunkBox;
  const h = ctx.h, maxDep = cc.maxDepenetrationSpeed, substep = cc.substep, decay = cc.stickDecay;`;

/** Claiming the next contact of a growable list (ColliderContacts.grow). */
const CLAIM = `if (cc.count === cc.capacity) cc.grow(cc.capacity * 2);
    const k = cc.count++;`;

/** A collider's queries through its array forms (no boxed arguments or results). */
const generic: Shape = {
  head: `/**
 * The contacts of one collider that neither the plane pool nor the sphere pass takes, over all the
 * particles (its chunk tests added to cullTested / cullCulled), through the collider's array
 * queries (distanceAt, raycastAt: no boxed arguments or results). Its own function:
 * V8 compiled the loop on stack replacement inside ColliderContacts.generate before generate's tail
 * had run, and that code left generate at the tail on every call; here it runs once per collider
 * and is optimised whole (docs/solver.md, Threads, session 14). A collider that follows a rigid
 * body couples each contact to it (anchorCoupledContact, 003 §4.2).
 */
export function generateColliderContacts(
  cc: ColliderContactsTarget,
  ctx: StepContext,
  col: WorldCollider,
  c: number,
  record: boolean,
  chunked: boolean,
  chunkSize: number,
  cullSlack: number,
): void {
  ${LIST_LOCALS}
  const np = s.count;
  const R = col.boundingRadius();
  ${COLLIDER_LOCALS}
  const rb = col.rigid ?? -1;
  let tested = 0,
    culled = 0;`,
  loop: 'for (let i = 0; i < np; i++) {',
  loopVar: 'i',
  cullWhen: 'chunked && ',
  bound: 'col.boxDistanceBound(box[b6], box[b6 + 1], box[b6 + 2], box[b6 + 3], box[b6 + 4], box[b6 + 5])',
  filters: `if ((mask[i] & cgroup) === 0 || (cmask & group[i]) === 0) continue;
    if (off !== null && body[i] >= 0 && off[body[i]] === 1) continue;`,
  radius: 'radius[i]',
  reject: `if (R !== Number.POSITIVE_INFINITY) {
      // bounding-sphere rejection of the whole segment
      ${vec3('const', 'd', (c) => `0.5 * (p${c} + x${c}) - cp${c}`)}
      const reach = R + 2 * (r + seg) + 0.5 * seg;
      if (dx * dx + dy * dy + dz * dz > reach * reach) continue;
    }`,
  distX: `col.distanceAt(x, i3, nrm);
    const dX = nrm[3];`,
  ray: `col.raycastAt(x, p, i3, r, nrm);
        t = nrm[3];`,
  normalAtHit: `const hit = cc.hit;
        hit[0] = qx;
        hit[1] = qy;
        hit[2] = qz;
        col.distanceAt(hit, 0, nrm);
        nx = nrm[0];
        ny = nrm[1];
        nz = nrm[2];`,
  distAt: (d) => `col.distanceAt(p, i3, nrm);
        const ${d} = nrm[3];
        nx = nrm[0];
        ny = nrm[1];
        nz = nrm[2];`,
  normalX: `nx = nrm[0];
      ny = nrm[1];
      nz = nrm[2];`,
  deepOut: '',
  moves: true,
  beforeWrite: '',
  claim: CLAIM,
  T: 'cc',
  unturnedAnchor: false,
  rigid: `cc.rigid[k] = rb;
    if (rb >= 0) anchorCoupledContact(cc, k, ctx.rigids);`,
  tail: `cc.cullTested += tested;
  cc.cullCulled += culled;`,
};

/** Moving a particle out of a deep penetration (generic and sphere): recorded, or moved on its own. */
const DEEP_MOVE = `if (excess > 0 && record) {
        nrm[0] = nx;
        nrm[1] = ny;
        nrm[2] = nz;
        cc.recordDeep(i, c, excess);
        continue;
      }
      if (excess > 0) {
        ${vec3('const', 'e', (c) => `excess * n${c}`)}
        ${XYZ.map((c, i) => `${i ? `x[i3 + ${i}]` : 'x[i3]'} = x${c} + e${c};`).join('\n')}
        ${XYZ.map((c, i) => `${i ? `p[i3 + ${i}]` : 'p[i3]'} = p${c} + e${c};`).join('\n')}
        deep = 1;
      }`;
generic.deepOut = DEEP_MOVE;

/** SphereCollider's queries written out (the point relative to the centre, one square root, the ray's quadratic). */
const sphere: Shape = {
  head: `/**
 * SphereCollider.distanceAt at P[o …] with the centre (cx, cy, cz) read out of the loop: the unit
 * normal into nrm[0..2], the signed distance |P − c| − radius returned; at the centre itself
 * distanceAt's own fallback. Small, so that V8 inlines it into the loop below.
 */
function sphereDistanceAt(col: SphereLike, P: Float64Array, o: number, cx: number, cy: number, cz: number, nrm: Float64Array): number {
  const bx = P[o] - cx,
    by = P[o + 1] - cy,
    bz = P[o + 2] - cz;
  const len = Math.sqrt(bx * bx + by * by + bz * bz);
  if (len > 1e-12) {
    nrm[0] = bx / len;
    nrm[1] = by / len;
    nrm[2] = bz / len;
    return len - col.radius;
  }
  col.distanceAt(P, o, nrm);
  return nrm[3];
}

/**
 * The collider contacts of one sphere that follows no rigid body, in one flat pass over the
 * particles: the hot loop of hair on a head (hair-10k: 74,000 contacts a step). The same contacts
 * as generateColliderContacts with the same operations in the same order, so the same bits:
 * SphereCollider's distanceAt and raycastAt written out instead of called through the collider
 * (calls V8 does not inline, with their results passed through an array). A point at the sphere's
 * centre (no direction) still asks the collider (its turned +y).
 *
 * \`c\` is the collider's index; particles [from, to) (all by default: the fused strand pass,
 * src/strands/fused-pass.ts, generates block by block in particle order); \`chunked\` says whether
 * the chunk boxes were built this substep (chunks of \`chunkSize\` particles). \`uniform\` (the fused
 * strand pass, without chunks) says that every particle of [from, to) has particle \`from\`'s radius,
 * group and mask: none of the three is read per particle (the same numbers, less memory traffic).
 */
export function generateSphereContacts(
  cc: SphereContactsTarget,
  ctx: StepContext,
  col: SphereLike,
  c: number,
  record: boolean,
  chunked: boolean,
  chunkSize: number,
  cullSlack: number,
  from = 0,
  to = ctx.store.count,
  uniform = false,
): void {
  ${LIST_LOCALS}
  const rad = col.radius;
  ${COLLIDER_LOCALS}
  // an unturned sphere (0, 0, 0, w): turning into and out of its frame gives the vector itself, so the
  // anchor's two quaternion products are left out (the same numbers; at most the sign of a zero differs)
  const unturned = cqx === 0 && cqy === 0 && cqz === 0;
  const r0 = uniform && from < to ? radius[from] : 0;
  if (uniform && from < to && ((mask[from] & cgroup) === 0 || (cmask & group[from]) === 0)) return;
  let tested = 0,
    culled = 0;`,
  loop: 'for (let i = from; i < to; i++) {',
  loopVar: 'i',
  cullWhen: 'chunked && ',
  bound: generic.bound,
  filters: `if (!uniform && ((mask[i] & cgroup) === 0 || (cmask & group[i]) === 0)) continue;
    if (off !== null && body[i] >= 0 && off[body[i]] === 1) continue;`,
  radius: '(uniform ? r0 : radius[i])',
  reject: `{
      // bounding-sphere rejection of the whole segment
      ${vec3('const', 'd', (c) => `0.5 * (p${c} + x${c}) - cp${c}`)}
      const reach = rad + 2 * (r + seg) + 0.5 * seg;
      if (dx * dx + dy * dy + dz * dz > reach * reach) continue;
    }
    // distance at x (SphereCollider.distanceAt; the normal, needed only by the static fallback, divided out only there)`,
  distX: `${vec3('const', 'a', (c) => `x${c} - cp${c}`)}
    const lenX = Math.sqrt(ax * ax + ay * ay + az * az);
    let dX: number;
    if (lenX > 1e-12) dX = lenX - rad;
    else {
      col.distanceAt(x, i3, nrm);
      dX = nrm[3];
    }`,
  ray: `// SphereCollider.localRaycast of the segment relative to the centre
        ${vec3('const', 'b', (c) => `p${c} - cp${c}`)}
        const RR = rad + r;
        ${vec3('const', 'e', (c) => `b${c} - a${c}`)}
        // |a + t e|² = RR², the smaller root: a t² + b t + cq = 0
        const a = ex * ex + ey * ey + ez * ez;
        const b = 2 * (ax * ex + ay * ey + az * ez), cq = ax * ax + ay * ay + az * az - RR * RR;
        const disc = b * b - 4 * a * cq;
        if (a !== 0 && !(cq < 0) && !(disc < 0)) {
          const tt = (-b - Math.sqrt(disc)) / (2 * a);
          if (tt >= 0 && tt <= 1) t = tt;
        }`,
  normalAtHit: `const hit = cc.hit;
        hit[0] = qx;
        hit[1] = qy;
        hit[2] = qz;
        sphereDistanceAt(col, hit, 0, cpx, cpy, cpz, nrm);
        nx = nrm[0];
        ny = nrm[1];
        nz = nrm[2];`,
  distAt: (d) => `const ${d} = sphereDistanceAt(col, p, i3, cpx, cpy, cpz, nrm);
        nx = nrm[0];
        ny = nrm[1];
        nz = nrm[2];`,
  normalX: `if (lenX > 1e-12) {
        nx = ax / lenX;
        ny = ay / lenX;
        nz = az / lenX;
      } else {
        nx = nrm[0];
        ny = nrm[1];
        nz = nrm[2];
      }`,
  deepOut: DEEP_MOVE,
  moves: true,
  beforeWrite: '',
  claim: CLAIM,
  T: 'cc',
  unturnedAnchor: true,
  rigid: 'cc.rigid[k] = -1;',
  tail: generic.tail,
};

/** PlaneCollider's queries written out (the unturned fast path of distanceAt included); the pool's two passes. */
const plane: Shape = {
  head: `/**
 * The y of (vx, vy, vz) turned by the quaternion (qx, qy, qz, qw): rotateByParts's operations in
 * its order (math/quat.ts), so the same bits as quatRotateInverse's [1] with (qx, qy, qz) = −the
 * rotation's; small enough for V8 to inline into planeBlock.
 */
function turnedY(qx: number, qy: number, qz: number, qw: number, vx: number, vy: number, vz: number): number {
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  return vy + qw * ty + (qz * tx - qx * tz);
}

/** Scratch of planeBlock (per thread): the plane's rotation and its normal. */
const tmpCr = new Float64Array(4);
const tnrm = new Float64Array(3);

/**
 * Block b of a pass (COUNT or FILL) over particles [b·size, (b + 1)·size) for plane j of the run
 * (its table at j·T_SLOTS): generateColliderContacts's loop with PlaneCollider's distanceAt (the
 * unturned fast path included), raycastAt and boxDistanceBound written out. COUNT walks the
 * block's particles and lists those with a contact; FILL walks that list alone (the same tests on
 * the same numbers pass again) and writes the contacts from the block's first (B[e + 4]). A
 * particle deep inside is only counted: the calling thread then generates the plane itself.
 */
export function planeBlock(A: PlaneArrays, j: number, b: number): void {
  const T = A.T,
    B = A.B;
  const o = j * T_SLOTS;
  const fill = T[PASS] === FILL;
  const size = T[SIZE];
  const i0 = b * size,
    i1 = Math.min(T[NP], i0 + size);
  const { x, p, v, invMass, radius, group, mask } = A;
  const cpx = T[o + CP],
    cpy = T[o + CP + 1],
    cpz = T[o + CP + 2];
  const cr = tmpCr;
  for (let d = 0; d < 4; d++) cr[d] = T[o + CR + d];
  const unturned = cr[0] === 0 && cr[1] === 0 && cr[2] === 0;
  const iqx = -cr[0],
    iqy = -cr[1],
    iqz = -cr[2],
    cqx = cr[0],
    cqy = cr[1],
    cqz = cr[2],
    cqw = cr[3];
  // the plane's normal (PlaneCollider.localDistance's +y, turned); boxDistanceBound turns +y in any case
  quatRotate(tnrm, 0, cr, 0, 0, 1, 0);
  const bnx = tnrm[0],
    bny = tnrm[1],
    bnz = tnrm[2];
  const tnx = unturned ? 0 : bnx,
    tny = unturned ? 1 : bny,
    tnz = unturned ? 0 : bnz;
  const lvx = T[o + LV],
    lvy = T[o + LV + 1],
    lvz = T[o + LV + 2],
    avx = T[o + AV],
    avy = T[o + AV + 1],
    avz = T[o + AV + 2];
  const margin = T[o + MARGIN],
    h = T[H],
    maxDep = T[MAXDEP],
    substep = T[SUBSTEP],
    decay = T[DECAY],
    c = T[o + COL],
    chunked = T[CHUNKED] !== 0,
    chunkSize = T[CHUNK],
    cullSlack = T[SLACK],
    cgroup = T[o + CGROUP],
    cmask = T[o + CMASK];
  const box = A.chunkBox,
    chunkReach = A.chunkReach;
  const e = B_STRIDE * (j * MAX_BLOCKS + b);
  let k = fill ? B[e + 4] : 0;
  let tested = 0,
    culled = 0,
    deeps = 0;
  const list = A.list;
  const lo = j * T[LSTRIDE];
  const t1 = fill ? i0 + B[e] : i1;
  // a block holds whole chunks (size is a multiple of chunkSize); the run's first plane fills them
  if (!fill && j === 0 && T[BOXES] !== 0)
    chunkBoxesRange(box, chunkReach, x, p, invMass, radius, T[NP], chunkSize, i0 / chunkSize, Math.ceil(i1 / chunkSize));`,
  loop: `for (let t = i0; t < t1; t++) {
    const i = fill ? list[lo + t] : t;`,
  loopVar: 't',
  cullWhen: '!fill && chunked && ',
  bound: `bnx * ((bnx > 0 ? box[b6] : box[b6 + 3]) - cpx) +
        bny * ((bny > 0 ? box[b6 + 1] : box[b6 + 4]) - cpy) +
        bnz * ((bnz > 0 ? box[b6 + 2] : box[b6 + 5]) - cpz)`,
  filters: 'if ((mask[i] & cgroup) === 0 || (cmask & group[i]) === 0) continue;',
  radius: 'radius[i]',
  reject: '',
  distX: `// distanceAt(x)
    let dX: number;
    if (unturned) dX = xy - cpy;
    else dX = turnedY(iqx, iqy, iqz, cqw, xx - cpx, xy - cpy, xz - cpz);`,
  ray: `// raycastAt (PlaneCollider.localRaycast on both ends turned)
        const ay = turnedY(iqx, iqy, iqz, cqw, xx - cpx, xy - cpy, xz - cpz),
          by = turnedY(iqx, iqy, iqz, cqw, px - cpx, py - cpy, pz - cpz);
        t = ay < r || by >= r ? -1 : (ay - r) / (ay - by);`,
  normalAtHit: `nx = tnx;
        ny = tny;
        nz = tnz;`,
  distAt: (d, px, py, pz) => `let ${d}: number;
        if (unturned) ${d} = ${py} - cpy;
        else ${d} = turnedY(iqx, iqy, iqz, cqw, ${px} - cpx, ${py} - cpy, ${pz} - cpz);
        nx = tnx;
        ny = tny;
        nz = tnz;`,
  normalX: `nx = tnx;
      ny = tny;
      nz = tnz;`,
  deepOut: `if (excess > 0) {
        // deep inside: the calling thread generates this collider (depenetration moves bodies)
        deeps++;
        continue;
      }`,
  moves: false,
  beforeWrite: `if (!fill) {
      list[lo + i0 + k] = i;
      k++;
      continue;
    }`,
  claim: '',
  T: 'A',
  unturnedAnchor: false,
  rigid: `A.rigid[k] = -1;
    k++;`,
  tail: `if (fill) return;
  B[e] = k;
  B[e + 1] = tested;
  B[e + 2] = culled;
  B[e + 3] = deeps;`,
};

/**
 * The plane task's table layout (PlaneArrays.T, collider-contacts-planes.ts): slot → what it holds.
 * Plane j's table starts at j·T_SLOTS (its CP … CMASK; the other slots are table 0's).
 */
const PLANE_TABLE: [string, number, string][] = [
  ['PASS', 0, 'the pass: COUNT or FILL'],
  ['CP', 1, "the plane's position (3)"],
  ['CR', 4, "the plane's rotation (4)"],
  ['LV', 8, "the plane's linear velocity (3)"],
  ['AV', 11, "the plane's angular velocity (3)"],
  ['MARGIN', 14, "the plane's margin"],
  ['H', 15, 'the substep'],
  ['MAXDEP', 16, 'ColliderContacts.maxDepenetrationSpeed'],
  ['SUBSTEP', 17, 'ColliderContacts.substep'],
  ['DECAY', 18, 'ColliderContacts.stickDecay'],
  ['COL', 19, "the plane's collider index"],
  ['CHUNKED', 20, '1: the chunk boxes are tested'],
  ['CHUNK', 21, 'particles per chunk'],
  ['SLACK', 22, "the culling's slack"],
  ['NP', 23, 'the particles'],
  ['SIZE', 24, 'particles per block'],
  ['CGROUP', 25, "the plane's collision group"],
  ['CMASK', 26, "the plane's collision mask"],
  [
    'BOXES',
    27,
    '1: the COUNT pass first fills the chunk boxes of its block (ColliderContacts.generate defers them)',
  ],
  ['PLANES', 28, 'the planes of the run (table 0)'],
  ['LSTRIDE', 29, "the stride of the planes' lists"],
  ['T_SLOTS', 32, "one plane's table"],
  ['COUNT', 1, 'T[PASS]: count the contacts'],
  ['FILL', 2, 'T[PASS]: write them'],
  ['B_STRIDE', 5, 'numbers per plane and block in PlaneArrays.B'],
  ['MAX_BLOCKS', 64, 'blocks of particles at the most'],
];

/**
 * The chunk boxes that the loop's chunk test reads: per chunk of `chunk` consecutive particles, the
 * box of their x and p (each axis: x's low and high, then p's) and the reach, the largest
 * radius + |p − x| of a movable particle.
 */
function chunkBoxes(): string {
  const grow = XYZ.map((c) =>
    ['a', 'b']
      .map((e) => `if (${e}${c} < ${c}0) ${c}0 = ${e}${c};\nif (${e}${c} > ${c}1) ${c}1 = ${e}${c};`)
      .join('\n'),
  ).join('\n');
  return `/**
 * The boxes and reaches of chunks [ch0, ch1) of np particles, for the chunk test of the loops below
 * (collider-contact-chunks.ts buildChunkBoxes; a block of the plane contacts' first pass on the pool
 * fills those of its own chunks).
 */
export function chunkBoxesRange(
  box: Float64Array,
  reach: Float64Array,
  x: Float64Array,
  p: Float64Array,
  invMass: Float64Array,
  radius: Float64Array,
  np: number,
  chunk: number,
  ch0: number,
  ch1: number,
): void {
  for (let ch = ch0; ch < ch1; ch++) {
    let x0 = Number.POSITIVE_INFINITY, y0 = x0, z0 = x0, x1 = Number.NEGATIVE_INFINITY, y1 = x1, z1 = x1, m = 0;
    const end = Math.min(np, (ch + 1) * chunk);
    for (let i = ch * chunk; i < end; i++) {
      const i3 = 3 * i;
      ${vec3('const', 'a', (_, i) => (i ? `x[i3 + ${i}]` : 'x[i3]'))}
      ${vec3('const', 'b', (_, i) => (i ? `p[i3 + ${i}]` : 'p[i3]'))}
      // a NaN coordinate stays out of the box (comparisons fail) and makes the reach infinite: never culled
      ${grow}
      if (Number.isNaN(ax + ay + az + bx + by + bz)) m = Number.POSITIVE_INFINITY;
      if (invMass[i] === 0) continue;
      ${vec3('const', 'm', (c) => `b${c} - a${c}`)}
      const r = radius[i] + Math.sqrt(mx * mx + my * my + mz * mz);
      if (r > m) m = r;
    }
    writeBox(box, 6 * ch, x0, y0, z0, x1, y1, z1);
    reach[ch] = m;
  }
}
`;
}

/** src/collision/collider-contact-loops.generated.ts (banner: its first line). */
export function emitColliderContacts(banner: string): string {
  return `${banner}
/**
 * The collider contacts' generation loop per collider shape, printed from one definition by
 * scripts/kernels/emit-collider-contacts.ts (003 §3.4; see ColliderContacts, collider-contacts.ts):
 * generateColliderContacts (any collider), generateSphereContacts (a sphere), planeBlock (a block of a
 * plane on the worker pool, collider-contacts-planes.ts), and the chunk boxes their chunk test reads.
 */
import type { StepContext } from '../core/constraint-set.js';
import type { WorldCollider } from '../core/world-collider.js';
import { quatRotate } from '../math/quat.js';
import { writeBox } from './boxes.js';
import type { ColliderContactsTarget, PlaneArrays, SphereContactsTarget, SphereLike } from './collider-contact-targets.js';
import { anchorCoupledContact } from './rigid-coupling.js';

${PLANE_TABLE.map(([name, slot, what]) => `/** ${what[0].toUpperCase()}${what.slice(1)}. */\nexport const ${name} = ${slot};`).join('\n')}

${chunkBoxes()}
${[generic, sphere, plane].map(contactLoop).join('\n')}`;
}
