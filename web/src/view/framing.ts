/**
 * Framing: the camera shows a scene's action in the part of the canvas that
 * the panels leave free. The action is a box (where the bodies go over
 * their first seconds, from web/src/scene-views.json, written by
 * scripts/scene-views.ts); the camera keeps the scene file's view direction,
 * looks at the box's centre, puts that centre at the middle of the free
 * part (a view offset shifts the projection centre there) and backs off
 * until every corner of the box lies inside it.
 */
import { Box3, type PerspectiveCamera, Vector3 } from 'three';
import views from '../scene-views.json' with { type: 'json' };

/** A rectangle in canvas pixels (CSS pixels, origin at the canvas's top left). */
export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface SceneView {
  digest: string;
  seconds: number;
  bodies: [number[], number[]];
  colliders: [number[], number[]] | null;
}

/** The precomputed action boxes of the shipped scenes, by scene name. */
export const sceneViews = views as unknown as Record<string, SceneView>;

/**
 * The box a scene's camera frames: where its bodies go over their first
 * seconds, with its bounded colliders when they do not make it much larger
 * (a drape's sphere, not a room-sized box) or hold the bodies (a barrel). `fallback` (the bodies at
 * load) stands in for scenes without an entry (dropped ones).
 */
export function actionBox(name: string, fallback: Box3, colliders: Box3 | null): Box3 {
  const v = sceneViews[name];
  const box = v ? new Box3(new Vector3(...v.bodies[0]), new Vector3(...v.bodies[1])) : fallback.clone();
  const c = v?.colliders
    ? new Box3(new Vector3(...v.colliders[0]), new Vector3(...v.colliders[1]))
    : colliders;
  if (c && !c.isEmpty()) {
    const union = box.clone().union(c);
    const size = (b: Box3) => b.getSize(new Vector3()).length();
    // a recorded container that holds the bodies (the barrel) is part of the picture whatever its
    // size (not the page's own collider box: it holds named planes' drawn squares, 60 scene radii wide)
    const container = v?.colliders != null && c.containsBox(box);
    if (container || size(union) <= 1.6 * size(box)) box.copy(union);
  }
  return box;
}

/**
 * The largest part of `canvas` that no overlay covers, found by cutting
 * each overlay away along the edge that loses the least area (panels hug
 * the window's edges). The greedy cut depends on the order of the
 * overlays (a short panel above a tall one in the side column would cut
 * the top of the view instead of its side), so every order is tried (the
 * first 6 overlays; more are cut in order of size) and the largest result
 * kept: the free part then stays the same when the side column's panels
 * share their height differently.
 */
export function freeRect(canvas: Rect, overlays: Rect[]): Rect {
  const area = (o: Rect) => (o.right - o.left) * (o.bottom - o.top);
  const sorted = [...overlays].sort((a, b) => area(b) - area(a));
  const head = sorted.slice(0, 6);
  const tail = sorted.slice(6);
  let best: Rect | null = null;
  for (const order of permutations(head)) {
    const r = cutAway(canvas, [...order, ...tail]);
    if (!best || area(r) > area(best)) best = r;
  }
  const r = best ?? { ...canvas };
  // never less than a third of the canvas either way (a very small window keeps a usable view)
  if (
    r.right - r.left < (canvas.right - canvas.left) / 3 ||
    r.bottom - r.top < (canvas.bottom - canvas.top) / 3
  ) {
    return { ...canvas };
  }
  return r;
}

/** The canvas with each overlay, in turn, cut away along the edge that loses the least area. */
function cutAway(canvas: Rect, overlays: Rect[]): Rect {
  const r = { ...canvas };
  for (const o of overlays) {
    const ix = Math.min(r.right, o.right) - Math.max(r.left, o.left);
    const iy = Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top);
    if (ix <= 0 || iy <= 0) continue; // does not overlap what is left
    const w = r.right - r.left;
    const h = r.bottom - r.top;
    const cuts: [number, () => void][] = [
      [(o.bottom - r.top) * w, () => (r.top = o.bottom)],
      [(r.bottom - o.top) * w, () => (r.bottom = o.top)],
      [(o.right - r.left) * h, () => (r.left = o.right)],
      [(r.right - o.left) * h, () => (r.right = o.left)],
    ];
    cuts.sort((a, b) => a[0] - b[0]);
    cuts[0][1]();
  }
  return r;
}

