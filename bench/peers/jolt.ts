/**
 * The falling cloth in Jolt Physics (npm `jolt-physics`, its single-threaded
 * WebAssembly build): one soft body with the same vertices, inverse masses,
 * faces, edge constraints and dihedral bend constraints as pbdkit's (or, for
 * pbdkit's distance bending, one more edge constraint across each bending quad:
 * Jolt's EBendType_Distance), edge
 * compliance 0, `mNumIterations` = pbdkit's substeps (Jolt's soft-body
 * iterations are XPBD substeps of one projection each), no damping, no
 * sleeping, one collision step per frame. Jolt also runs its world update
 * every step (broad phase, the soft body's collision query against its world,
 * bounds, islands), which pbdkit and the plain script do not.
 */
import initJolt from 'jolt-physics/wasm';
import { edgeStretch, type FallingCloth, FRAME_DT, GRAVITY } from './cloth-scene.js';
import type { PeerInstance } from './peer.js';

type JoltModule = Awaited<ReturnType<typeof initJolt>>;
let joltModule: Promise<JoltModule> | null = null;

export async function joltCloth(
  scene: FallingCloth,
  substeps: number,
  bendCompliance: number | false,
  bendModel: 'dihedral' | 'distance' = 'dihedral',
): Promise<PeerInstance> {
  joltModule ??= initJolt();
  const J = await joltModule;
  const settings = new J.JoltSettings();
  const objectFilter = new J.ObjectLayerPairFilterTable(2);
  objectFilter.EnableCollision(0, 1);
  objectFilter.EnableCollision(1, 1);
  const bpInterface = new J.BroadPhaseLayerInterfaceTable(2, 2);
  bpInterface.MapObjectToBroadPhaseLayer(0, new J.BroadPhaseLayer(0));
  bpInterface.MapObjectToBroadPhaseLayer(1, new J.BroadPhaseLayer(1));
  settings.mObjectLayerPairFilter = objectFilter;
  settings.mBroadPhaseLayerInterface = bpInterface;
  settings.mObjectVsBroadPhaseLayerFilter = new J.ObjectVsBroadPhaseLayerFilterTable(
    bpInterface,
    2,
    objectFilter,
    2,
  );
  const jolt = new J.JoltInterface(settings);
  J.destroy(settings);
  const system = jolt.GetPhysicsSystem();
  system.SetGravity(new J.Vec3(0, GRAVITY, 0));
  const bodies = system.GetBodyInterface();

  const shared = new J.SoftBodySharedSettings();
  const nv = scene.invMass.length;
  const v = new J.SoftBodySharedSettingsVertex();
  for (let i = 0; i < nv; i++) {
    v.mPosition = new J.Float3(
      scene.positions[3 * i],
      scene.positions[3 * i + 1],
      scene.positions[3 * i + 2],
    );
    v.mInvMass = scene.invMass[i];
    shared.mVertices.push_back(v);
  }
  const tri = scene.triangles;
  for (let t = 0; t < tri.length; t += 3) {
    const f = new J.SoftBodySharedSettingsFace(tri[t], tri[t + 1], tri[t + 2], 0);
    shared.AddFace(f);
    J.destroy(f);
  }
  const e = scene.edges;
  for (let k = 0; k < e.length; k += 2) {
    const c = new J.SoftBodySharedSettingsEdge(e[k], e[k + 1], 0);
    shared.mEdgeConstraints.push_back(c);
    J.destroy(c);
  }
  if (bendCompliance !== false && bendModel === 'distance') {
    // Jolt's own distance bending (SoftBodySharedSettings EBendType_Distance): an edge constraint
    // between the two vertices opposite each shared edge, the pairs of pbdkit's distance bending
    const q = scene.quads;
    for (let k = 0; k < q.length; k += 4) {
      const c = new J.SoftBodySharedSettingsEdge(q[k + 2], q[k + 3], bendCompliance);
      shared.mEdgeConstraints.push_back(c);
      J.destroy(c);
    }
  } else if (bendCompliance !== false) {
    const q = scene.quads;
    for (let k = 0; k < q.length; k += 4) {
      const c = new J.SoftBodySharedSettingsDihedralBend(q[k], q[k + 1], q[k + 2], q[k + 3], bendCompliance);
      shared.mDihedralBendConstraints.push_back(c);
      J.destroy(c);
    }
  }
  shared.CalculateEdgeLengths();
  shared.CalculateBendConstraintConstants();
  shared.Optimize();
  const cs = new J.SoftBodyCreationSettings(shared, new J.RVec3(0, 0, 0), J.Quat.prototype.sIdentity(), 1);
  cs.mNumIterations = substeps;
  cs.mLinearDamping = 0;
  cs.mAllowSleeping = false;
  cs.mUpdatePosition = false;
  cs.mMaxLinearVelocity = 1e4;
  const body = bodies.CreateSoftBody(cs);
  bodies.AddBody(body.GetID(), J.EActivation_Activate);
  const motion = J.castObject(body.GetMotionProperties(), J.SoftBodyMotionProperties);
  const vertices = motion.GetVertices();
  const out = new Float64Array(3 * nv);
  const positions = (): Float64Array => {
    for (let i = 0; i < nv; i++) {
      const p = vertices.at(i).mPosition;
      out[3 * i] = p.GetX();
      out[3 * i + 1] = p.GetY();
      out[3 * i + 2] = p.GetZ();
    }
    return out;
  };
  return {
    step: () => jolt.Step(FRAME_DT, 1),
    positions,
    dispose() {
      // Jolt's heap is one per process: a case that keeps its body and system leaves the next
      // 201 × 201 body without room (Aborted(OOM))
      bodies.RemoveBody(body.GetID());
      bodies.DestroyBody(body.GetID());
      J.destroy(cs);
      J.destroy(jolt);
    },
    quality() {
      return edgeStretch(positions(), scene.edges, scene.rest);
    },
  };
}
