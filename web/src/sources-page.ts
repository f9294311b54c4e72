/**
 * The sources page (`#sources`, `#sources/003`): each paper pbdkit
 * implements, with its authors and year, what pbdkit takes from it and the
 * scenes that reproduce its figures. Scene pages link their figure
 * references here.
 */
import { scenes } from './catalog.js';
import { sources } from './sources.js';
import { listingPage } from './ui/page.js';

export class SourcesPage {
  readonly root: HTMLElement;

  constructor(parent: HTMLElement, focus: string | null) {
    const { root, header } = listingPage(
      'sources-page',
      `
      <p><a class="back" href="#">← All scenes</a></p>
      <h1>Sources</h1>
      <p>The papers pbdkit implements. A scene's figure reference such as <em>003 Figure 3</em> names the paper
      by the number below; the code cites the equations where they land.</p>`,
    );
    this.root = root;
    root.append(header);
    const list = document.createElement('ol');
    list.className = 'sources';
    for (const s of sources) {
      const li = document.createElement('li');
      li.id = `source-${s.id}`;
      li.className = 'card source';
      li.dataset.source = s.id;
      if (s.id === focus) li.classList.add('focus');
      const h = document.createElement('h2');
      h.innerHTML = `<span class="num"></span> <span class="title"></span>`;
      h.querySelector('.num')!.textContent = s.id;
      h.querySelector('.title')!.textContent = s.title;
      const who = document.createElement('p');
      who.className = 'authors';
      who.textContent = `${s.authors}. ${s.venue}, ${s.year}.`;
      const takes = document.createElement('p');
      takes.textContent = s.takes;
      const docs = document.createElement('p');
      docs.className = 'docs';
      docs.textContent = `Documentation: ${s.docs.map((d) => `docs/${d}`).join(', ')}`;
      li.append(h, who, takes, docs);
      const citing = scenes.filter((e) => new RegExp(`\\b${s.id}\\b`).test(e.figure));
      if (citing.length) {
        const p = document.createElement('p');
        p.className = 'citing';
        p.append('Scenes: ');
        citing.forEach((e, k) => {
          const a = document.createElement('a');
          a.href = `#scene=${encodeURIComponent(e.name)}`;
          a.textContent = e.title;
          if (k > 0) p.append(' · ');
          p.append(a);
        });
        li.append(p);
      }
      list.append(li);
    }
    root.append(list);
    parent.append(root);
    if (focus) root.querySelector(`#source-${CSS.escape(focus)}`)?.scrollIntoView({ block: 'start' });
  }

  dispose(): void {
    this.root.remove();
  }
}