/** Every order of a few items (the first is the given order). */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  const out: T[][] = [];
  items.forEach((item, k) => {
    for (const rest of permutations([...items.slice(0, k), ...items.slice(k + 1)])) out.push([item, ...rest]);
  });
  return out;
}

/**
 * Shifts the camera's projection centre to the middle of `free` within a
 * canvas of width × height (CSS pixels); the field of view stays that of
 * the canvas height.
 */
export function centreOn(camera: PerspectiveCamera, width: number, height: number, free: Rect): void {
  const cx = 0.5 * (free.left + free.right);
  const cy = 0.5 * (free.top + free.bottom);
  camera.aspect = width / Math.max(1, height);
  camera.setViewOffset(width, height, width / 2 - cx, height / 2 - cy, width, height);
  camera.updateProjectionMatrix();
}

/** The canvas-pixel rectangle a box covers on screen (null when part of it is behind the camera). */
export function projectBox(camera: PerspectiveCamera, box: Box3, width: number, height: number): Rect | null {
  camera.updateMatrixWorld();
  const out = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  const p = new Vector3();
  const view = new Vector3();
  for (let k = 0; k < 8; k++) {
    p.set(k & 1 ? box.max.x : box.min.x, k & 2 ? box.max.y : box.min.y, k & 4 ? box.max.z : box.min.z);
    view.copy(p).applyMatrix4(camera.matrixWorldInverse);
    if (view.z > -camera.near) return null;
    p.project(camera);
    const x = ((p.x + 1) / 2) * width;
    const y = ((1 - p.y) / 2) * height;
    out.left = Math.min(out.left, x);
    out.right = Math.max(out.right, x);
    out.top = Math.min(out.top, y);
    out.bottom = Math.max(out.bottom, y);
  }
  return out;
}

/**
 * Places the camera on the line from the box's centre along `direction`
 * (toward the camera) at the nearest distance at which the box projects
 * inside `free` shrunk by `margin` (a fraction of its size). The camera's
 * view offset must already be set (centreOn).
 */
export function fitBox(
  camera: PerspectiveCamera,
  box: Box3,
  direction: Vector3,
  free: Rect,
  width: number,
  height: number,
  margin = 0.05,
): Vector3 {
  const centre = box.getCenter(new Vector3());
  const dir = direction.clone().normalize();
  const radius = Math.max(1e-3, 0.5 * box.getSize(new Vector3()).length());
  const mx = margin * (free.right - free.left);
  const my = margin * (free.bottom - free.top);
  const inner = {
    left: free.left + mx,
    right: free.right - mx,
    top: free.top + my,
    bottom: free.bottom - my,
  };
  const place = (d: number) => {
    camera.position.copy(centre).addScaledVector(dir, d);
    camera.lookAt(centre);
    camera.near = Math.max(1e-3, d / 400);
    camera.far = d + 200 * radius;
    camera.updateProjectionMatrix();
  };
  const fits = (d: number) => {
    place(d);
    const r = projectBox(camera, box, width, height);
    return (
      r !== null &&
      r.left >= inner.left &&
      r.right <= inner.right &&
      r.top >= inner.top &&
      r.bottom <= inner.bottom
    );
  };
  let lo = radius * 0.5;
  let hi = radius * 2;
  for (let k = 0; k < 30 && !fits(hi); k++) hi *= 2;
  for (let k = 0; k < 30; k++) {
    const mid = 0.5 * (lo + hi);
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  place(hi);
  return centre;
}
