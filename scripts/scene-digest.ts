/**
 * The digest of a scene file's physics: what its action box
 * (scripts/scene-views.ts) depends on. Presentation fields — title,
 * family, figure, description, camera (but for camera.follow), offline — are left out, so that
 * rewording a scene or moving its camera does not ask for its action box
 * to be measured again (its thumbnail is made again by hand).
 */
import { createHash } from 'node:crypto';

const presentation = ['$schema', 'title', 'family', 'figure', 'description', 'camera', 'offline'];

/**
 * sha1 of the scene's JSON without its presentation fields (first 16 hex digits); the camera's
 * `follow` list counts (it picks the bodies the action box covers).
 */
export function sceneDigest(text: string): string {
  const scene = JSON.parse(text) as Record<string, unknown>;
  const follow = (scene.camera as { follow?: string[] } | undefined)?.follow;
  for (const k of presentation) delete scene[k];
  if (follow) scene.follow = follow;
  return createHash('sha1').update(JSON.stringify(scene)).digest('hex').slice(0, 16);
}
