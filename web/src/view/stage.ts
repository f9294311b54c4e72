/**
 * The three.js view of a simulated scene: bodies (surfaces from their render
 * triangles, or particles), colliders, ground, lights and shadows, and the
 * overlays (wireframe, particles, constraint strain, pins, the mouse drag).
 * It reads the particle arrays described by the simulation (shared with the
 * worker, or owned by the main thread) through pbdkit/three.
 */
import {
  BackSide,
  Box3,
  BufferAttribute,
  BufferGeometry,
  Color,
  DirectionalLight,
  Fog,
  FrontSide,
  HemisphereLight,
  IcosahedronGeometry,
  InstancedMesh,
  LineBasicMaterial,
  LineSegments,
  Mesh,
  MeshBasicMaterial,
  MeshStandardMaterial,
  NeutralToneMapping,
  type Object3D,
  PCFShadowMap,
  PerspectiveCamera,
  PlaneGeometry,
  PMREMGenerator,
  Scene,
  ShadowMaterial,
  SRGBColorSpace,
  type Texture,
  Vector3,
  type WebGLRenderer,
} from 'three';
import { RoomEnvironment } from 'three/addons/environments/RoomEnvironment.js';
import { bodyPalette, strandPalette, waterColor } from '../../../src/io/palette.js';
import {
  BodyGeometry,
  BodyLines,
  BodyParticles,
  BodyPoints,
  type BodySource,
  BodyTubes,
  createColliderObject,
  type StoreSource,
} from '../../../src/three/index.js';
import type {
  BodyInfo,
  ColliderInfo,
  FrameInfo,
  PairSetInfo,
  SceneInfo,
  StoreArrays,
} from '../sim/protocol.js';
import { drawnBox } from './bounds.js';
import { type FluidSource, FluidSurface } from './fluid-surface.js';
import { colliderMaterial, groundMaterial, meshRadius, skyTexture, surfaceMaterial } from './materials.js';

/** Bodies with more particles than this are drawn as point sprites rather than instanced spheres. */
const MAX_INSTANCED_PARTICLES = 8192;
/** Fluid colours by speed: at rest, and at 2.5 m/s and above. */
const WATER_SLOW = waterColor;
const WATER_FAST = 0xd8efff;

const palette = bodyPalette;

/**
 * A body as the view sees it: a mirror of the simulated body (its BodyInfo,
 * whose counts, topology and uvs frames update), with what the drawing
 * classes ask of a BodySource. A body with a render mesh (an embedded or
 * skinned surface) is drawn from the render positions the simulation
 * refreshes after each batch (shared memory in the worker), not from its
 * particles.
 */
function bodyMirror(b: BodyInfo) {
  const mirror = {
    ...b,
    hasRenderMesh: b.renderPositions !== null,
    renderVertices: b.renderPositions,
    renderTriangles(): Uint32Array {
      return this.triangles;
    },
    renderLines(): Uint32Array {
      return this.lines;
    },
    renderPositions(): Float64Array {
      return this.renderVertices ?? new Float64Array(0);
    },
  };
  return mirror satisfies BodySource;
}
type BodyMirror = ReturnType<typeof bodyMirror>;

/** Tubes for a strand body of at most 5,000 segments whose particles have a radius (rods, threads). */
function drawAsTubes(b: BodyInfo, radius: Float64Array): boolean {
  if (b.lines.length > 2 * 5000) return false;
  for (let i = b.offset; i < b.offset + b.count; i++) if (radius[i] > 0) return true;
  return false;
}

/** The store as the view sees it: the worker's arrays (shared memory) or their latest copies. */
class StoreMirror implements StoreSource {
  // assigned by set(), from the constructor on
  x!: Float64Array;
  v!: Float64Array;
  mass!: Float64Array;
  invMass!: Float64Array;
  radius!: Float64Array;
  version!: number;
  count!: number;
  constructor(s: StoreArrays) {
    this.set(s);
  }
  set(s: StoreArrays): void {
    Object.assign(this, s);
  }
}

