/**
 * The contacts of a polyhedral manifold solved as a block (RigidContacts,
 * contact-set.ts): the up to four points of one pair's patch share the two
 * bodies, so the projection and the restitution solve the points of a
 * manifold together (block-solve.ts: one linearisation at the manifold's
 * poses, K Δλ = c with the points coupled through the shared bodies) and
 * move both bodies once per manifold, with their poses, inverse masses and
 * world inverse inertias in locals. Müller et al. 2020, §3.5 ("Handling
 * contacts and friction": eqs. 2–9 for the normal and the static friction
 * corrections) and §3.6 (eqs. 33–34, restitution) with the points of a
 * patch solved jointly instead of one after the other: the result does not
 * depend on the order in which the clipping lists the points.
 */
import { BC, BX, CA, CB, fillK, fillK4, KW, solveJoint, UA, UB } from './block-solve.js';
import { ContactStore, FACE, NF_CORES } from './contact-store.js';

export class ContactBlocks extends ContactStore {
  /**
   * At a manifold's first contact: one past its last contact; and whether
   * the manifold is a block (one pair, polyhedral points, a face normal).
   */
  protected mEnd = new Int32Array(0);
  protected block = new Uint8Array(0);

  /** Whether mEnd and block describe the contacts (they change with the step's narrow phase). */
  private known = false;
  private knownCount = 0;

  override clear(): void {
    this.known = false;
    super.clear();
  }

  override loadState(state: unknown): void {
    this.known = false;
    super.loadState(state);
  }

  /**
   * mEnd and block for this step's contacts, once per step (the manifolds
   * are contiguous runs of `first`). A block's points also share the
   * body-frame normal, so that beginStep turns it once per manifold.
   */
  protected manifolds(): void {
    const n = this.count;
    if (this.known && this.knownCount === n) return;
    this.known = true;
    this.knownCount = n;
    if (this.mEnd.length < n) {
      this.mEnd = new Int32Array(this.capacity);
      this.block = new Uint8Array(this.capacity);
    }
    for (let s = 0; s < n; ) {
      let e = s + 1;
      while (e < n && this.first[e] === s) e++;
      // a block has at most the four points of a reduced manifold (block-solve.ts solves 4 × 4)
      let ok = this.first[s] === s && e - s <= 4 ? 1 : 0;
      for (let k = s; k < e && ok; k++) {
        if (
          this.a[k] !== this.a[s] ||
          this.b[k] !== this.b[s] ||
          this.radA[k] !== 0 ||
          this.radB[k] !== 0 ||
          this.nf[k] === NF_CORES ||
          this.nf[k] !== this.nf[s] ||
          this.nL[3 * k] !== this.nL[3 * s] ||
          this.nL[3 * k + 1] !== this.nL[3 * s + 1] ||
          this.nL[3 * k + 2] !== this.nL[3 * s + 2]
        )
          ok = 0;
      }
      this.mEnd[s] = e;
      this.block[s] = ok;
      s = e;
    }
  }

