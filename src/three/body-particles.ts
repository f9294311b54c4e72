import {
  BufferAttribute,
  BufferGeometry,
  Color,
  IcosahedronGeometry,
  InstancedMesh,
  type Material,
  MeshStandardMaterial,
  Points,
  ShaderMaterial,
} from 'three';
import { uploadFirst } from './attributes.js';
import { type BodySource, type StoreSource, storeOf, type WorldBodySource } from './sources.js';

export interface ParticleOptions {
  /** The particle store, when the body has no `world`. */
  store?: StoreSource;
  /** Radius drawn for particles whose contact radius is 0 (m). Default 0.01. */
  defaultRadius?: number;
  /** Colour of the particles. Default a light blue. */
  color?: number | string;
  /**
   * Colour each particle by its speed, from `slow` at rest to `fast` at
   * `maxSpeed` (m/s) and above (as position based fluids are usually shown).
   * Needs `store.v`. Instanced spheres only.
   */
  speedColors?: { slow: number | string; fast: number | string; maxSpeed: number };
}

/**
 * A body's particles as instanced spheres of their contact radius
 * (`store.radius`), lit and shadowed like any mesh. `update()` writes one
 * matrix per active particle straight into the instance buffer (scale and
 * translation; no Matrix4 objects) and uploads only that range.
 */
export class BodyParticles extends InstancedMesh {
  readonly body: BodySource;
  defaultRadius: number;
  private readonly store: StoreSource;
  private readonly speed: { slow: Color; fast: Color; maxSpeed: number } | null;

  constructor(body: BodySource | WorldBodySource, options: ParticleOptions & { material?: Material } = {}) {
    const capacity = Math.max(1, body.count);
    const sc = options.speedColors;
    super(
      new IcosahedronGeometry(1, 1),
      options.material ??
        new MeshStandardMaterial({ color: sc ? 0xffffff : (options.color ?? 0x6fa8dc), roughness: 0.45 }),
      capacity,
    );
    this.body = body;
    this.store = storeOf(body, options.store);
    this.defaultRadius = options.defaultRadius ?? 0.01;
    this.speed = sc ? { slow: new Color(sc.slow), fast: new Color(sc.fast), maxSpeed: sc.maxSpeed } : null;
    if (this.speed) this.setColorAt(0, this.speed.slow); // allocates instanceColor for every instance
    this.frustumCulled = false;
    this.update();
  }

  update(): void {
    const body = this.body;
    const n = Math.min(body.activeCount, body.count);
    const { x, radius } = this.store;
    const m = this.instanceMatrix.array as Float32Array;
    const off = body.offset;
    const r0 = this.defaultRadius;
    for (let i = 0; i < n; i++) {
      const g = off + i;
      const r = radius[g] > 0 ? radius[g] : r0;
      const k = 16 * i;
      m[k] = r;
      m[k + 1] = 0;
      m[k + 2] = 0;
      m[k + 3] = 0;
      m[k + 4] = 0;
      m[k + 5] = r;
      m[k + 6] = 0;
      m[k + 7] = 0;
      m[k + 8] = 0;
      m[k + 9] = 0;
      m[k + 10] = r;
      m[k + 11] = 0;
      m[k + 12] = x[3 * g];
      m[k + 13] = x[3 * g + 1];
      m[k + 14] = x[3 * g + 2];
      m[k + 15] = 1;
    }
    this.count = n;
    uploadFirst(this.instanceMatrix, 16 * n);
    const sp = this.speed;
    const v = this.store.v;
    if (sp && v && this.instanceColor) {
      const c = this.instanceColor.array as Float32Array;
      const { slow, fast } = sp;
      const inv = 1 / sp.maxSpeed;
      for (let i = 0; i < n; i++) {
        const g = 3 * (off + i);
        let t = Math.sqrt(v[g] * v[g] + v[g + 1] * v[g + 1] + v[g + 2] * v[g + 2]) * inv;
        if (t > 1) t = 1;
        c[3 * i] = slow.r + (fast.r - slow.r) * t;
        c[3 * i + 1] = slow.g + (fast.g - slow.g) * t;
        c[3 * i + 2] = slow.b + (fast.b - slow.b) * t;
      }
      uploadFirst(this.instanceColor, 3 * n);
    }
    this.boundingSphere = null;
    this.boundingBox = null;
  }
}