interface BodyView {
  index: number;
  name: string;
  mirror: BodyMirror;
  color: Color;
  surface: BodyGeometry | null;
  /** The front faces; its child draws the back faces. */
  surfaceMesh: Mesh | null;
  wire: Mesh | null;
  particles: BodyParticles | BodyPoints | null;
  /** A strand body's strands. */
  lines: BodyLines | BodyTubes | null;
  /** Overlay points for a surface body's vertices. */
  vertexDots: BodyPoints | null;
  /** A fluid's sprites for the surface renderer (drawn as a surface unless Display → fluid says balls). */
  fluid?: FluidSource & { sprites: BodyPoints };
}

export interface Overlays {
  wireframe: boolean;
  particles: boolean;
  constraints: boolean;
  colliders: boolean;
  shadows: boolean;
  /** Fluids as a liquid surface (screen-space fluid rendering) rather than as balls. */
  fluidSurface: boolean;
}

/** One pickable object and how to turn a hit on it into a particle. */
export interface Pickable {
  object: Object3D;
  body: number;
}

export class Stage {
  readonly scene = new Scene();
  readonly camera = new PerspectiveCamera(40, 1, 0.01, 500);
  readonly renderer: WebGLRenderer;
  overlays: Overlays = {
    wireframe: false,
    particles: false,
    constraints: false,
    colliders: true,
    shadows: true,
    fluidSurface: true,
  };
  private readonly fluidSurface: FluidSurface;
  /** Centre and radius of the scene at load (for lights, camera, sizes). */
  readonly center = new Vector3();
  radius = 1;
  store: StoreMirror | null = null;
  bodies: BodyView[] = [];
  private colliderObjects: (Object3D | null)[] = [];
  private colliderInfos: ColliderInfo[] = [];
  private content: Object3D[] = [];
  private readonly sun = new DirectionalLight(0xfff6ec, 2.4);
  private readonly hemi = new HemisphereLight(0xe8efff, 0x8a8275, 0.35);
  private readonly environment: Texture;
  private strain: LineSegments | null = null;
  private pairSets: PairSetInfo[] = [];
  private pins: InstancedMesh | null = null;
  private readonly dragLine: LineSegments;
  private readonly dragDot: Mesh;
  private readonly shadowCasters = new Set<Object3D>();
  /** Drawing-buffer height (pixels), for sizing point sprites. */
  private viewportHeight = 600;

  constructor(renderer: WebGLRenderer, options: { shadowMapSize?: number } = {}) {
    this.renderer = renderer;
    renderer.shadowMap.enabled = true;
    renderer.shadowMap.type = PCFShadowMap;
    renderer.outputColorSpace = SRGBColorSpace;
    // image-based light from a studio-like room (soft reflections and ambient from every side),
    // and a tone mapping that keeps base colours recognisable (Khronos PBR Neutral)
    renderer.toneMapping = NeutralToneMapping;
    renderer.toneMappingExposure = 1;
    const pmrem = new PMREMGenerator(renderer);
    this.environment = pmrem.fromScene(new RoomEnvironment(), 0.04).texture;
    pmrem.dispose();
    this.scene.environment = this.environment;
    this.scene.environmentIntensity = 0.55;
    this.fluidSurface = new FluidSurface(renderer);
    this.scene.background = skyTexture();
    this.scene.fog = new Fog(new Color(0xe6eaef), 20, 60);
    this.sun.castShadow = true;
    const size = options.shadowMapSize ?? 2048;
    this.sun.shadow.mapSize.set(size, size);
    this.sun.shadow.bias = -0.0004;
    this.scene.add(this.sun, this.sun.target, this.hemi);
    const lineGeometry = new BufferGeometry();
    lineGeometry.setAttribute('position', new BufferAttribute(new Float32Array(6), 3));
    this.dragLine = new LineSegments(lineGeometry, new LineBasicMaterial({ color: 0x1d2733 }));
    this.dragDot = new Mesh(new IcosahedronGeometry(1, 2), new MeshBasicMaterial({ color: 0x1d2733 }));
    this.dragLine.visible = this.dragDot.visible = false;
    this.dragLine.frustumCulled = false;
    this.scene.add(this.dragLine, this.dragDot);
  }

