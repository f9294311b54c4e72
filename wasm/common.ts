// Helpers shared by the paired kernels (inlined into each).

/** Lanes A, B of an f64x2 from p[iA] and p[iB] (byte address p, f64 indices). */
@inline export function ldv(p: usize, iA: i32, iB: i32): v128 {
  return f64x2.replace_lane(f64x2.splat(load<f64>(p + (<usize>iA << 3))), 1, load<f64>(p + (<usize>iB << 3)));
}

/** (a_x b_x + a_y b_y) + a_z b_z, lane by lane (the JavaScript kernels' order). */
@inline export function dot3(ax: v128, ay: v128, az: v128, bx: v128, by: v128, bz: v128): v128 {
  return f64x2.add(f64x2.add(f64x2.mul(ax, bx), f64x2.mul(ay, by)), f64x2.mul(az, bz));
}

/** Stores lane `lane` of (vx, vy, vz) at p[i … i + 2]. */
@inline export function put(p: usize, i: i32, lane: i32, vx: v128, vy: v128, vz: v128): void {
  const o = p + (<usize>i << 3);
  if (lane == 0) {
    store<f64>(o, f64x2.extract_lane(vx, 0)); store<f64>(o, f64x2.extract_lane(vy, 0), 8); store<f64>(o, f64x2.extract_lane(vz, 0), 16);
  } else {
    store<f64>(o, f64x2.extract_lane(vx, 1)); store<f64>(o, f64x2.extract_lane(vy, 1), 8); store<f64>(o, f64x2.extract_lane(vz, 1), 16);
  }
}