  /**
   * The position-level projection of the polyhedral manifold [s, e), its
   * points solved jointly (block-solve.ts) at the poses the manifold starts
   * with: per point the penetration c along the face normal and the
   * tangential slip; the normal multipliers from K Δλ_n = c with Δλ_n ≥ 0
   * (Müller et al. 2020, §3.5, eq. 2 for K's diagonal, the points coupled
   * through the shared bodies); then static friction (§3.5: Δλ_t from the
   * slip, up to μ_s λ_n, body 2's anchor following when it slides) from the
   * same joint solve along each point's slip direction; and both corrections
   * applied together (eqs. 6–9): x ± Σ(Δλ_n n − Δλ_t t)/m,
   * q ← normalise(q ± ½ [Σ I⁻¹ (r × (Δλ_n n − Δλ_t t)), 0] q). Nothing depends
   * on the order in which the manifold lists its points. The world inverse
   * inertias are those taken at the sweep's start.
   */
  protected projectBlock(s: number, e: number): void {
    const r = this.rigids;
    const mov = this.materials.movable;
    const iw = this.iw;
    const rA = this.rA,
      rB = this.rB,
      nW = this.nW,
      lamN = this.lamN,
      lamT = this.lamT,
      muSs = this.muS;
    const ia = this.a[s],
      ib = this.b[s];
    const a3 = 3 * ia,
      a4 = 4 * ia;
    const movA = mov[ia] !== 0;
    let xax = r.x[a3],
      xay = r.x[a3 + 1],
      xaz = r.x[a3 + 2];
    const qax = r.q[a4],
      qay = r.q[a4 + 1],
      qaz = r.q[a4 + 2],
      qaw = r.q[a4 + 3];
    // the rotation matrix of body 2, once for the manifold's points (R r costs 15 flops, q r q⁻¹ about 30)
    const RA00 = 1 - 2 * (qay * qay + qaz * qaz),
      RA01 = 2 * (qax * qay - qaz * qaw),
      RA02 = 2 * (qax * qaz + qay * qaw),
      RA10 = 2 * (qax * qay + qaz * qaw),
      RA11 = 1 - 2 * (qax * qax + qaz * qaz),
      RA12 = 2 * (qay * qaz - qax * qaw),
      RA20 = 2 * (qax * qaz - qay * qaw),
      RA21 = 2 * (qay * qaz + qax * qaw),
      RA22 = 1 - 2 * (qax * qax + qay * qay);
    const ma = movA ? r.invMass[ia] : 0;
    const ao = 6 * ia;
    for (let c = 0; c < 6; c++) IWA[c] = iw[ao + c];
    let XB: Float64Array, QB: Float64Array, b3: number, b4: number, movB: boolean;
    if (ib >= 0) {
      XB = r.x;
      QB = r.q;
      b3 = 3 * ib;
      b4 = 4 * ib;
      movB = mov[ib] !== 0;
    } else {
      XB = this.cp.x;
      QB = this.cp.q;
      b3 = 3 * (-1 - ib);
      b4 = 4 * (-1 - ib);
      movB = false;
    }
    let xbx = XB[b3],
      xby = XB[b3 + 1],
      xbz = XB[b3 + 2];
    const qbx = QB[b4],
      qby = QB[b4 + 1],
      qbz = QB[b4 + 2],
      qbw = QB[b4 + 3];
    // the rotation matrix of body 2, once for the manifold's points (R r costs 15 flops, q r q⁻¹ about 30)
    const RB00 = 1 - 2 * (qby * qby + qbz * qbz),
      RB01 = 2 * (qbx * qby - qbz * qbw),
      RB02 = 2 * (qbx * qbz + qby * qbw),
      RB10 = 2 * (qbx * qby + qbz * qbw),
      RB11 = 1 - 2 * (qbx * qbx + qbz * qbz),
      RB12 = 2 * (qby * qbz - qbx * qbw),
      RB20 = 2 * (qbx * qbz - qby * qbw),
      RB21 = 2 * (qby * qbz + qbx * qbw),
      RB22 = 1 - 2 * (qbx * qbx + qby * qby);
    const mb = movB ? r.invMass[ib] : 0;
    const bo = movB ? 6 * ib : 0;
    for (let c = 0; c < 6; c++) IWB[c] = iw[bo + c];
    const modeA = leverMode(movA, IWA),
      modeB = leverMode(movB, IWB);
    const nx = nW[3 * s],
      ny = nW[3 * s + 1],
      nz = nW[3 * s + 2];
    const m = e - s;
    let use = 0,
      active = 0,
      last = 0;
    for (let j = 0; j < m; j++) {
      const k3 = 3 * (s + j),
        j3 = 3 * j;
      // the anchors at the current poses (ContactStore.anchors): s = x + R r (no round cores in a block)
      let vx = rA[k3],
        vy = rA[k3 + 1],
        vz = rA[k3 + 2];
      const lax = RA00 * vx + RA01 * vy + RA02 * vz,
        lay = RA10 * vx + RA11 * vy + RA12 * vz,
        laz = RA20 * vx + RA21 * vy + RA22 * vz;
      vx = rB[k3];
      vy = rB[k3 + 1];
      vz = rB[k3 + 2];
      const lbx = RB00 * vx + RB01 * vy + RB02 * vz,
        lby = RB10 * vx + RB11 * vy + RB12 * vz,
        lbz = RB20 * vx + RB21 * vy + RB22 * vz;
      LA[j3] = lax;
      LA[j3 + 1] = lay;
      LA[j3 + 2] = laz;
      LB[j3] = lbx;
      LB[j3 + 1] = lby;
      LB[j3 + 2] = lbz;
      // s₁ − s₂: its normal part is −c, its tangential part the slip
      const sx = xax + lax - (xbx + lbx),
        sy = xay + lay - (xby + lby),
        sz = xaz + laz - (xbz + lbz);
      const c = -(sx * nx + sy * ny + sz * nz);
      SL[j3] = sx + c * nx;
      SL[j3 + 1] = sy + c * ny;
      SL[j3 + 2] = sz + c * nz;
      BC[j] = c;
      if (c > 0) {
        use |= 1 << j;
        DIR[0] = nx;
        DIR[1] = ny;
        DIR[2] = nz;
        levers(j, modeA, modeB);
        last = j;
        active++;
      }
    }
    if (use === 0) return;
    if (active === 1) {
      // one point: eq. 2's Δλ_n = c/(w₁ + w₂)
      BX[0] = BX[1] = BX[2] = BX[3] = 0;
      const l3 = 3 * last;
      const w =
        ma +
        mb +
        (CA[l3] * UA[l3] + CA[l3 + 1] * UA[l3 + 1] + CA[l3 + 2] * UA[l3 + 2]) +
        (CB[l3] * UB[l3] + CB[l3 + 1] * UB[l3 + 1] + CB[l3 + 2] * UB[l3 + 2]);
      if (w > 0) BX[last] = BC[last] / w;
    } else {
      // the normal multipliers, jointly (eq. 2's w₁ + w₂ on K's diagonal), Δλ_n ≥ 0
      KW[0] = ma + mb;
      if (use === 15) fillK4();
      else fillK(m, use);
      solveJoint(m, use);
    }
    let fric = 0;
    for (let j = 0; j < m; j++) {
      const dl = BX[j];
      DLN[j] = dl;
      DLT[j] = 0;
      if (!(dl > 0)) continue;
      const k = s + j;
      lamN[k] += dl;
      this.lamNM[s] += dl;
      if (muSs[k] <= 0) continue;
      // static friction along the slip's direction t (the slip measured since the contact began)
      const j3 = 3 * j;
      const sx = SL[j3],
        sy = SL[j3 + 1],
        sz = SL[j3 + 2];
      const ct = Math.sqrt(sx * sx + sy * sy + sz * sz);
      if (!(ct > 1e-15)) continue;
      TD[j3] = sx / ct;
      TD[j3 + 1] = sy / ct;
      TD[j3 + 2] = sz / ct;
      CT[j] = ct;
      fric |= 1 << j;
    }
    if (fric !== 0) {
      for (let j = 0; j < m; j++) {
        if (!(fric & (1 << j))) continue;
        const j3 = 3 * j;
        DIR[0] = TD[j3];
        DIR[1] = TD[j3 + 1];
        DIR[2] = TD[j3 + 2];
        leversT(j, modeA, modeB);
      }
      // the points' corrections averaged over the patch (a Jacobi step: each point's Δλ_t = |slip|/(w₁ + w₂)
      // along its own slip, divided by the number of slipping points, so that a slip the points share is
      // taken up once, not once per point); a joint solve along the points' differing slip directions is
      // ill-conditioned where a slip is tiny and its direction round-off, and the stack crept
      let nf = 0;
      for (let j = 0; j < m; j++) if (fric & (1 << j)) nf++;
      for (let j = 0; j < m; j++) {
        if (!(fric & (1 << j))) continue;
        const j3 = 3 * j;
        const w =
          ma +
          mb +
          CTA[j3] * UTA[j3] +
          CTA[j3 + 1] * UTA[j3 + 1] +
          CTA[j3 + 2] * UTA[j3 + 2] +
          CTB[j3] * UTB[j3] +
          CTB[j3 + 1] * UTB[j3 + 1] +
          CTB[j3 + 2] * UTB[j3 + 2];
        BX[j] = w > 0 ? CT[j] / (nf * w) : 0;
      }
      for (let j = 0; j < m; j++) {
        if (!(fric & (1 << j))) continue;
        const k = s + j,
          k3 = 3 * k,
          j3 = 3 * j;
        const dl2 = BX[j];
        if (!(dl2 > 0)) continue;
        const muS = muSs[k];
        let d2 = dl2;
        if (lamT[k] + dl2 >= muS * lamN[k]) {
          // sliding: as far as μ_s λ_n allows; body 2's anchor follows by the rest of the slip
          d2 = Math.max(0, muS * lamN[k] - lamT[k]);
          const f = 1 - d2 / dl2;
          const fx = f * SL[j3],
            fy = f * SL[j3 + 1],
            fz = f * SL[j3 + 2];
          // rB += R₂ᵀ (f slip) (ContactStore's reanchor)
          rB[k3] += RB00 * fx + RB10 * fy + RB20 * fz;
          rB[k3 + 1] += RB01 * fx + RB11 * fy + RB21 * fz;
          rB[k3 + 2] += RB02 * fx + RB12 * fy + RB22 * fz;
          if (!(d2 > 0)) continue;
        }
        lamT[k] += d2;
        DLT[j] = d2;
      }
    }
    // both corrections at once (ContactStore.moveBoth), body 1 by +, body 2 by −: the sums over the points
    let px = 0,
      py = 0,
      pz = 0,
      hax = 0,
      hay = 0,
      haz = 0,
      hbx = 0,
      hby = 0,
      hbz = 0;
    for (let j = 0; j < m; j++) {
      const dn = DLN[j],
        dt = DLT[j];
      if (!(dn > 0)) continue;
      const j3 = 3 * j;
      px += dn * nx;
      py += dn * ny;
      pz += dn * nz;
      hax += dn * UA[j3];
      hay += dn * UA[j3 + 1];
      haz += dn * UA[j3 + 2];
      hbx += dn * UB[j3];
      hby += dn * UB[j3 + 1];
      hbz += dn * UB[j3 + 2];
      if (dt > 0) {
        px -= dt * TD[j3];
        py -= dt * TD[j3 + 1];
        pz -= dt * TD[j3 + 2];
        hax -= dt * UTA[j3];
        hay -= dt * UTA[j3 + 1];
        haz -= dt * UTA[j3 + 2];
        hbx -= dt * UTB[j3];
        hby -= dt * UTB[j3 + 1];
        hbz -= dt * UTB[j3 + 2];
      }
    }
    if (movA) {
      xax += ma * px;
      xay += ma * py;
      xaz += ma * pz;
      const hx = 0.5 * hax,
        hy = 0.5 * hay,
        hz = 0.5 * haz;
      const ox = qax + (hx * qaw + hy * qaz - hz * qay),
        oy = qay + (hy * qaw + hz * qax - hx * qaz),
        oz = qaz + (hz * qaw + hx * qay - hy * qax),
        ow = qaw - (hx * qax + hy * qay + hz * qaz);
      const inv = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
      r.x[a3] = xax;
      r.x[a3 + 1] = xay;
      r.x[a3 + 2] = xaz;
      r.q[a4] = ox * inv;
      r.q[a4 + 1] = oy * inv;
      r.q[a4 + 2] = oz * inv;
      r.q[a4 + 3] = ow * inv;
    }
    if (movB) {
      xbx -= mb * px;
      xby -= mb * py;
      xbz -= mb * pz;
      const hx = -0.5 * hbx,
        hy = -0.5 * hby,
        hz = -0.5 * hbz;
      const ox = qbx + (hx * qbw + hy * qbz - hz * qby),
        oy = qby + (hy * qbw + hz * qbx - hx * qbz),
        oz = qbz + (hz * qbw + hx * qby - hy * qbx),
        ow = qbw - (hx * qbx + hy * qby + hz * qbz);
      const inv = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
      XB[b3] = xbx;
      XB[b3 + 1] = xby;
      XB[b3 + 2] = xbz;
      QB[b4] = ox * inv;
      QB[b4 + 1] = oy * inv;
      QB[b4 + 2] = oz * inv;
      QB[b4 + 3] = ow * inv;
    }
  }

