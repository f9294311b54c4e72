/**
 * The scene catalogue: every scenes/*.json file, found at build time by
 * import.meta.glob (a new file appears without code changes), plus scenes
 * dropped on the page. Files a scene reads (OBJ meshes …) are loaded on
 * demand.
 */

export interface CatalogEntry {
  /** URL name: the file name without .json (e.g. 'cloth-bag'). */
  name: string;
  file: string;
  text: string;
  title: string;
  family: string;
  figure: string;
  description: string;
  /** Why the scene cannot run in real time (its `offline` field), or ''. */
  offline: string;
  /** Dropped on the page (not in scenes/). */
  dropped: boolean;
  /** Extra files dropped together with the scene. */
  files: Record<string, string>;
}

const sceneTexts = import.meta.glob<string>('../../scenes/*.json', {
  eager: true,
  query: '?raw',
  import: 'default',
});
const assetLoaders = import.meta.glob<string>(['../../scenes/**/*', '!../../scenes/*.json'], {
  query: '?raw',
  import: 'default',
});

const dropped = new Map<string, CatalogEntry>();

/** Summary fields of a scene text, tolerant of invalid files (validation happens on load). */
function summarize(name: string, file: string, text: string, isDropped: boolean): CatalogEntry {
  let json: Record<string, unknown> = {};
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object') json = v as Record<string, unknown>;
  } catch {
    // shown as an error when the scene is opened
  }
  const str = (v: unknown, d: string) => (typeof v === 'string' && v ? v : d);
  return {
    name,
    file,
    text,
    title: str(json.title, name),
    family: str(json.family, 'other'),
    figure: str(json.figure, ''),
    description: str(json.description, ''),
    offline: str(json.offline, ''),
    dropped: isDropped,
    files: {},
  };
}

export const scenes: CatalogEntry[] = Object.entries(sceneTexts)
  .map(([path, text]) => {
    const file = path.slice(path.lastIndexOf('/') + 1);
    return summarize(file.replace(/\.json$/, ''), file, text, false);
  })
  .sort((a, b) => a.name.localeCompare(b.name));

/** Scenes grouped by family, families in alphabetical order. */
export function byFamily(): [string, CatalogEntry[]][] {
  const groups = new Map<string, CatalogEntry[]>();
  for (const s of scenes) {
    const g = groups.get(s.family) ?? [];
    g.push(s);
    groups.set(s.family, g);
  }
  return [...groups.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

export function findScene(name: string): CatalogEntry | undefined {
  return dropped.get(name) ?? scenes.find((s) => s.name === name);
}

/** Registers a dropped scene (and the files dropped with it); returns its entry. */
export function addDroppedScene(file: string, text: string, files: Record<string, string>): CatalogEntry {
  const name = `dropped:${file.replace(/\.json$/i, '')}`;
  const entry = { ...summarize(name, file, text, true), files };
  dropped.set(name, entry);
  return entry;
}

/**
 * The files a scene names (mesh files …), relative to scenes/, read from
 * the files dropped with it or from the repository's scenes/ folder.
 */
export async function sceneAssets(entry: CatalogEntry): Promise<Record<string, string>> {
  const out: Record<string, string> = { ...entry.files };
  for (const path of referencedFiles(entry.text)) {
    if (out[path] !== undefined) continue;
    const load = assetLoaders[`../../scenes/${path.replace(/^\.\//, '')}`];
    if (load) out[path] = await load();
  }
  return out;
}

/**
 * Every string value of the scene that could name a file (any key: mesh
 * files, tet meshes …); only those that exist under scenes/ are loaded.
 */
function referencedFiles(text: string): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (/^[\w./-]+\.\w+$/.test(v)) out.add(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  try {
    walk(JSON.parse(text));
  } catch {
    // invalid JSON: the parser reports it
  }
  return [...out];
}
