/**
 * The rotation matrix of a unit quaternion, entry by entry, for the emitters that print it into
 * locals (emit-contact-blocks.ts: a rigid body's R; emit-rod-direct.ts: a rod segment's material
 * frame, R's columns d_1, d_2, d_3).
 */

/**
 * Entry (i, j) of R(q), the quaternion's components named q(0 … 3) (x, y, z, w):
 * 1 − 2(q_k² + q_l²) on the diagonal, 2(q_i q_j ∓ q_k w) off it (− where (i, j, k) is an even
 * permutation).
 */
export function rotationEntry(q: (c: number) => string, i: number, j: number): string {
  if (i === j) {
    const [a, b] = [0, 1, 2].filter((t) => t !== i);
    return `1 - 2 * (${q(a)} * ${q(a)} + ${q(b)} * ${q(b)})`;
  }
  const k = 3 - i - j;
  const sign = (j - i + 3) % 3 === 1 ? '-' : '+';
  return `2 * (${q(Math.min(i, j))} * ${q(Math.max(i, j))} ${sign} ${q(k)} * ${q(3)})`;
}

/**
 * The four components of the small turn of a unit quaternion q by the half rotation vector h
 * (Müller et al. 2020, eqs. 8–9, before the normalisation): q + [h, 0] q for a world-frame h
 * (`world`), q + q [h, 0] for a body-frame h; the components named q(0 … 3) (x, y, z, w) and
 * h(0 … 2). The vector part is q_v + h q_w + (a × b), (a, b) = (h, q_v) in the world frame and
 * (q_v, h) in the body frame; the scalar part q_w − h · q_v.
 */
export function turnEntries(q: (c: number) => string, h: (c: number) => string, world: boolean): string[] {
  const [l, r] = world ? [h, q] : [q, h];
  const v = [0, 1, 2].map(
    (i) =>
      `${q(i)} + (${h(i)} * ${q(3)} + ${l((i + 1) % 3)} * ${r((i + 2) % 3)} - ${l((i + 2) % 3)} * ${r((i + 1) % 3)})`,
  );
  return [...v, `${q(3)} - (${[0, 1, 2].map((i) => `${h(i)} * ${q(i)}`).join(' + ')})`];
}

/**
 * The module src/rigid/turn.generated.ts (before formatting): the rigid bodies' small turns of a
 * quaternion in place, normalised, printed from turnEntries: `turn` (a world-frame rotation vector
 * θ, halved here), `turnHalf` (a world-frame ½ θ), `turnBodyHalf` (a body-frame ½ θ).
 */
export function emitTurns(banner: string): string {
  const fn = (name: string, doc: string, half: boolean, world: boolean): string[] => {
    const h = (c: number): string => `h${'xyz'[c]}`;
    const Q = (c: number): string => `q${'xyzw'[c]}`;
    const args = half ? 'hx: number, hy: number, hz: number' : 'ax: number, ay: number, az: number';
    const e = turnEntries(Q, h, world);
    return [
      `/** ${doc} */`,
      `export function ${name}(q: Float64Array, o: number, ${args}): void {`,
      'const qx = q[o], qy = q[o + 1], qz = q[o + 2], qw = q[o + 3];',
      ...(half ? [] : ['const hx = 0.5 * ax, hy = 0.5 * ay, hz = 0.5 * az;']),
      `const ${['x', 'y', 'z', 'w'].map((c, i) => `n${c} = ${e[i]}`).join(', ')};`,
      'const inv = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);',
      ...['x', 'y', 'z', 'w'].map((c, i) => `q[${i ? `o + ${i}` : 'o'}] = n${c} * inv;`),
      '}',
      '',
    ];
  };
  return [
    banner,
    '// The small turns of a quaternion (Müller et al. 2020, eqs. 8–9); see turnEntries in scripts/kernels/emit-rotation.ts.',
    '',
    ...fn(
      'turn',
      'q ← normalise(q + ½ [θ, 0] q) for the small world-frame rotation vector θ (eqs. 8–9, and the angular corrections).',
      false,
      true,
    ),
    ...fn(
      'turnHalf',
      'q ← normalise(q + [h, 0] q) for the world-frame half rotation vector h = ½ θ.',
      true,
      true,
    ),
    ...fn(
      'turnBodyHalf',
      'q ← normalise(q + q [h, 0]) for the body-frame half rotation vector h = ½ θ (a turn computed in the body frame).',
      true,
      false,
    ),
  ].join('\n');
}