  /**
   * The velocity pass's restitution of the polyhedral manifold [s, e)
   * (RigidContacts.endStep, operation for operation): at each point that
   * acted in the projection (λ_n > 0), with the relative velocity v at the
   * contact, Δv_n = −v_n + max(−e ṽ_n, 0) (e = 0 when |ṽ_n| ≤ `restLimit`),
   * applied as the impulse Δv_n/(w₁ + w₂) along n; the points' midpoints
   * and λ_t gather in `face` for faceFriction. The poses do not change in this pass;
   * the velocities of both bodies stay in locals for the manifold.
   */
  protected restitutionBlock(s: number, e: number): void {
    const h = PASS[0],
      restLimit = PASS[1];
    const r = this.rigids;
    const mov = this.materials.movable;
    const iw = this.iw;
    const rA = this.rA,
      rB = this.rB,
      nW = this.nW,
      lamN = this.lamN,
      lamT = this.lamT,
      face = this.face;
    const ia = this.a[s],
      ib = this.b[s];
    const a3 = 3 * ia,
      a4 = 4 * ia;
    const movA = mov[ia] !== 0;
    const xax = r.x[a3],
      xay = r.x[a3 + 1],
      xaz = r.x[a3 + 2];
    const qax = r.q[a4],
      qay = r.q[a4 + 1],
      qaz = r.q[a4 + 2],
      qaw = r.q[a4 + 3];
    // the rotation matrix of body 2, once for the manifold's points (R r costs 15 flops, q r q⁻¹ about 30)
    const RA00 = 1 - 2 * (qay * qay + qaz * qaz),
      RA01 = 2 * (qax * qay - qaz * qaw),
      RA02 = 2 * (qax * qaz + qay * qaw),
      RA10 = 2 * (qax * qay + qaz * qaw),
      RA11 = 1 - 2 * (qax * qax + qaz * qaz),
      RA12 = 2 * (qay * qaz - qax * qaw),
      RA20 = 2 * (qax * qaz - qay * qaw),
      RA21 = 2 * (qay * qaz + qax * qaw),
      RA22 = 1 - 2 * (qax * qax + qay * qay);
    let vax = r.v[a3],
      vay = r.v[a3 + 1],
      vaz = r.v[a3 + 2],
      oax = r.omega[a3],
      oay = r.omega[a3 + 1],
      oaz = r.omega[a3 + 2];
    const ma = r.invMass[ia];
    const ao = 6 * ia;
    const A0 = iw[ao],
      A1 = iw[ao + 1],
      A2 = iw[ao + 2],
      A3 = iw[ao + 3],
      A4 = iw[ao + 4],
      A5 = iw[ao + 5];
    // a diagonal world inverse inertia (equal principal moments): no products of inertia to multiply by 0
    const diagA = A3 === 0 && A4 === 0 && A5 === 0;
    let XB: Float64Array, QB: Float64Array, VB: Float64Array, OB: Float64Array;
    let b3: number, b4: number, movB: boolean;
    if (ib >= 0) {
      XB = r.x;
      QB = r.q;
      VB = r.v;
      OB = r.omega;
      b3 = 3 * ib;
      b4 = 4 * ib;
      movB = mov[ib] !== 0;
    } else {
      XB = this.cp.x;
      QB = this.cp.q;
      VB = this.cp.v;
      OB = this.cp.w;
      b3 = 3 * (-1 - ib);
      b4 = 4 * (-1 - ib);
      movB = false;
    }
    const xbx = XB[b3],
      xby = XB[b3 + 1],
      xbz = XB[b3 + 2];
    const qbx = QB[b4],
      qby = QB[b4 + 1],
      qbz = QB[b4 + 2],
      qbw = QB[b4 + 3];
    // the rotation matrix of body 2, once for the manifold's points (R r costs 15 flops, q r q⁻¹ about 30)
    const RB00 = 1 - 2 * (qby * qby + qbz * qbz),
      RB01 = 2 * (qbx * qby - qbz * qbw),
      RB02 = 2 * (qbx * qbz + qby * qbw),
      RB10 = 2 * (qbx * qby + qbz * qbw),
      RB11 = 1 - 2 * (qbx * qbx + qbz * qbz),
      RB12 = 2 * (qby * qbz - qbx * qbw),
      RB20 = 2 * (qbx * qbz - qby * qbw),
      RB21 = 2 * (qby * qbz + qbx * qbw),
      RB22 = 1 - 2 * (qbx * qbx + qby * qby);
    let vbx = VB[b3],
      vby = VB[b3 + 1],
      vbz = VB[b3 + 2],
      obx = OB[b3],
      oby = OB[b3 + 1],
      obz = OB[b3 + 2];
    const mb = movB ? r.invMass[ib] : 0;
    const bo = movB ? 6 * ib : 0;
    const B0 = iw[bo],
      B1 = iw[bo + 1],
      B2 = iw[bo + 2],
      B3 = iw[bo + 3],
      B4 = iw[bo + 4],
      B5 = iw[bo + 5];
    const diagB = B3 === 0 && B4 === 0 && B5 === 0;
    // the face's sums for faceFriction, in locals (face[] is 0 for this manifold when the pass starts)
    let fcx = 0,
      fcy = 0,
      fcz = 0,
      acted = 0,
      lastK = 0,
      sumT = 0;
    for (let k = s; k < e; k++) {
      if (lamN[k] <= 0) continue;
      const k3 = 3 * k;
      const nx = nW[k3],
        ny = nW[k3 + 1],
        nz = nW[k3 + 2];
      // the levers R r (a block has no round cores)
      let vx = rA[k3],
        vy = rA[k3 + 1],
        vz = rA[k3 + 2];
      const lax = RA00 * vx + RA01 * vy + RA02 * vz,
        lay = RA10 * vx + RA11 * vy + RA12 * vz,
        laz = RA20 * vx + RA21 * vy + RA22 * vz;
      vx = rB[k3];
      vy = rB[k3 + 1];
      vz = rB[k3 + 2];
      const lbx = RB00 * vx + RB01 * vy + RB02 * vz,
        lby = RB10 * vx + RB11 * vy + RB12 * vz,
        lbz = RB20 * vx + RB21 * vy + RB22 * vz;
      // the face's centroid for faceFriction
      fcx += 0.5 * (xax + lax + (xbx + lbx));
      fcy += 0.5 * (xay + lay + (xby + lby));
      fcz += 0.5 * (xaz + laz + (xbz + lbz));
      acted++;
      lastK = k;
      sumT += lamT[k];
      // relative velocity at the contact (collider-poses.ts's relativeVelocity)
      let rvx = vax + (oay * laz - oaz * lay),
        rvy = vay + (oaz * lax - oax * laz),
        rvz = vaz + (oax * lay - oay * lax);
      rvx -= vbx + (oby * lbz - obz * lby);
      rvy -= vby + (obz * lbx - obx * lbz);
      rvz -= vbz + (obx * lby - oby * lbx);
      // restitution: Δv_n = −v_n + max(−e ṽ_n, 0), the impulse Δv_n / (w₁ + w₂) along n
      const vn = rvx * nx + rvy * ny + rvz * nz;
      const v0 = this.vn0[k];
      const el = Math.abs(v0) <= restLimit ? 0 : this.rest[k];
      const dn = -vn + Math.max(-el * v0, 0);
      let wa = 0,
        wb = 0,
        uax = 0,
        uay = 0,
        uaz = 0,
        ubx = 0,
        uby = 0,
        ubz = 0;
      if (movA) {
        const cx = lay * nz - laz * ny,
          cy = laz * nx - lax * nz,
          cz = lax * ny - lay * nx;
        if (diagA) {
          uax = A0 * cx;
          uay = A1 * cy;
          uaz = A2 * cz;
        } else {
          uax = A0 * cx + A3 * cy + A4 * cz;
          uay = A3 * cx + A1 * cy + A5 * cz;
          uaz = A4 * cx + A5 * cy + A2 * cz;
        }
        wa = ma + cx * uax + cy * uay + cz * uaz;
      }
      if (movB) {
        const cx = lby * nz - lbz * ny,
          cy = lbz * nx - lbx * nz,
          cz = lbx * ny - lby * nx;
        if (diagB) {
          ubx = B0 * cx;
          uby = B1 * cy;
          ubz = B2 * cz;
        } else {
          ubx = B0 * cx + B3 * cy + B4 * cz;
          uby = B3 * cx + B1 * cy + B5 * cz;
          ubz = B4 * cx + B5 * cy + B2 * cz;
        }
        wb = mb + cx * ubx + cy * uby + cz * ubz;
      }
      const w = wa + wb;
      if (!(w > 0)) continue;
      const pn = dn / w;
      if (pn > 0) this.lamNM[s] += h * pn;
      if (dn !== 0) {
        if (movA) {
          const p = 1 * pn;
          const wl = p * ma;
          vax += wl * nx;
          vay += wl * ny;
          vaz += wl * nz;
          oax += p * uax;
          oay += p * uay;
          oaz += p * uaz;
        }
        if (movB) {
          const p = -1 * pn;
          const wl = p * mb;
          vbx += wl * nx;
          vby += wl * ny;
          vbz += wl * nz;
          obx += p * ubx;
          oby += p * uby;
          obz += p * ubz;
        }
      }
    }
    const f = FACE * s;
    face[f] = fcx;
    face[f + 1] = fcy;
    face[f + 2] = fcz;
    face[f + 3] = acted;
    face[f + 4] = lastK;
    face[f + 5] = sumT;
    if (movA) {
      r.v[a3] = vax;
      r.v[a3 + 1] = vay;
      r.v[a3 + 2] = vaz;
      r.omega[a3] = oax;
      r.omega[a3 + 1] = oay;
      r.omega[a3 + 2] = oaz;
    }
    if (movB) {
      VB[b3] = vbx;
      VB[b3 + 1] = vby;
      VB[b3 + 2] = vbz;
      OB[b3] = obx;
      OB[b3 + 1] = oby;
      OB[b3 + 2] = obz;
    }
  }
}

