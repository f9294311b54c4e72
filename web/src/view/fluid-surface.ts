/**
 * Screen-space fluid rendering: fluids drawn as a liquid surface rather than
 * as balls. Per frame, after the scene (without the fluid) is drawn into a
 * target with its depth:
 *
 * 1. particle depth: each particle as a sprite shaded as a sphere, writing
 *    the view-space depth of the sphere's front (depth-tested), at half
 *    resolution;
 * 2. thickness: the same sprites added up (how much liquid a ray crosses);
 * 3. two passes of a separable bilateral filter on the depth (its radius
 *    follows the particle size on screen, its range weight keeps separate
 *    layers apart), which merges the spheres into one smooth surface;
 * 4. composition: normals from the filtered depth, Fresnel reflection of a
 *    sky, refraction of the scene behind (displaced by the normal) absorbed
 *    by the thickness (Beer–Lambert, bluish water), a sun highlight;
 *    occluded where the scene's depth is in front; then tone mapping and
 *    output colour space as everything else.
 *
 * Five passes beyond the scene, three of them at half resolution: few
 * enough for WebGL 2 on a software rasteriser (SwiftShader).
 */
import {
  AdditiveBlending,
  type BufferGeometry,
  Color,
  DepthTexture,
  FloatType,
  HalfFloatType,
  LinearFilter,
  Matrix4,
  Mesh,
  NearestFilter,
  OrthographicCamera,
  type PerspectiveCamera,
  PlaneGeometry,
  Points,
  RedFormat,
  type RGBAFormat,
  type Scene,
  ShaderMaterial,
  Vector2,
  Vector3,
  type WebGLRenderer,
  WebGLRenderTarget,
} from 'three';

const spriteVertex = /* glsl */ `
  attribute float radius;
  uniform float pointScale;
  uniform float radiusScale;
  varying vec3 vCentre;
  varying float vRadius;
  void main() {
    vec4 mv = modelViewMatrix * vec4(position, 1.0);
    vCentre = mv.xyz;
    vRadius = radius * radiusScale;
    gl_Position = projectionMatrix * mv;
    gl_PointSize = max(1.0, vRadius * pointScale / -mv.z);
  }
`;

const depthFragment = /* glsl */ `
  uniform mat4 proj;
  varying vec3 vCentre;
  varying float vRadius;
  void main() {
    vec2 c = gl_PointCoord * 2.0 - 1.0;
    c.y = -c.y;
    float r2 = dot(c, c);
    if (r2 > 1.0) discard;
    vec3 p = vCentre + vec3(c * vRadius, sqrt(1.0 - r2) * vRadius);
    vec4 clip = proj * vec4(p, 1.0);
    gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
    gl_FragColor = vec4(-p.z, 0.0, 0.0, 1.0);
  }
`;

/** Thickness: wide Gaussian splats (twice the sphere), so that their sum is smooth rather than dotted. */
const thicknessFragment = /* glsl */ `
  varying vec3 vCentre;
  varying float vRadius;
  void main() {
    vec2 c = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(c, c);
    if (r2 > 1.0) discard;
    // the splat of radius 2r carries the same volume-ish path as the sphere of radius r
    gl_FragColor = vec4(0.5 * vRadius * exp(-3.0 * r2), 0.0, 0.0, 1.0);
  }
`;

const quadVertex = /* glsl */ `
  varying vec2 vUv;
  void main() {
    vUv = uv;
    gl_Position = vec4(position.xy, 0.0, 1.0);
  }
`;

/** Bilateral filter along one axis: spatial Gaussian over the particle's screen size, range weight on depth. */
const blurFragment = /* glsl */ `
  uniform sampler2D tDepth;
  uniform vec2 step;
  uniform float worldRadius;
  uniform float pixelsPerUnit;
  varying vec2 vUv;
  void main() {
    float d = texture2D(tDepth, vUv).r;
    if (d <= 0.0) { gl_FragColor = vec4(0.0); return; }
    float radiusPx = clamp(worldRadius * pixelsPerUnit / d, 1.0, 20.0);
    float sigma = radiusPx / 2.0;
    float range = worldRadius;
    float sum = 0.0;
    float wsum = 0.0;
    for (int i = -6; i <= 6; i++) {
      float x = float(i) * radiusPx / 6.0;
      float s = texture2D(tDepth, vUv + step * x).r;
      if (s <= 0.0) continue;
      float dz = (s - d) / range;
      float w = exp(-x * x / (2.0 * sigma * sigma) - dz * dz);
      sum += s * w;
      wsum += w;
    }
    gl_FragColor = vec4(sum / max(wsum, 1e-6), 0.0, 0.0, 1.0);
  }
`;

