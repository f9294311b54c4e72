/**
 * Cosserat rods on a strand body (Kugelstadt & Schömer 2016): the
 * material, the rest frames and rest Darboux vectors, the moments of
 * inertia of the segments, and the two constraint sets of
 * src/strands/cosserat.ts.
 *
 * Layout: strand s of the body holds particles [start[s], start[s + 1]);
 * segment j (particles j → j + 1) keeps its orientation in the orientation
 * channel of particle j, so the last particle of a strand carries a copy of
 * its last segment's orientation with infinite moments (it never turns and
 * no constraint reads it).
 *
 * Rest frames are parallel transported along each strand (the rotation
 * from one segment's tangent to the next is the smallest one), so a
 * straight rod starts untwisted and a helix or a curl gets the rest
 * Darboux vectors of its own curvature and torsion; the first frame's d_1
 * is the world axis least aligned with the first segment, made orthogonal
 * to it (or `normal`).
 */
import { PbdError, requirePositiveAs } from '../core/errors.js';
import type { Motion } from '../core/motion.js';
import type { ParticleStore } from '../core/particles.js';
import { quatFromMat3 } from '../math/polar.js';
import { quatMultiply, quatNormalize } from '../math/quat.js';
import { BendTwistConstraints } from './rod-bend-twist.js';
import type { AxisStiffness } from './rod-common.js';
import { DirectRodSolver } from './rod-direct.js';
import { StretchShearConstraints } from './rod-stretch-shear.js';

/** The material and cross-section of a Cosserat rod (SI units). */
export interface RodOptions {
  /** Young's modulus E (Pa): stretch E A and bending E I. */
  youngsModulus: number;
  /** Shear modulus G (Pa): shear κ_s G A and twist G J. Default E / (2 (1 + ν)). */
  shearModulus?: number;
  /** Poisson's ratio ν ∈ [0, 0.5], for the default shear modulus and the shear coefficient. Default 0.5. */
  poissonRatio?: number;
  /** Radius of the circular cross-section (m). Default: the strands' contact radius. */
  radius?: number;
  /** Density ρ (kg/m³): the linear density becomes ρ π r² (instead of the strands' linearDensity). */
  density?: number;
  /** Stretch and shear from the material (default); false makes them rigid (an inextensible thread). */
  extensible?: boolean;
  /** Kelvin–Voigt retardation time τ (s) of the material's internal damping. Default 0. */
  damping?: number;
  /** PBD stiffness k ∈ [0, 1] of both constraint types, for worlds with the 'pbd' rule. Default 1. */
  stiffness?: number;
  /**
   * Radius of gyration ρ_g (m) of each segment's orientation: its moment of
   * inertia is m ρ_g² (isotropic). Default: the segment's length. A solid
   * rod's cross-section has ρ_g² = r²/2 about its axis (r²/4 across), but
   * orientations that light make the Gauss–Seidel coupling of bending to
   * the positions converge orders of magnitude slower (docs/strands.md,
   * "Rotational inertia"); the heavier default adds rotary inertia felt only
   * at wavelengths of a few segments and leaves every equilibrium unchanged.
   */
  gyrationRadius?: number;
  /**
   * Clamp the rod's end at each pinned root (a cantilever's wall, hair in
   * the scalp): the frame of the end is held (moved by the roots' motion)
   * and joined to the first segment by a bend–twist joint of half a
   * segment. Default true.
   */
  clampRoots?: boolean;
  /**
   * The rest shape of bending and twist: 'initial' (default) keeps the
   * curvature and twist of the initial centreline (a helix, a curl);
   * 'straight' gives every joint the identity rest Darboux vector, so the
   * rod is straight and untwisted at rest whatever its initial shape (a
   * thread tied into a knot).
   */
  restShape?: 'initial' | 'straight';
  /**
   * How the rod's constraints are solved in each iteration: 'gauss-seidel'
   * (default) projects them one after another along the rod; 'direct'
   * solves the linearised system of all of them at once, exactly, in O(n)
   * (Deul et al. 2018; rod-direct.ts), so a load crosses the whole rod in
   * one iteration.
   */
  solver?: 'gauss-seidel' | 'direct';
  /** The first segment's material axis d_1 (made orthogonal to the segment). Default: the world axis least aligned with it. */
  normal?: [number, number, number];
}