/**
 * The velocity pass's substep h (0) and resting limit 2|g|h (1), for restitutionBlock and
 * faceFriction: set once per pass, not passed per manifold (a call's floating-point argument,
 * where the call is not inlined, is a heap number allocated per call).
 */
export const PASS = new Float64Array(2);

/** Per point of a block (≤ 4): the levers of both sides (world), the slip, the friction direction and amount. */
const LA = new Float64Array(12);
const LB = new Float64Array(12);
const SL = new Float64Array(12);
const TD = new Float64Array(12);
const CT = new Float64Array(4);
/**
 * The static friction's r × t and I⁻¹ (r × t) of both sides, per point (leversT; the normal's stay in
 * CA … UB, block-solve.ts, for the correction).
 */
const CTA = new Float64Array(12);
const UTA = new Float64Array(12);
const CTB = new Float64Array(12);
const UTB = new Float64Array(12);
/** The normal and tangential multipliers of a block's points in this projection. */
const DLN = new Float64Array(4);
const DLT = new Float64Array(4);
/** Both sides' world inverse inertias (xx, yy, zz, xy, xz, yz). */
const IWA = new Float64Array(6);
const IWB = new Float64Array(6);

/**
 * The direction d of levers (its doubles passed through this array, not as arguments: projectBlock
 * is too large for them to be inlined, and a call's double argument is a heap number allocated per call (120 kB
 * per frame of the 55-box pyramid at 7 substeps, all of projectBlock's garbage).
 */