const compositeFragment = /* glsl */ `
  #include <packing>
  uniform sampler2D tScene;
  uniform sampler2D tSceneDepth;
  uniform sampler2D tFluid;
  uniform sampler2D tThickness;
  uniform vec2 fluidTexel; // two texels of the half-resolution depth: smoother normals
  uniform mat4 projInverse;
  uniform mat4 viewToWorld;
  uniform float cameraNear;
  uniform float cameraFar;
  uniform vec3 sunDirection;
  uniform vec3 absorption;
  uniform vec3 waterColor;
  uniform float refraction;
  varying vec2 vUv;

  vec3 viewPosition(vec2 uv, float depth) {
    vec4 v = projInverse * vec4(uv * 2.0 - 1.0, -1.0, 1.0);
    vec3 ray = v.xyz / v.w;
    return ray / -ray.z * depth;
  }

  void main() {
    vec4 scene = texture2D(tScene, vUv);
    float d = texture2D(tFluid, vUv).r;
    float sceneDepth = -perspectiveDepthToViewZ(texture2D(tSceneDepth, vUv).x, cameraNear, cameraFar);
    if (d <= 0.0 || sceneDepth < d - 1e-3) {
      gl_FragColor = scene;
    } else {
      vec3 p = viewPosition(vUv, d);
      // normals from the neighbours on the side with the smaller depth jump (no smearing over edges)
      float dr = texture2D(tFluid, vUv + vec2(fluidTexel.x, 0.0)).r;
      float dl = texture2D(tFluid, vUv - vec2(fluidTexel.x, 0.0)).r;
      float du = texture2D(tFluid, vUv + vec2(0.0, fluidTexel.y)).r;
      float dd = texture2D(tFluid, vUv - vec2(0.0, fluidTexel.y)).r;
      vec3 ddx = viewPosition(vUv + vec2(fluidTexel.x, 0.0), dr > 0.0 ? dr : d) - p;
      vec3 ddx2 = p - viewPosition(vUv - vec2(fluidTexel.x, 0.0), dl > 0.0 ? dl : d);
      if (abs(ddx.z) > abs(ddx2.z)) ddx = ddx2;
      vec3 ddy = viewPosition(vUv + vec2(0.0, fluidTexel.y), du > 0.0 ? du : d) - p;
      vec3 ddy2 = p - viewPosition(vUv - vec2(0.0, fluidTexel.y), dd > 0.0 ? dd : d);
      if (abs(ddy.z) > abs(ddy2.z)) ddy = ddy2;
      vec3 n = normalize(cross(ddx, ddy));
      vec3 v = normalize(-p);
      if (dot(n, v) < 0.0) n = -n;
      float thickness = texture2D(tThickness, vUv).r;
      // refraction: the scene behind, displaced along the normal, absorbed along the path
      vec2 offset = n.xy * refraction * min(thickness, 0.4);
      vec3 behind = texture2D(tScene, clamp(vUv - offset, 0.001, 0.999)).rgb;
      vec3 transmitted = mix(waterColor, behind, exp(-absorption * thickness * 16.0));
      // reflection of a sky, by Schlick's Fresnel term (water: F0 = 0.02)
      vec3 nw = normalize((viewToWorld * vec4(n, 0.0)).xyz);
      vec3 vw = normalize((viewToWorld * vec4(v, 0.0)).xyz);
      vec3 r = reflect(-vw, nw);
      vec3 sky = mix(vec3(0.62, 0.66, 0.7), vec3(0.42, 0.56, 0.78), clamp(r.y, 0.0, 1.0));
      float fresnel = 0.02 + 0.98 * pow(1.0 - max(dot(n, v), 0.0), 5.0);
      vec3 h = normalize(sunDirection + vw);
      float spec = pow(max(dot(nw, h), 0.0), 120.0) * 1.2;
      // at the silhouette (neighbours without fluid) blend into the scene instead of a hard stair
      float cover = 0.25 * (step(1e-6, dr) + step(1e-6, dl) + step(1e-6, du) + step(1e-6, dd));
      gl_FragColor = vec4(mix(scene.rgb, mix(transmitted, sky, fresnel) + spec, cover), 1.0);
    }
    #include <tonemapping_fragment>
    #include <colorspace_fragment>
  }
`;