const spriteVertex = /* glsl */ `
attribute float radius;
uniform float scale;
varying vec3 vViewPosition;
void main() {
  vec4 mv = modelViewMatrix * vec4(position, 1.0);
  vViewPosition = mv.xyz;
  gl_Position = projectionMatrix * mv;
  gl_PointSize = max(1.0, scale * radius / -mv.z);
}`;

const spriteFragment = /* glsl */ `
uniform vec3 color;
uniform vec3 lightDirection;
varying vec3 vViewPosition;
void main() {
  vec2 q = 2.0 * gl_PointCoord - 1.0;
  float r2 = dot(q, q);
  if (r2 > 1.0) discard;
  vec3 n = vec3(q.x, -q.y, sqrt(1.0 - r2));
  float diffuse = max(dot(n, normalize(lightDirection)), 0.0);
  vec3 c = color * (0.35 + 0.65 * diffuse) + vec3(0.25) * pow(max(n.z, 0.0), 24.0);
  gl_FragColor = vec4(c, 1.0);
  #include <colorspace_fragment>
}`;

/**
 * A body's particles as point sprites shaded like spheres (cheap enough for
 * fluids with tens of thousands of particles). Shares nothing with the
 * store: `update()` converts the active range of positions and radii to
 * Float32 and uploads only that range.
 */
export class BodyPoints extends Points<BufferGeometry, ShaderMaterial> {
  readonly body: BodySource;
  defaultRadius: number;
  private readonly store: StoreSource;
  private readonly positionArray: Float32Array;
  private readonly radiusArray: Float32Array;

  constructor(body: BodySource | WorldBodySource, options: ParticleOptions = {}) {
    const n = Math.max(1, body.count);
    const geometry = new BufferGeometry();
    const positionArray = new Float32Array(3 * n);
    const radiusArray = new Float32Array(n);
    geometry.setAttribute('position', new BufferAttribute(positionArray, 3));
    geometry.setAttribute('radius', new BufferAttribute(radiusArray, 1));
    const material = new ShaderMaterial({
      uniforms: {
        color: { value: new Color(options.color ?? 0x6fa8dc) },
        lightDirection: { value: [0.4, 0.8, 0.45] },
        scale: { value: 800 },
      },
      vertexShader: spriteVertex,
      fragmentShader: spriteFragment,
    });
    super(geometry, material);
    this.body = body;
    this.store = storeOf(body, options.store);
    this.defaultRadius = options.defaultRadius ?? 0.01;
    this.positionArray = positionArray;
    this.radiusArray = radiusArray;
    this.frustumCulled = false;
    this.update();
  }

  /**
   * Sets the sprite scale so that a particle of radius r covers r / tan(fov/2)
   * of half the viewport height, as a sphere of that radius would.
   */
  setViewport(heightPixels: number, fovDegrees: number): void {
    this.material.uniforms.scale.value = heightPixels / Math.tan((fovDegrees * Math.PI) / 360);
  }

  update(): void {
    const body = this.body;
    const n = Math.min(body.activeCount, body.count);
    const { x, radius } = this.store;
    const pos = this.positionArray;
    const rad = this.radiusArray;
    const off = body.offset;
    const base = 3 * off;
    for (let k = 0; k < 3 * n; k++) pos[k] = x[base + k];
    const r0 = this.defaultRadius;
    for (let i = 0; i < n; i++) rad[i] = radius[off + i] > 0 ? radius[off + i] : r0;
    const g = this.geometry;
    g.setDrawRange(0, n);
    const p = g.attributes.position as BufferAttribute;
    uploadFirst(p, 3 * n);
    const r = g.attributes.radius as BufferAttribute;
    uploadFirst(r, n);
    g.boundingSphere = null;
    g.boundingBox = null;
  }
}