const DIR = new Float64Array(3);

/**
 * How a side's levers are taken (lever): it does not move (0), its world inverse inertia is a full
 * tensor (1), or diagonal (2: equal principal moments, worldInverseInertia's a E, and no product
 * of inertia to multiply by 0).
 */
function leverMode(mov: boolean, IW: Float64Array): number {
  if (!mov) return 0;
  return IW[3] === 0 && IW[4] === 0 && IW[5] === 0 ? 2 : 1;
}

/** CA, UA (and CB, UB) of point j for the direction DIR[0..2]: r × d and I⁻¹ (r × d), zero for a side that does not move. */
function levers(j: number, modeA: number, modeB: number): void {
  lever(LA, IWA, CA, UA, 3 * j, modeA);
  lever(LB, IWB, CB, UB, 3 * j, modeB);
}

/** levers for static friction's direction DIR[0..2], into CTA, UTA (and CTB, UTB). */
function leversT(j: number, modeA: number, modeB: number): void {
  lever(LA, IWA, CTA, UTA, 3 * j, modeA);
  lever(LB, IWB, CTB, UTB, 3 * j, modeB);
}

/** One side of levers: C[o …] ← L[o …] × d and U[o …] ← I⁻¹ C[o …] (IW: xx, yy, zz, xy, xz, yz; d = DIR), or 0 (leverMode). */
function lever(
  L: Float64Array,
  IW: Float64Array,
  C: Float64Array,
  U: Float64Array,
  o: number,
  mode: number,
): void {
  if (mode === 0) {
    C[o] = C[o + 1] = C[o + 2] = 0;
    U[o] = U[o + 1] = U[o + 2] = 0;
    return;
  }
  const dx = DIR[0],
    dy = DIR[1],
    dz = DIR[2];
  const lx = L[o],
    ly = L[o + 1],
    lz = L[o + 2];
  const cx = ly * dz - lz * dy,
    cy = lz * dx - lx * dz,
    cz = lx * dy - ly * dx;
  C[o] = cx;
  C[o + 1] = cy;
  C[o + 2] = cz;
  if (mode === 2) {
    U[o] = IW[0] * cx;
    U[o + 1] = IW[1] * cy;
    U[o + 2] = IW[2] * cz;
    return;
  }
  U[o] = IW[0] * cx + IW[3] * cy + IW[4] * cz;
  U[o + 1] = IW[3] * cx + IW[1] * cy + IW[5] * cz;
  U[o + 2] = IW[4] * cx + IW[5] * cy + IW[2] * cz;
}