/** The material stiffnesses of a circular rod of radius r. */
export interface RodStiffness {
  /** κ_s G A, κ_s G A, E A (N). */
  stretchShear: AxisStiffness;
  /** E I, E I, G J (N m²). */
  bendTwist: AxisStiffness;
}

/**
 * Stiffnesses of a solid circular cross-section of radius r: A = π r²,
 * I = π r⁴/4, J = π r⁴/2, and Cowper's shear coefficient for a solid
 * circle κ_s = 6(1 + ν)/(7 + 6ν).
 */
export function rodStiffness(o: RodOptions, r: number, where = 'rod'): RodStiffness {
  const E = o.youngsModulus;
  const nu = o.poissonRatio ?? 0.5;
  requirePositiveAs(
    E,
    'a positive pressure (Pa)',
    'rod/youngs-modulus',
    `${where}.youngsModulus`,
    'rubber is about 1e6 Pa, nylon suture about 2e9 Pa, steel 2e11 Pa',
  );
  if (!(nu >= 0 && nu <= 0.5)) {
    throw new PbdError('rod/poisson', `${where}.poissonRatio`, `must lie in [0, 0.5], got ${o.poissonRatio}`);
  }
  const G = o.shearModulus ?? E / (2 * (1 + nu));
  requirePositiveAs(G, 'a positive pressure (Pa)', 'rod/shear-modulus', `${where}.shearModulus`);
  requirePositiveAs(
    r,
    'a positive length (m)',
    'rod/radius',
    `${where}.radius`,
    "give the rod's cross-section a radius (rod.radius), or the strands a contact radius",
  );
  const A = Math.PI * r * r,
    I = (Math.PI * r ** 4) / 4,
    J = (Math.PI * r ** 4) / 2;
  const ks = (6 * (1 + nu)) / (7 + 6 * nu);
  const rigid = o.extensible === false;
  return {
    stretchShear: rigid ? [Infinity, Infinity, Infinity] : [ks * G * A, ks * G * A, E * A],
    bendTwist: [E * I, E * I, G * J],
  };
}

/**
 * Parallel-transported frames of the segments of each strand, into q
 * (4 per particle, body order): q[j] is segment j's orientation, the last
 * particle of a strand copies its last segment's.
 */
export function rodFrames(
  positions: ArrayLike<number>,
  start: Int32Array,
  normal?: readonly number[],
): Float64Array {
  const n = start[start.length - 1];
  const q = new Float64Array(4 * n);
  const t = [0, 0, 0],
    prev = [0, 0, 0],
    turn = [0, 0, 0, 1];
  for (let s = 0; s + 1 < start.length; s++) {
    const a = start[s],
      b = start[s + 1];
    for (let j = a; j + 1 < b; j++) {
      for (let k = 0; k < 3; k++) t[k] = positions[3 * (j + 1) + k] - positions[3 * j + k];
      const tl = Math.hypot(t[0], t[1], t[2]);
      for (let k = 0; k < 3; k++) t[k] /= tl;
      if (j === a) frameFromTangent(t, normal, q, 4 * j);
      else {
        // the smallest rotation carrying the previous tangent onto this one, then the previous frame
        const c = prev[0] * t[0] + prev[1] * t[1] + prev[2] * t[2];
        const cx = prev[1] * t[2] - prev[2] * t[1],
          cy = prev[2] * t[0] - prev[0] * t[2],
          cz = prev[0] * t[1] - prev[1] * t[0];
        let rx: number, ry: number, rz: number, rw: number;
        if (c > -1 + 1e-12) {
          // half-angle quaternion: (cross, 1 + cos), normalised
          rx = cx;
          ry = cy;
          rz = cz;
          rw = 1 + c;
        } else {
          // a full reversal: turn by π about the previous frame's d_1
          const i = 4 * (j - 1);
          const [qx, qy, qz, qw] = [q[i], q[i + 1], q[i + 2], q[i + 3]];
          rx = 1 - 2 * (qy * qy + qz * qz);
          ry = 2 * (qx * qy + qw * qz);
          rz = 2 * (qx * qz - qw * qy);
          rw = 0;
        }
        const rl = Math.hypot(rx, ry, rz, rw);
        turn[0] = rx / rl;
        turn[1] = ry / rl;
        turn[2] = rz / rl;
        turn[3] = rw / rl;
        // q_j = r q_{j−1}
        quatMultiply(q, 4 * j, turn, 0, q, 4 * (j - 1));
        quatNormalize(q, 4 * j);
      }
      prev[0] = t[0];
      prev[1] = t[1];
      prev[2] = t[2];
    }
    for (let k = 0; k < 4; k++) q[4 * (b - 1) + k] = q[4 * (b - 2) + k];
  }
  return q;
}

