/**
 * The simulation worker: a SimCore behind messages. With cross-origin
 * isolation the world's particle arrays live on SharedArrayBuffers, so the
 * page reads positions in place; the worker only says when a batch of steps
 * is done (and is idle until asked for the next one, so the page never reads
 * a half-written step).
 */
import { describeError, SimCore } from './core.js';
import type { Reply, Request } from './protocol.js';

const core = new SimCore();
const scope = self as unknown as {
  postMessage(m: Reply): void;
  onmessage: ((e: MessageEvent<Request>) => void) | null;
};

scope.onmessage = (e) => {
  const m = e.data;
  try {
    switch (m.type) {
      case 'load':
        scope.postMessage({ type: 'scene', id: m.id, scene: core.load(m.text, m.file, m.files, m.shared) });
        break;
      case 'reset':
        scope.postMessage({ type: 'scene', id: m.id, scene: core.reset() });
        break;
      case 'step':
        scope.postMessage({ type: 'frame', id: m.id, frame: core.step(m.n, m.budgetMs) });
        break;
      case 'grab':
        core.grabParticle(m.particle, m.point, m.compliance);
        break;
      case 'drag':
        core.dragTo(m.point);
        break;
      case 'release':
        core.releaseParticle();
        break;
      case 'grabRigid':
        core.grabRigid(m.collider, m.point, m.pull, m.local);
        break;
      case 'throwRigid':
        core.throwRigid(m.collider, m.velocity);
        break;
      case 'world':
        core.configureWorld(m.settings);
        break;
      case 'tunable':
        core.setTunable(m.body, m.name, m.value);
        break;
    }
  } catch (err) {
    const file = 'file' in m ? m.file : 'scene';
    scope.postMessage({ type: 'error', id: 'id' in m ? m.id : -1, error: describeError(err, file) });
  }
};