  /** Builds the view of a freshly loaded (or reset) scene (the page places the camera: framing.ts). */
  setScene(info: SceneInfo): void {
    this.clear();
    this.store = new StoreMirror(info.store);
    this.measure(info);
    const r = this.radius;
    this.bodies = info.bodies.map((b, k) => this.addBody(b, k));
    this.colliderInfos = info.colliders;
    this.colliderObjects = info.colliders.map((c) => this.addCollider(c));
    if (!info.colliders.some((c) => c.type === 'plane')) this.addShadowFloor();
    this.pairSets = info.pairSets;
    // the sun: above and to the side, its shadow camera fitted to the scene
    const c = this.center;
    this.sun.position.set(c.x - 1.2 * r * 3, c.y + 1.7 * r * 3, c.z + 0.7 * r * 3);
    this.sun.target.position.copy(c);
    const sc = this.sun.shadow.camera;
    sc.left = sc.bottom = -1.6 * r;
    sc.right = sc.top = 1.6 * r;
    sc.near = 0.1 * r;
    sc.far = 12 * r;
    sc.updateProjectionMatrix();
    // three shadow-map texels of normal offset: thin double-sided cloth shows no acne on either side
    this.sun.shadow.normalBias = (3 * 3.2 * r) / this.sun.shadow.mapSize.x;
    (this.scene.fog as Fog).near = 6 * r;
    (this.scene.fog as Fog).far = 28 * r;
    this.dragDot.scale.setScalar(0.012 * r);
    this.applyFrame(info.frame);
    this.setOverlays(this.overlays);
  }

