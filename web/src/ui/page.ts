/**
 * The frame of the gallery's listing pages (the index, the sources): a root
 * of class `index-page` (plus `extraClass`) and its header, holding the
 * given HTML. The caller appends the header once it has added to it.
 */
export function listingPage(
  extraClass: string,
  headerHtml: string,
): { root: HTMLDivElement; header: HTMLElement } {
  const root = document.createElement('div');
  root.className = extraClass ? `index-page ${extraClass}` : 'index-page';
  const header = document.createElement('header');
  header.className = 'index-header';
  header.innerHTML = headerHtml;
  return { root, header };
}