/** The sprite geometry of a fluid (positions and radii per particle, as BodyPoints keeps them). */
export interface FluidSource {
  geometry: BufferGeometry;
  visible: boolean;
}

export class FluidSurface {
  /** Sprite radius relative to the particles' contact radius (overlapping spheres merge). */
  radiusScale = 1.35;
  /** The particles' radius (m), for the filter's size. */
  particleRadius = 0.02;
  private readonly renderer: WebGLRenderer;
  private readonly sceneTarget: WebGLRenderTarget;
  private readonly depthTarget: WebGLRenderTarget;
  private readonly thicknessTarget: WebGLRenderTarget;
  private readonly blurTarget: WebGLRenderTarget;
  private readonly depthMaterial: ShaderMaterial;
  private readonly thicknessMaterial: ShaderMaterial;
  private readonly blurMaterial: ShaderMaterial;
  private readonly compositeMaterial: ShaderMaterial;
  private readonly quad: Mesh;
  private readonly quadCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);
  private readonly points: Points[] = [];
  private readonly size = new Vector2();

  constructor(renderer: WebGLRenderer) {
    this.renderer = renderer;
    // float depth where it can be rendered to and filtered; half floats otherwise
    const float =
      renderer.extensions.has('EXT_color_buffer_float') && renderer.extensions.has('OES_texture_float_linear')
        ? FloatType
        : HalfFloatType;
    // depth is sampled as it is (interpolating it with the empty 0 around a fluid would invent
    // depths at its edge); thickness is interpolated, so the colour upsamples smoothly
    const target = (format: typeof RedFormat | typeof RGBAFormat, depth: boolean, linear = false) =>
      new WebGLRenderTarget(1, 1, {
        type: float,
        format,
        minFilter: linear ? LinearFilter : NearestFilter,
        magFilter: linear ? LinearFilter : NearestFilter,
        depthBuffer: depth,
      });
    // no multisampling: on a software rasteriser it would cost more than the fluid passes together
    this.sceneTarget = new WebGLRenderTarget(1, 1, { type: HalfFloatType });
    this.sceneTarget.depthTexture = new DepthTexture(1, 1);
    this.depthTarget = target(RedFormat, true);
    this.thicknessTarget = target(RedFormat, false, true);
    this.blurTarget = target(RedFormat, false);
    const spriteUniforms = () => ({
      pointScale: { value: 1 },
      radiusScale: { value: this.radiusScale },
      proj: { value: new Matrix4() },
    });
    this.depthMaterial = new ShaderMaterial({
      uniforms: spriteUniforms(),
      vertexShader: spriteVertex,
      fragmentShader: depthFragment,
    });
    this.thicknessMaterial = new ShaderMaterial({
      uniforms: spriteUniforms(),
      vertexShader: spriteVertex,
      fragmentShader: thicknessFragment,
      blending: AdditiveBlending,
      depthTest: false,
      depthWrite: false,
      transparent: true,
    });
    this.blurMaterial = new ShaderMaterial({
      uniforms: {
        tDepth: { value: null },
        step: { value: new Vector2() },
        worldRadius: { value: 0.02 },
        pixelsPerUnit: { value: 1 },
      },
      vertexShader: quadVertex,
      fragmentShader: blurFragment,
      depthTest: false,
      depthWrite: false,
    });
    this.compositeMaterial = new ShaderMaterial({
      uniforms: {
        tScene: { value: this.sceneTarget.texture },
        tSceneDepth: { value: this.sceneTarget.depthTexture },
        tFluid: { value: this.depthTarget.texture },
        tThickness: { value: this.thicknessTarget.texture },
        fluidTexel: { value: new Vector2() },
        projInverse: { value: new Matrix4() },
        viewToWorld: { value: new Matrix4() },
        cameraNear: { value: 0.1 },
        cameraFar: { value: 100 },
        sunDirection: { value: new Vector3(-0.55, 0.75, 0.35).normalize() },
        absorption: { value: new Vector3(0.9, 0.32, 0.14) },
        waterColor: { value: new Color(0x0b3d66) },
        refraction: { value: 0.06 },
      },
      vertexShader: quadVertex,
      fragmentShader: compositeFragment,
      depthTest: false,
      depthWrite: false,
    });
    this.quad = new Mesh(new PlaneGeometry(2, 2), this.compositeMaterial);
    this.quad.frustumCulled = false;
  }

  /** Registers a fluid's sprite geometry (shared with its BodyPoints). */
  add(source: FluidSource): void {
    const p = new Points(source.geometry, this.depthMaterial);
    p.frustumCulled = false;
    p.userData.source = source;
    this.points.push(p);
  }

  clear(): void {
    this.points.length = 0;
  }

  get active(): boolean {
    return this.points.some((p) => (p.userData.source as FluidSource).visible);
  }

  /** Sets the sun direction (world space, toward the light). */
  setSun(direction: Vector3): void {
    this.compositeMaterial.uniforms.sunDirection.value.copy(direction).normalize();
  }

  private resize(): void {
    const r = this.renderer;
    r.getDrawingBufferSize(this.size);
    const w = Math.max(1, this.size.x);
    const h = Math.max(1, this.size.y);
    if (this.sceneTarget.width !== w || this.sceneTarget.height !== h) {
      this.sceneTarget.setSize(w, h);
      const hw = Math.max(1, w >> 1);
      const hh = Math.max(1, h >> 1);
      this.depthTarget.setSize(hw, hh);
      this.thicknessTarget.setSize(hw, hh);
      this.blurTarget.setSize(hw, hh);
    }
  }

  /** Draws the scene with its fluids as a surface (the fluids' own particle objects must be hidden). */
  render(scene: Scene, camera: PerspectiveCamera): void {
    const r = this.renderer;
    this.resize();
    const hw = this.depthTarget.width;
    const hh = this.depthTarget.height;
    camera.updateMatrixWorld();
    const autoClear = r.autoClear;
    const clearColor = new Color();
    r.getClearColor(clearColor);
    const clearAlpha = r.getClearAlpha();
    // 0. the scene
    r.setRenderTarget(this.sceneTarget);
    r.render(scene, camera);
    // 1–2. particle depth and thickness, at half resolution
    const pointScale = camera.projectionMatrix.elements[5] * hh;
    for (const m of [this.depthMaterial, this.thicknessMaterial]) {
      m.uniforms.pointScale.value = pointScale;
      m.uniforms.radiusScale.value = this.radiusScale;
      m.uniforms.proj.value.copy(camera.projectionMatrix);
    }
    this.thicknessMaterial.uniforms.radiusScale.value = 2 * this.radiusScale;
    const shown = this.points.filter((p) => (p.userData.source as FluidSource).visible);
    r.setClearColor(0x000000, 0);
    for (const [target, material] of [
      [this.depthTarget, this.depthMaterial],
      [this.thicknessTarget, this.thicknessMaterial],
    ] as const) {
      r.setRenderTarget(target);
      r.clear();
      for (const p of shown) {
        p.material = material;
        r.render(p, camera);
      }
    }
    // 3. bilateral filter, horizontal then vertical (back into the depth target)
    const blur = this.blurMaterial.uniforms;
    // the filter reaches over about two particles: enough to merge neighbours into one surface
    blur.worldRadius.value = 2.2 * this.particleRadius * this.radiusScale;
    blur.pixelsPerUnit.value = 0.5 * pointScale;
    this.quad.material = this.blurMaterial;
    blur.tDepth.value = this.depthTarget.texture;
    blur.step.value.set(1 / hw, 0);
    r.setRenderTarget(this.blurTarget);
    r.render(this.quad, this.quadCamera);
    blur.tDepth.value = this.blurTarget.texture;
    blur.step.value.set(0, 1 / hh);
    r.setRenderTarget(this.depthTarget);
    r.autoClear = false;
    r.render(this.quad, this.quadCamera);
    r.autoClear = autoClear;
    // 4. composition onto the canvas
    const c = this.compositeMaterial.uniforms;
    c.fluidTexel.value.set(2 / hw, 2 / hh);
    c.projInverse.value.copy(camera.projectionMatrixInverse);
    c.viewToWorld.value.copy(camera.matrixWorld);
    c.cameraNear.value = camera.near;
    c.cameraFar.value = camera.far;
    this.quad.material = this.compositeMaterial;
    r.setRenderTarget(null);
    r.setClearColor(clearColor, clearAlpha);
    r.render(this.quad, this.quadCamera);
  }

  dispose(): void {
    for (const t of [this.sceneTarget, this.depthTarget, this.thicknessTarget, this.blurTarget]) t.dispose();
    this.sceneTarget.depthTexture?.dispose();
    for (const m of [this.depthMaterial, this.thicknessMaterial, this.blurMaterial, this.compositeMaterial])
      m.dispose();
    this.quad.geometry.dispose();
  }
}