  /** Centre and size of the scene from the bodies' particles and the bounded colliders. */
  private measure(info: SceneInfo): void {
    const x = info.store.x;
    const lo = new Vector3(Infinity, Infinity, Infinity);
    const hi = new Vector3(-Infinity, -Infinity, -Infinity);
    const p = new Vector3();
    for (const b of info.bodies) {
      for (let i = b.offset; i < b.offset + b.activeCount; i++) {
        p.set(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        if (Number.isFinite(p.x + p.y + p.z)) {
          lo.min(p);
          hi.max(p);
        }
      }
    }
    for (const c of info.colliders) {
      const extent =
        c.type === 'sphere'
          ? (c.radius ?? 0)
          : c.type === 'capsule'
            ? (c.radius ?? 0) + (c.halfHeight ?? 0)
            : c.type === 'box' && c.halfExtents
              ? Math.hypot(c.halfExtents[0], c.halfExtents[1], c.halfExtents[2])
              : c.type === 'mesh' && c.mesh
                ? meshRadius(c.mesh.positions)
                : -1;
      if (extent < 0) continue;
      p.set(c.pose[0], c.pose[1], c.pose[2]);
      lo.min(p.clone().subScalar(extent));
      hi.max(p.clone().addScalar(extent));
    }
    if (!Number.isFinite(lo.x)) {
      lo.set(-1, 0, -1);
      hi.set(1, 1, 1);
    }
    this.center.addVectors(lo, hi).multiplyScalar(0.5);
    this.radius = Math.max(0.05, 0.5 * lo.distanceTo(hi));
  }

  /** The box of the bodies' active particles now (and of their render meshes). */
  bodyBox(): Box3 {
    const box = new Box3();
    for (const b of this.bodyBoxes()) box.union(b.box);
    return box;
  }

  /** Per body, the box of what is drawn now (bounds.ts: drawnBox; scripts/scene-views.ts measures the same). */
  bodyBoxes(): { name: string; box: Box3 }[] {
    const store = this.store;
    if (!store) return [];
    return this.bodies.map((b) => {
      const m = b.mirror;
      const x = m.hasRenderMesh ? m.renderPositions() : store.x;
      const r = drawnBox(
        x,
        m.hasRenderMesh ? 0 : 3 * m.offset,
        m.triangles,
        m.hasRenderMesh ? x.length / 3 : m.activeCount,
      );
      const box = r ? new Box3(new Vector3(...r[0]), new Vector3(...r[1])) : new Box3();
      return { name: b.name, box };
    });
  }

  /** The box of the bounded colliders (not planes) at their current poses, or null. */
  colliderBox(): Box3 | null {
    const box = new Box3();
    for (const o of this.colliderObjects) {
      if (o && !o.name.startsWith('collider:plane')) box.expandByObject(o);
    }
    return box.isEmpty() ? null : box;
  }

  private addBody(b: BodyInfo, k: number): BodyView {
    const mirror = bodyMirror(b);
    const store = this.store!;
    const color = new Color(palette[k % palette.length]);
    const view: BodyView = {
      index: k,
      name: b.name,
      mirror,
      color,
      surface: null,
      surfaceMesh: null,
      wire: null,
      particles: null,
      lines: null,
      vertexDots: null,
    };
    if (b.triangles.length === 0 && b.lines.length > 0) {
      // strands: their segments as lines (the picking threshold makes them grabbable), particles as an
      // overlay; a rod or thread (few segments, with a radius) as tubes of its radius, since its
      // thickness is the picture (a knot, a buckled loop)
      const color = strandPalette[k % strandPalette.length];
      const lines = drawAsTubes(b, store.radius)
        ? new BodyTubes(mirror, { store, color })
        : new BodyLines(mirror, { store, color });
      lines.name = `body:${b.name}`;
      view.lines = lines;
      view.vertexDots = new BodyPoints(mirror, {
        store,
        color: 0x1d2733,
        defaultRadius: 0.004 * this.radius,
      });
      view.vertexDots.setViewport(this.viewportHeight, this.camera.fov);
      this.add(lines, view.vertexDots);
    } else if (b.triangles.length > 0) {
      const geometry = new BodyGeometry(mirror, { store });
      // two meshes over one geometry: the front faces, and the back faces (the reverse of the
      // fabric, paler) whose material flips the normals in the vertex shader, so that lighting
      // and the shadow lookup's normal offset both use the side's own normal (no acne on either
      // side of a thin sheet); each casts the faces the other does not
      const mesh = new Mesh(geometry, surfaceMaterial(color, FrontSide));
      const back = new Mesh(
        geometry,
        surfaceMaterial(color.clone().lerp(new Color(0xf2efe9), 0.45), BackSide),
      );
      for (const m of [mesh, back]) {
        m.castShadow = true;
        m.receiveShadow = true;
        m.frustumCulled = false;
        m.name = `body:${b.name}`;
      }
      mesh.add(back);
      const wire = new Mesh(
        geometry,
        new MeshBasicMaterial({
          color: 0x1d2733,
          wireframe: true,
          transparent: true,
          opacity: 0.35,
          depthWrite: false,
        }),
      );
      wire.frustumCulled = false;
      wire.renderOrder = 1;
      view.surface = geometry;
      view.surfaceMesh = mesh;
      view.wire = wire;
      view.vertexDots = new BodyPoints(mirror, {
        store,
        color: 0x1d2733,
        defaultRadius: this.edgeLength(b) * 0.12,
      });
      view.vertexDots.setViewport(this.viewportHeight, this.camera.fov);
      this.add(mesh, wire, view.vertexDots);
      this.shadowCasters.add(mesh);
    } else {
      const defaultRadius = 0.01 * this.radius;
      // fluids are water: deep blue at rest, pale where fast (coloured by speed)
      const fluid = b.type === 'fluid';
      if (fluid) color.setHex(WATER_SLOW);
      const particles =
        b.count <= MAX_INSTANCED_PARTICLES
          ? new BodyParticles(mirror, {
              store,
              defaultRadius,
              ...(fluid
                ? { speedColors: { slow: WATER_SLOW, fast: WATER_FAST, maxSpeed: 2.5 } }
                : { material: new MeshStandardMaterial({ color, roughness: 0.4, metalness: 0.0 }) }),
            })
          : new BodyPoints(mirror, { store, defaultRadius, color: color.getHex() });
      if (particles instanceof BodyParticles) {
        particles.castShadow = true;
        particles.receiveShadow = true;
        this.shadowCasters.add(particles);
      }
      if (particles instanceof BodyPoints) particles.setViewport(this.viewportHeight, this.camera.fov);
      particles.name = `body:${b.name}`;
      view.particles = particles;
      this.add(particles);
      if (fluid) {
        // the surface renderer's sprites: positions and radii of the same particles
        const sprites = new BodyPoints(mirror, { store, defaultRadius });
        view.fluid = { geometry: sprites.geometry, visible: true, sprites };
        this.fluidSurface.add(view.fluid);
        const r = store.radius[b.offset];
        if (r > 0) this.fluidSurface.particleRadius = r;
      }
    }
    return view;
  }

  /** Mean edge length of a body's surface (sizes the vertex dots). */
  private edgeLength(b: BodyInfo): number {
    // a render mesh's triangles index its own vertices
    const x = b.renderPositions ?? this.store!.x;
    const off = b.renderPositions ? 0 : b.offset;
    const t = b.triangles;
    let sum = 0;
    let n = 0;
    for (let k = 0; k < t.length && n < 600; k += 3) {
      const a = 3 * (off + t[k]),
        c = 3 * (off + t[k + 1]);
      const l = Math.hypot(x[a] - x[c], x[a + 1] - x[c + 1], x[a + 2] - x[c + 2]);
      if (Number.isFinite(l)) {
        sum += l;
        n++;
      }
    }
    return n ? sum / n : 0.01 * this.radius;
  }

  private addCollider(c: ColliderInfo): Object3D | null {
    const source = {
      type: c.type,
      radius: c.radius,
      halfExtents: c.halfExtents,
      halfHeight: c.halfHeight,
      mesh: c.mesh,
      inside: c.inside,
      position: c.pose.slice(0, 3),
      rotation: c.pose.slice(3, 7),
    };
    const ground = c.type === 'plane';
    const object = createColliderObject(source, {
      planeSize: 60 * this.radius,
      material: ground ? groundMaterial(this.radius) : colliderMaterial(c.kinematic),
    });
    if (!object) return null; // a collider type this view does not draw
    // a container would shade everything inside it from the light
    object.castShadow = !ground && !c.inside;
    object.receiveShadow = true;
    object.name = `collider:${c.name || c.type}`;
    this.add(object);
    return object;
  }

  /** A floor that only shows shadows, below everything, for scenes without a ground plane. */
  private addShadowFloor(): void {
    let ymin = Infinity;
    const x = this.store!.x;
    for (const b of this.bodies) {
      for (let i = b.mirror.offset; i < b.mirror.offset + b.mirror.activeCount; i++) {
        if (x[3 * i + 1] < ymin) ymin = x[3 * i + 1];
      }
    }
    const y = Math.min(0, Number.isFinite(ymin) ? ymin - 0.3 * this.radius : 0);
    const floor = new Mesh(
      new PlaneGeometry(60 * this.radius, 60 * this.radius).rotateX(-Math.PI / 2),
      new ShadowMaterial({ opacity: 0.18 }),
    );
    floor.position.set(this.center.x, y, this.center.z);
    floor.receiveShadow = true;
    this.add(floor);
  }

  private add(...objects: Object3D[]): void {
    for (const o of objects) {
      this.scene.add(o);
      this.content.push(o);
    }
  }

  private clear(): void {
    for (const o of this.content) {
      this.scene.remove(o);
      o.traverse((n) => {
        const m = n as Partial<Mesh>;
        m.geometry?.dispose();
        const mat = m.material;
        if (Array.isArray(mat)) for (const x of mat) x.dispose();
        else mat?.dispose();
      });
    }
    this.content = [];
    for (const b of this.bodies) b.fluid?.sprites.geometry.dispose();
    this.fluidSurface.clear();
    this.bodies = [];
    this.colliderObjects = [];
    this.shadowCasters.clear();
    this.strain = null;
    this.pins = null;
  }

  /**
   * Takes in a frame from the simulation: new store arrays, topology and
   * active counts, collider poses; then copies the particle state into the
   * geometry. Call it only while the simulation is not stepping.
   */
  applyFrame(f: FrameInfo): void {
    const store = this.store;
    if (!store) return;
    if (f.store) store.set(f.store);
    for (const r of f.renderPositions) {
      const m = this.bodies[r.body]?.mirror;
      if (m) m.renderVertices = r.positions;
    }
    for (const t of f.topology) {
      const m = this.bodies[t.body]?.mirror;
      if (!m) continue;
      m.triangles = t.triangles;
      if (t.uvs) m.uvs = t.uvs;
    }
    this.bodies.forEach((b, k) => {
      b.mirror.activeCount = f.activeCounts[k];
      b.mirror.topologyVersion = f.topologyVersions[k];
      b.surface?.update();
      b.particles?.update();
      b.lines?.update();
      b.fluid?.sprites.update();
      if (this.overlays.particles && b.vertexDots) b.vertexDots.update();
    });
    this.colliderObjects.forEach((o, k) => {
      if (!o || !this.colliderInfos[k].kinematic) return;
      const p = f.colliderPoses;
      o.position.set(p[7 * k], p[7 * k + 1], p[7 * k + 2]);
      o.quaternion.set(p[7 * k + 3], p[7 * k + 4], p[7 * k + 5], p[7 * k + 6]);
    });
    if (f.pairSets) {
      this.pairSets = f.pairSets;
      if (this.strain) {
        this.disposeObject(this.strain);
        this.strain = null;
      }
    }
    if (this.overlays.constraints) this.updateStrain();
    if (this.overlays.particles) this.updatePins();
  }

  setOverlays(o: Overlays): void {
    this.overlays = { ...o };
    for (const b of this.bodies) {
      if (b.wire) b.wire.visible = o.wireframe;
      if (b.vertexDots) {
        b.vertexDots.visible = o.particles;
        if (o.particles) b.vertexDots.update();
      }
    }
    for (const c of this.colliderObjects)
      if (c && !c.name.startsWith('collider:plane')) c.visible = o.colliders;
    this.renderer.shadowMap.enabled = o.shadows;
    this.sun.castShadow = o.shadows;
    if (o.constraints) this.updateStrain();
    if (this.strain) this.strain.visible = o.constraints;
    if (o.particles) this.updatePins();
    if (this.pins) this.pins.visible = o.particles;
  }

  /** Constraint overlay: every pair constraint as a segment coloured by its strain (red stretched, blue compressed). */
  private updateStrain(): void {
    const store = this.store;
    if (!store) return;
    let total = 0;
    for (const s of this.pairSets) total += s.rest.length;
    if (!this.strain) {
      const g = new BufferGeometry();
      g.setAttribute('position', new BufferAttribute(new Float32Array(6 * total), 3));
      g.setAttribute('color', new BufferAttribute(new Float32Array(6 * total), 3));
      this.strain = new LineSegments(g, new LineBasicMaterial({ vertexColors: true }));
      this.strain.frustumCulled = false;
      this.strain.renderOrder = 2;
      this.add(this.strain);
    }
    const g = this.strain.geometry;
    const pos = g.attributes.position.array as Float32Array;
    const col = g.attributes.color.array as Float32Array;
    const x = store.x;
    let k = 0;
    for (const s of this.pairSets) {
      const idx = s.indices;
      const rest = s.rest;
      for (let c = 0; c < rest.length; c++, k += 6) {
        const a = 3 * idx[2 * c],
          b = 3 * idx[2 * c + 1];
        for (let d = 0; d < 3; d++) {
          pos[k + d] = x[a + d];
          pos[k + 3 + d] = x[b + d];
        }
        const len = Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]);
        // strain e = (l − l0)/l0, saturating at ±5 %
        const e = rest[c] > 0 ? Math.max(-1, Math.min(1, (len - rest[c]) / rest[c] / 0.05)) : 0;
        const r = e > 0 ? 0.55 + 0.45 * e : 0.55 * (1 + e);
        const gr = 0.55 * (1 - Math.abs(e));
        const bl = e < 0 ? 0.55 - 0.45 * e : 0.55 * (1 - e);
        col[k] = col[k + 3] = r;
        col[k + 1] = col[k + 4] = gr;
        col[k + 2] = col[k + 5] = bl;
      }
    }
    g.attributes.position.needsUpdate = true;
    g.attributes.color.needsUpdate = true;
    this.strain.visible = this.overlays.constraints;
  }

  /** Pinned particles (inverse mass 0 with a mass) as dark beads, shown with the particle overlay. */
  private updatePins(): void {
    const store = this.store;
    if (!store) return;
    const { x, invMass, mass } = store;
    let n = 0;
    for (const b of this.bodies) {
      const m = b.mirror;
      for (let i = m.offset; i < m.offset + m.activeCount; i++) if (invMass[i] === 0 && mass[i] > 0) n++;
    }
    if (!this.pins || this.pins.instanceMatrix.count < n) {
      if (this.pins) this.disposeObject(this.pins);
      this.pins = new InstancedMesh(
        new IcosahedronGeometry(1, 1),
        new MeshStandardMaterial({ color: 0x222831 }),
        Math.max(16, n),
      );
      this.pins.frustumCulled = false;
      this.add(this.pins);
    }
    const arr = this.pins.instanceMatrix.array as Float32Array;
    const r = 0.008 * this.radius;
    let k = 0;
    for (const b of this.bodies) {
      const m = b.mirror;
      for (let i = m.offset; i < m.offset + m.activeCount; i++) {
        if (!(invMass[i] === 0 && mass[i] > 0)) continue;
        arr.fill(0, 16 * k, 16 * k + 16);
        arr[16 * k] = arr[16 * k + 5] = arr[16 * k + 10] = r;
        arr[16 * k + 12] = x[3 * i];
        arr[16 * k + 13] = x[3 * i + 1];
        arr[16 * k + 14] = x[3 * i + 2];
        arr[16 * k + 15] = 1;
        k++;
      }
    }
    this.pins.count = n;
    this.pins.instanceMatrix.needsUpdate = true;
    this.pins.visible = this.overlays.particles;
  }

  private disposeObject(o: Object3D): void {
    this.scene.remove(o);
    this.content = this.content.filter((c) => c !== o);
    const m = o as Partial<Mesh>;
    m.geometry?.dispose();
    (m.material as { dispose(): void } | undefined)?.dispose();
  }

  /** Shows the mouse drag: a segment from the particle to the cursor's target. */
  showDrag(particle: number, target: Vector3 | null): void {
    const on = particle >= 0 && target !== null && this.store !== null;
    this.dragLine.visible = this.dragDot.visible = on;
    if (!on) return;
    const x = this.store!.x;
    const pos = this.dragLine.geometry.attributes.position.array as Float32Array;
    pos[0] = x[3 * particle];
    pos[1] = x[3 * particle + 1];
    pos[2] = x[3 * particle + 2];
    pos[3] = target.x;
    pos[4] = target.y;
    pos[5] = target.z;
    this.dragLine.geometry.attributes.position.needsUpdate = true;
    this.dragDot.position.copy(target);
  }

  /** Objects that draw the bodies (each with `visible`), for measurements that hide them (measure.ts). */
  bodyObjects(): { visible: boolean }[] {
    return this.bodies.flatMap((b) =>
      [b.surfaceMesh, b.particles, b.lines, b.wire, b.vertexDots, b.fluid ?? null].filter((o) => o !== null),
    );
  }

  /** Objects the mouse can pick particles on. */
  /** The drawn rigid bodies (colliders that follow one) for picking: the collider's index and its object. */
  rigidPickables(): { collider: number; object: Object3D }[] {
    const out: { collider: number; object: Object3D }[] = [];
    this.colliderObjects.forEach((o, k) => {
      if (o && this.colliderInfos[k].rigid >= 0) out.push({ collider: k, object: o });
    });
    return out;
  }

  pickables(): Pickable[] {
    const out: Pickable[] = [];
    for (const b of this.bodies) {
      if (b.surfaceMesh) {
        out.push({ object: b.surfaceMesh, body: b.index });
        for (const back of b.surfaceMesh.children) out.push({ object: back, body: b.index });
      }
      if (b.particles) out.push({ object: b.particles, body: b.index });
      if (b.lines) out.push({ object: b.lines, body: b.index });
    }
    return out;
  }

  setSize(width: number, height: number): void {
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / Math.max(1, height);
    this.camera.updateProjectionMatrix();
    this.viewportHeight = height * this.renderer.getPixelRatio();
    for (const b of this.bodies) {
      const pts = [b.particles, b.vertexDots].filter((p): p is BodyPoints => p instanceof BodyPoints);
      for (const p of pts) p.setViewport(this.viewportHeight, this.camera.fov);
    }
  }

  /** Whether fluids are drawn as a surface now (there are fluids, and the display asks for it). */
  get surfaceFluids(): boolean {
    return this.overlays.fluidSurface && this.fluidSurface.active;
  }

  render(): void {
    if (!this.surfaceFluids) {
      this.renderer.render(this.scene, this.camera);
      return;
    }
    // the fluids' balls give way to the surface
    const balls = this.bodies.filter((b) => b.fluid && b.particles?.visible);
    for (const b of balls) b.particles!.visible = false;
    this.fluidSurface.render(this.scene, this.camera);
    for (const b of balls) b.particles!.visible = true;
  }

  dispose(): void {
    this.clear();
    this.environment.dispose();
    this.fluidSurface.dispose();
  }
}