/** q[o..o+3] = the rotation whose d_3 is t and whose d_1 is `normal` (or a world axis) made orthogonal to t. */
function frameFromTangent(
  t: number[],
  normal: readonly number[] | undefined,
  q: Float64Array,
  o: number,
): void {
  let n: number[];
  if (normal) n = [normal[0], normal[1], normal[2]];
  else {
    // the world axis least aligned with t
    const ax = Math.abs(t[0]),
      ay = Math.abs(t[1]),
      az = Math.abs(t[2]);
    n = ax <= ay && ax <= az ? [1, 0, 0] : ay <= az ? [0, 1, 0] : [0, 0, 1];
  }
  const dot = n[0] * t[0] + n[1] * t[1] + n[2] * t[2];
  const d1 = [n[0] - dot * t[0], n[1] - dot * t[1], n[2] - dot * t[2]];
  const l1 = Math.hypot(d1[0], d1[1], d1[2]);
  if (!(l1 > 1e-9)) {
    throw new PbdError(
      'rod/normal',
      'rod.normal',
      'is parallel to the first segment',
      'give a normal across the rod, or leave it out',
    );
  }
  for (let k = 0; k < 3; k++) d1[k] /= l1;
  const d2 = [t[1] * d1[2] - t[2] * d1[1], t[2] * d1[0] - t[0] * d1[2], t[0] * d1[1] - t[1] * d1[0]];
  // the rotation with columns d1, d2, t (a Float64Array, as quatFromMat3's other callers pass),
  // normalised as quatNormalize does (the frames after it)
  const R = Float64Array.of(d1[0], d2[0], t[0], d1[1], d2[1], t[1], d1[2], d2[2], t[2]);
  quatFromMat3(q, o, R, 0, true);
}

/** The two constraint sets of the rods of a strand body, and what they were built from. */
export interface CosseratRodSets {
  stretchShear: StretchShearConstraints;
  bendTwist: BendTwistConstraints | null;
  /** With `solver: 'direct'`: the set that projects the two sets above (added after them). */
  direct: DirectRodSolver | null;
  stiffness: RodStiffness;
  radius: number;
}

/**
 * Gives the particles [off, off + n) of a strand body orientations (rest
 * frames), moments of inertia (I = m ρ_g² per segment, isotropic; infinite
 * for each strand's last particle) and builds the rod constraints over them.
 *
 * @param start       body-local strand starts (S + 1 entries)
 * @param positions   rest positions (body-local, xyz)
 * @param restLength  rest length of each particle to its predecessor
 * @param linearDensity mass per unit length (kg/m)
 */
