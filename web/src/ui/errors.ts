/** Scene errors shown in the page: the file, and every problem with its JSON path. */
import type { LoadError } from '../sim/protocol.js';

let panel: HTMLElement | null = null;

export function showError(e: LoadError, title = `Could not load ${e.file}`): void {
  hideError();
  const el = document.createElement('section');
  el.className = 'error-panel';
  el.setAttribute('role', 'alert');
  el.dataset.testid = 'scene-error';
  const h = document.createElement('h2');
  h.textContent = title;
  const close = document.createElement('button');
  close.className = 'close';
  close.textContent = '×';
  close.title = 'Dismiss';
  close.onclick = hideError;
  el.append(close, h);
  if (e.issues.length) {
    const list = document.createElement('ul');
    for (const i of e.issues) {
      const li = document.createElement('li');
      const path = document.createElement('code');
      path.className = 'path';
      path.textContent = i.path || '(root)';
      li.append(path, document.createTextNode(` ${i.message}`));
      list.append(li);
    }
    el.append(list);
  } else {
    const p = document.createElement('p');
    p.textContent = e.message;
    el.append(p);
  }
  const hint = document.createElement('p');
  hint.className = 'hint';
  hint.textContent =
    'Scene files are checked against schema/scene.schema.json; paths name the offending JSON field.';
  el.append(hint);
  document.body.append(el);
  panel = el;
}

export function hideError(): void {
  panel?.remove();
  panel = null;
}
