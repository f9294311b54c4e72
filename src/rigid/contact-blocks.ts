/**
 * The contacts of a polyhedral manifold solved as a block (RigidContacts,
 * contact-set.ts): the up to four points of one pair's patch share the two
 * bodies, so their Gauss–Seidel projection keeps both bodies' poses, inverse
 * masses and world inverse inertias in locals for the whole manifold and
 * writes them back once, instead of loading and storing them through the
 * store's arrays and the contact's scratch vectors at every point. The
 * arithmetic is RigidContacts.project's for a polyhedral contact, operation
 * for operation (Müller et al. 2020, "Handling contacts and friction":
 * eqs. 2–9 for the normal and the static friction corrections), so the
 * results are the same to the bit.
 */
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
      let ok = this.first[s] === s ? 1 : 0;
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
   * The position-level projection of the polyhedral manifold [s, e) (in
   * reverse when `rev`): per point, the penetration d along the face normal,
   * Δλ_n = d/(w₁ + w₂), then static friction on the poses before that
   * correction (the slip's tangential part, Δλ_t = |slip|/(w₁ + w₂) up to
   * μ_s λ_n, body 2's anchor following when it slides), and both
   * corrections applied together: x ± (Δλ_n n − Δλ_t t)/m,
   * q ← normalise(q ± ½ [I⁻¹ (r × (Δλ_n n − Δλ_t t)), 0] q). The world
   * inverse inertias are those taken at the sweep's start.
   */
  protected projectBlock(s: number, e: number, rev: boolean): void {
    const r = this.rigids;
    const mov = this.materials.movable;
    const iw = this.iw;
    const rA = this.rA,
      rB = this.rB,
      nW = this.nW,
      radA = this.radA,
      radB = this.radB,
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
    let qax = r.q[a4],
      qay = r.q[a4 + 1],
      qaz = r.q[a4 + 2],
      qaw = r.q[a4 + 3];
    const ma = r.invMass[ia];
    const ao = 6 * ia;
    const A0 = iw[ao],
      A1 = iw[ao + 1],
      A2 = iw[ao + 2],
      A3 = iw[ao + 3],
      A4 = iw[ao + 4],
      A5 = iw[ao + 5];
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
    let qbx = QB[b4],
      qby = QB[b4 + 1],
      qbz = QB[b4 + 2],
      qbw = QB[b4 + 3];
    const mb = movB ? r.invMass[ib] : 0;
    const bo = movB ? 6 * ib : 0;
    const B0 = iw[bo],
      B1 = iw[bo + 1],
      B2 = iw[bo + 2],
      B3 = iw[bo + 3],
      B4 = iw[bo + 4],
      B5 = iw[bo + 5];
    // I⁻¹ (r × d) of each side from the last generalized inverse mass (as U in contact-store.ts)
    let uax = 0,
      uay = 0,
      uaz = 0,
      ubx = 0,
      uby = 0,
      ubz = 0;
    const m = e - s;
    for (let j = 0; j < m; j++) {
      const k = rev ? e - 1 - j : s + j;
      const k3 = 3 * k;
      const nx = nW[k3],
        ny = nW[k3 + 1],
        nz = nW[k3 + 2];
      // the anchors at the current poses (ContactStore.anchors): s = x + R r − rad n
      let vx = rA[k3],
        vy = rA[k3 + 1],
        vz = rA[k3 + 2];
      let tx = 2 * (qay * vz - qaz * vy),
        ty = 2 * (qaz * vx - qax * vz),
        tz = 2 * (qax * vy - qay * vx);
      const ra = radA[k],
        rb = radB[k];
      const lax = vx + qaw * tx + (qay * tz - qaz * ty) - ra * nx,
        lay = vy + qaw * ty + (qaz * tx - qax * tz) - ra * ny,
        laz = vz + qaw * tz + (qax * ty - qay * tx) - ra * nz;
      const pax = xax + lax,
        pay = xay + lay,
        paz = xaz + laz;
      vx = rB[k3];
      vy = rB[k3 + 1];
      vz = rB[k3 + 2];
      tx = 2 * (qby * vz - qbz * vy);
      ty = 2 * (qbz * vx - qbx * vz);
      tz = 2 * (qbx * vy - qby * vx);
      const lbx = vx + qbw * tx + (qby * tz - qbz * ty) + rb * nx,
        lby = vy + qbw * ty + (qbz * tx - qbx * tz) + rb * ny,
        lbz = vz + qbw * tz + (qbx * ty - qby * tx) + rb * nz;
      const pbx = xbx + lbx,
        pby = xby + lby,
        pbz = xbz + lbz;
      const d = (pbx - pax) * nx + (pby - pay) * ny + (pbz - paz) * nz;
      if (d <= 0) continue;
      // generalized inverse masses along n (eq. 2)
      let wa = 0,
        wb = 0;
      if (movA) {
        const cx = lay * nz - laz * ny,
          cy = laz * nx - lax * nz,
          cz = lax * ny - lay * nx;
        uax = A0 * cx + A3 * cy + A4 * cz;
        uay = A3 * cx + A1 * cy + A5 * cz;
        uaz = A4 * cx + A5 * cy + A2 * cz;
        wa = ma + cx * uax + cy * uay + cz * uaz;
      }
      if (movB) {
        const cx = lby * nz - lbz * ny,
          cy = lbz * nx - lbx * nz,
          cz = lbx * ny - lby * nx;
        ubx = B0 * cx + B3 * cy + B4 * cz;
        uby = B3 * cx + B1 * cy + B5 * cz;
        ubz = B4 * cx + B5 * cy + B2 * cz;
        wb = mb + cx * ubx + cy * uby + cz * ubz;
      }
      const w = wa + wb;
      if (w <= 0) continue;
      const dl = d / w;
      lamN[k] += dl;
      this.lamNM[s] += dl;
      const una_x = uax,
        una_y = uay,
        una_z = uaz,
        unb_x = ubx,
        unb_y = uby,
        unb_z = ubz;
      // static friction (RigidContacts.staticFriction for polyhedra): the direction and I⁻¹ (r × t)
      // stay n's and the normal's unless the slip sets them
      let dx = nx,
        dy = ny,
        dz = nz;
      let dt = 0;
      const muS = muSs[k];
      if (muS > 0) {
        let sx = pax - pbx,
          sy = pay - pby,
          sz = paz - pbz;
        const dn = sx * nx + sy * ny + sz * nz;
        sx -= dn * nx;
        sy -= dn * ny;
        sz -= dn * nz;
        const ct = Math.sqrt(sx * sx + sy * sy + sz * sz);
        if (ct > 1e-15) {
          dx = sx / ct;
          dy = sy / ct;
          dz = sz / ct;
          wa = 0;
          wb = 0;
          if (movA) {
            const cx = lay * dz - laz * dy,
              cy = laz * dx - lax * dz,
              cz = lax * dy - lay * dx;
            uax = A0 * cx + A3 * cy + A4 * cz;
            uay = A3 * cx + A1 * cy + A5 * cz;
            uaz = A4 * cx + A5 * cy + A2 * cz;
            wa = ma + cx * uax + cy * uay + cz * uaz;
          }
          if (movB) {
            const cx = lby * dz - lbz * dy,
              cy = lbz * dx - lbx * dz,
              cz = lbx * dy - lby * dx;
            ubx = B0 * cx + B3 * cy + B4 * cz;
            uby = B3 * cx + B1 * cy + B5 * cz;
            ubz = B4 * cx + B5 * cy + B2 * cz;
            wb = mb + cx * ubx + cy * uby + cz * ubz;
          }
          const wt = wa + wb;
          if (wt > 0) {
            const dl2 = ct / wt;
            let d2 = dl2;
            let ok = true;
            if (lamT[k] + dl2 >= muS * lamN[k]) {
              // sliding: as far as μ_s λ_n allows; body 2's anchor follows by the rest of the slip
              d2 = Math.max(0, muS * lamN[k] - lamT[k]);
              const f = 1 - d2 / dl2;
              const fx = f * sx,
                fy = f * sy,
                fz = f * sz;
              // rB += R₂ᵀ (f slip) (ContactStore's reanchor)
              const cx = -qbx,
                cy = -qby,
                cz = -qbz;
              const gx = 2 * (cy * fz - cz * fy),
                gy = 2 * (cz * fx - cx * fz),
                gz = 2 * (cx * fy - cy * fx);
              rB[k3] += fx + qbw * gx + (cy * gz - cz * gy);
              rB[k3 + 1] += fy + qbw * gy + (cz * gx - cx * gz);
              rB[k3 + 2] += fz + qbw * gz + (cx * gy - cy * gx);
              if (!(d2 > 0)) ok = false;
            }
            if (ok) {
              lamT[k] += d2;
              dt = d2;
            }
          }
        }
      }
      // both corrections at once (ContactStore.moveBoth), body 1 by +, body 2 by −
      if (movA) {
        const dn = 1 * dl,
          ts = -1 * dt;
        xax += ma * (dn * nx + ts * dx);
        xay += ma * (dn * ny + ts * dy);
        xaz += ma * (dn * nz + ts * dz);
        const hx = 0.5 * (dn * una_x + ts * uax),
          hy = 0.5 * (dn * una_y + ts * uay),
          hz = 0.5 * (dn * una_z + ts * uaz);
        const ox = qax + (hx * qaw + hy * qaz - hz * qay),
          oy = qay + (hy * qaw + hz * qax - hx * qaz),
          oz = qaz + (hz * qaw + hx * qay - hy * qax),
          ow = qaw - (hx * qax + hy * qay + hz * qaz);
        const inv = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
        qax = ox * inv;
        qay = oy * inv;
        qaz = oz * inv;
        qaw = ow * inv;
      }
      if (movB) {
        const dn = -1 * dl,
          ts = 1 * dt;
        xbx += mb * (dn * nx + ts * dx);
        xby += mb * (dn * ny + ts * dy);
        xbz += mb * (dn * nz + ts * dz);
        const hx = 0.5 * (dn * unb_x + ts * ubx),
          hy = 0.5 * (dn * unb_y + ts * uby),
          hz = 0.5 * (dn * unb_z + ts * ubz);
        const ox = qbx + (hx * qbw + hy * qbz - hz * qby),
          oy = qby + (hy * qbw + hz * qbx - hx * qbz),
          oz = qbz + (hz * qbw + hx * qby - hy * qbx),
          ow = qbw - (hx * qbx + hy * qby + hz * qbz);
        const inv = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
        qbx = ox * inv;
        qby = oy * inv;
        qbz = oz * inv;
        qbw = ow * inv;
      }
    }
    if (movA) {
      r.x[a3] = xax;
      r.x[a3 + 1] = xay;
      r.x[a3 + 2] = xaz;
      r.q[a4] = qax;
      r.q[a4 + 1] = qay;
      r.q[a4 + 2] = qaz;
      r.q[a4 + 3] = qaw;
    }
    if (movB) {
      XB[b3] = xbx;
      XB[b3 + 1] = xby;
      XB[b3 + 2] = xbz;
      QB[b4] = qbx;
      QB[b4 + 1] = qby;
      QB[b4 + 2] = qbz;
      QB[b4 + 3] = qbw;
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
  protected restitutionBlock(s: number, e: number, h: number, restLimit: number): void {
    const r = this.rigids;
    const mov = this.materials.movable;
    const iw = this.iw;
    const rA = this.rA,
      rB = this.rB,
      nW = this.nW,
      radA = this.radA,
      radB = this.radB,
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
    const f = FACE * s;
    for (let k = s; k < e; k++) {
      if (lamN[k] <= 0) continue;
      const k3 = 3 * k;
      const nx = nW[k3],
        ny = nW[k3 + 1],
        nz = nW[k3 + 2];
      let vx = rA[k3],
        vy = rA[k3 + 1],
        vz = rA[k3 + 2];
      let tx = 2 * (qay * vz - qaz * vy),
        ty = 2 * (qaz * vx - qax * vz),
        tz = 2 * (qax * vy - qay * vx);
      const ra = radA[k],
        rb = radB[k];
      const lax = vx + qaw * tx + (qay * tz - qaz * ty) - ra * nx,
        lay = vy + qaw * ty + (qaz * tx - qax * tz) - ra * ny,
        laz = vz + qaw * tz + (qax * ty - qay * tx) - ra * nz;
      vx = rB[k3];
      vy = rB[k3 + 1];
      vz = rB[k3 + 2];
      tx = 2 * (qby * vz - qbz * vy);
      ty = 2 * (qbz * vx - qbx * vz);
      tz = 2 * (qbx * vy - qby * vx);
      const lbx = vx + qbw * tx + (qby * tz - qbz * ty) + rb * nx,
        lby = vy + qbw * ty + (qbz * tx - qbx * tz) + rb * ny,
        lbz = vz + qbw * tz + (qbx * ty - qby * tx) + rb * nz;
      // the face's centroid for faceFriction
      face[f] += 0.5 * (xax + lax + (xbx + lbx));
      face[f + 1] += 0.5 * (xay + lay + (xby + lby));
      face[f + 2] += 0.5 * (xaz + laz + (xbz + lbz));
      face[f + 3]++;
      face[f + 4] = k;
      face[f + 5] += lamT[k];
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
        uax = A0 * cx + A3 * cy + A4 * cz;
        uay = A3 * cx + A1 * cy + A5 * cz;
        uaz = A4 * cx + A5 * cy + A2 * cz;
        wa = ma + cx * uax + cy * uay + cz * uaz;
      }
      if (movB) {
        const cx = lby * nz - lbz * ny,
          cy = lbz * nx - lbx * nz,
          cz = lbx * ny - lby * nx;
        ubx = B0 * cx + B3 * cy + B4 * cz;
        uby = B3 * cx + B1 * cy + B5 * cz;
        ubz = B4 * cx + B5 * cy + B2 * cz;
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