export function buildCosseratRods(
  store: ParticleStore,
  off: number,
  start: Int32Array,
  positions: Float64Array,
  restLength: Float64Array,
  linearDensity: number,
  o: RodOptions,
  radius: number,
  where: string,
  clampRoots: { motion: Motion | null } | null = null,
): CosseratRodSets {
  const stiffness = rodStiffness(o, radius, where);
  const gyration = o.gyrationRadius;
  if (gyration !== undefined) {
    requirePositiveAs(
      gyration,
      'a positive length (m)',
      'rod/gyration-radius',
      `${where}.gyrationRadius`,
      "leave it out for the segments' length; the solid cross-section's is radius/√2",
    );
  }
  const n = start[start.length - 1];
  const q = rodFrames(positions, start, o.normal);
  store.addOrientations(off, n, { inertia: true });
  store.q.set(q, 4 * off);
  store.qp.set(q, 4 * off);
  const ns = start.length - 1;
  if (o.restShape !== undefined && o.restShape !== 'initial' && o.restShape !== 'straight') {
    throw new PbdError(
      'strands/rod',
      `${where}.restShape`,
      `must be 'initial' or 'straight', got ${String(o.restShape)}`,
    );
  }
  const straight = o.restShape === 'straight';
  const sa: number[] = [],
    sb: number[] = [],
    sq: number[] = [],
    sl: number[] = [];
  const ja: number[] = [],
    jb: number[] = [],
    jd: number[] = [],
    jl: number[] = [];
  for (let s = 0; s < ns; s++) {
    const a = start[s],
      b = start[s + 1];
    for (let j = a; j + 1 < b; j++) {
      const l = restLength[j + 1];
      const g = gyration ?? l;
      const I = linearDensity * l * g * g;
      store.setInertia(off + j, I, I, I);
      sa.push(off + j);
      sb.push(off + j + 1);
      sq.push(off + j);
      sl.push(l);
      if (j + 2 < b) {
        // Ω⁰ = q̄_j q_{j+1} of the rest frames
        const i = 4 * j,
          k = 4 * (j + 1);
        const qx = -q[i],
          qy = -q[i + 1],
          qz = -q[i + 2],
          qw = q[i + 3];
        const ux = q[k],
          uy = q[k + 1],
          uz = q[k + 2],
          uw = q[k + 3];
        if (straight) jd.push(0, 0, 0, 1);
        else
          jd.push(
            qw * ux + qx * uw + qy * uz - qz * uy,
            qw * uy - qx * uz + qy * uw + qz * ux,
            qw * uz + qx * uy - qy * ux + qz * uw,
            qw * uw - qx * ux - qy * uy - qz * uz,
          );
        ja.push(off + j);
        jb.push(off + j + 1);
        jl.push(0.5 * (l + restLength[j + 2]));
      }
    }
    store.setInertia(off + b - 1, Infinity, Infinity, Infinity);
  }
  const params = { stiffness: o.stiffness, damping: o.damping };
  const bendTwist =
    ja.length > 0 || clampRoots
      ? new BendTwistConstraints(
          { qa: ja, qb: jb, restDarboux: jd, jointLength: jl },
          stiffness.bendTwist,
          params,
          `${where}.bendTwist`,
        )
      : null;
  if (clampRoots && bendTwist) {
    // the clamped end: its rest frame is the first segment's (rest Darboux vector: identity)
    for (let s = 0; s < ns; s++) {
      const j = start[s];
      bendTwist.addAnchor(
        off + j,
        q.subarray(4 * j, 4 * j + 4),
        [0, 0, 0, 1],
        0.5 * restLength[j + 1],
        clampRoots.motion,
      );
    }
  }
  if (o.solver !== undefined && o.solver !== 'gauss-seidel' && o.solver !== 'direct') {
    throw new PbdError(
      'strands/rod',
      `${where}.solver`,
      `must be 'gauss-seidel' or 'direct', got ${String(o.solver)}`,
      "'direct' solves each rod's constraints together (stiffer per iteration); leave it out for Gauss–Seidel",
    );
  }
  const stretchShear = new StretchShearConstraints(
    { a: sa, b: sb, q: sq, rest: sl },
    stiffness.stretchShear,
    params,
    `${where}.stretchShear`,
  );
  return {
    stretchShear,
    bendTwist,
    direct: o.solver === 'direct' ? new DirectRodSolver(stretchShear, bendTwist, o.stiffness) : null,
    stiffness,
    radius,
  };
}
