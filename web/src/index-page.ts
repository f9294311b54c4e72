/**
 * The index: every scene in scenes/, grouped by method family, with title,
 * figure and thumbnail. Thumbnails are images rendered once by
 * `npm run thumbnails` (scripts/thumbnails.ts: the gallery's own renderer in
 * headless Chromium) into web/thumbnails/, so the index is complete on first
 * paint and simulates nothing.
 */
import { byFamily, type CatalogEntry } from './catalog.js';
import { listingPage } from './ui/page.js';

const thumbnails = import.meta.glob<string>('../thumbnails/*.webp', {
  eager: true,
  query: '?url',
  import: 'default',
});

/** The URL of a scene's thumbnail, if it has one. */
export function thumbnailUrl(name: string): string | undefined {
  return thumbnails[`../thumbnails/${name}.webp`];
}

export class IndexPage {
  readonly root: HTMLElement;

  constructor(parent: HTMLElement, isolated: boolean) {
    const { root, header } = listingPage(
      '',
      `
      <h1>pbdkit <span>gallery</span></h1>
      <p>Position-based dynamics from the papers, live: every scene in <code>scenes/</code> runs here.
      Drag a surface to pull it, tune the solver and the materials, and watch the energy and the constraint error.</p>
      <p class="sources-link">The papers behind the scenes, and what pbdkit takes from each: <a href="#sources">sources</a>.</p>
      <p class="drop-hint">Drop a scene <code>.json</code> file (and the mesh files it names) anywhere on the page to run it.</p>`,
    );
    this.root = root;
    if (!isolated) {
      const note = document.createElement('p');
      note.className = 'mode fallback';
      note.textContent =
        'This page is not cross-origin isolated: scenes will run on the main thread instead of a worker.';
      header.append(note);
    }
    root.append(header);
    for (const [family, entries] of byFamily()) {
      const section = document.createElement('section');
      section.className = 'family';
      section.dataset.family = family;
      const h = document.createElement('h2');
      h.textContent = family;
      const count = document.createElement('span');
      count.className = 'count';
      count.textContent = `${entries.length} scene${entries.length === 1 ? '' : 's'}`;
      h.append(count);
      const grid = document.createElement('div');
      grid.className = 'cards';
      for (const e of entries) grid.append(this.card(e));
      section.append(h, grid);
      root.append(section);
    }
    parent.append(root);
  }

  private card(e: CatalogEntry): HTMLElement {
    const a = document.createElement('a');
    a.className = 'card scene-card';
    a.href = `#scene=${encodeURIComponent(e.name)}`;
    a.dataset.scene = e.name;
    const figure = document.createElement('div');
    figure.className = 'thumb';
    const img = document.createElement('img');
    img.alt = e.title;
    img.width = 480;
    img.height = 300;
    const url = e.dropped ? undefined : thumbnailUrl(e.name);
    if (url) {
      img.src = url;
      img.decoding = 'async';
      figure.classList.add('ready');
    } else {
      figure.classList.add('missing');
      img.alt = `${e.title} (no thumbnail yet: npm run thumbnails)`;
    }
    figure.append(img);
    const body = document.createElement('div');
    body.className = 'card-body';
    const title = document.createElement('h3');
    title.textContent = e.title;
    body.append(title);
    if (e.figure) {
      const f = document.createElement('p');
      f.className = 'figure';
      f.textContent = e.figure;
      body.append(f);
    }
    const file = document.createElement('p');
    file.className = 'file';
    file.textContent = `scenes/${e.file}`;
    body.append(file);
    a.append(figure, body);
    return a;
  }

  dispose(): void {
    this.root.remove();
  }
}
