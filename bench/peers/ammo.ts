/**
 * The falling cloth in ammo.js (npm `ammojs-typed`: Bullet's btSoftBody,
 * WebAssembly build): a soft body from the same triangles (btSoftBodyHelpers
 * .CreateFromTriMesh makes one link per edge: the same edge list), the same
 * node masses (0 for the pins), and — with bending — one extra link across
 * each interior edge between its two opposite vertices (the plain script's
 * distance bending; the pairs of pbdkit's dihedral quads), appended with
 * appendLink. Bullet's links are PBD (stiffness kLST, stretch links 1), so
 * the bending links get a stiffness instead of a compliance. Bullet's own
 * scheme: one stepSimulation(dt) per frame with `iterations` position
 * iterations (the same number of projections as pbdkit's substeps × 1), no
 * velocity or drift iterations, no damping, drag or lift. Bullet's links
 * diverge when substepped with one iteration each (measured: 5 or 20
 * substeps × 1 iteration, edge stretch beyond 10⁶ within a second), so the
 * row states this scheme instead. Each step also runs Bullet's world update
 * (the soft body's dynamic-tree update and the broad phase), which pbdkit and
 * the plain script do not.
 */
import { createRequire } from 'node:module';
import { edgeStretch, type FallingCloth, FRAME_DT, GRAVITY } from './cloth-scene.js';
import type { PeerInstance } from './peer.js';

type AmmoFactory = typeof import('ammojs-typed/wasm');
type AmmoModule = Awaited<ReturnType<AmmoFactory>>;

export async function ammoCloth(
  scene: FallingCloth,
  iterations: number,
  bendStiffness: number | false,
): Promise<PeerInstance> {
  // a module instance per body: this build cannot free the scratch arrays of a
  // second CreateFromTriMesh in the same instance (its _free is not exported)
  const factory = createRequire(import.meta.url)('ammojs-typed/wasm') as AmmoFactory;
  const A: AmmoModule = await factory();
  const config = new A.btSoftBodyRigidBodyCollisionConfiguration();
  const dispatcher = new A.btCollisionDispatcher(config);
  const broadphase = new A.btDbvtBroadphase();
  const solver = new A.btSequentialImpulseConstraintSolver();
  const softSolver = new A.btDefaultSoftBodySolver();
  const world = new A.btSoftRigidDynamicsWorld(dispatcher, broadphase, solver, config, softSolver);
  const g = new A.btVector3(0, GRAVITY, 0);
  world.setGravity(g);
  world.getWorldInfo().set_m_gravity(g);

  const nv = scene.invMass.length;
  const helpers = new A.btSoftBodyHelpers();
  const body = helpers.CreateFromTriMesh(
    world.getWorldInfo(),
    Array.from(scene.positions),
    Array.from(scene.triangles),
    scene.triangles.length / 3,
    false,
  );
  for (let i = 0; i < nv; i++) body.setMass(i, scene.invMass[i] === 0 ? 0 : 1 / scene.invMass[i]);
  const cfg = body.get_m_cfg();
  cfg.set_piterations(iterations);
  cfg.set_viterations(0);
  cfg.set_diterations(0);
  cfg.set_citerations(0);
  cfg.set_kDP(0);
  cfg.set_kDG(0);
  cfg.set_kLF(0);
  body.get_m_materials().at(0).set_m_kLST(1);
  if (bendStiffness !== false) {
    const bend = body.appendMaterial();
    bend.set_m_kLST(bendStiffness);
    const q = scene.quads;
    for (let k = 0; k < q.length; k += 4) body.appendLink(q[k + 2], q[k + 3], bend, false);
  }
  body.setActivationState(4); // DISABLE_DEACTIVATION
  world.addSoftBody(body, 1, -1);
  const nodes = body.get_m_nodes();
  const out = new Float64Array(3 * nv);
  const positions = (): Float64Array => {
    for (let i = 0; i < nv; i++) {
      const x = nodes.at(i).get_m_x();
      out[3 * i] = x.x();
      out[3 * i + 1] = x.y();
      out[3 * i + 2] = x.z();
    }
    return out;
  };
  return {
    step: () => world.stepSimulation(FRAME_DT, 1, FRAME_DT),
    positions,
    quality() {
      return edgeStretch(positions(), scene.edges, scene.rest);
    },
  };
}
