/**
 * The scenes that ship in scenes/, for the scripts and tests that run them:
 * their files in name order, each loaded with the side files it names
 * (meshes) read from scenes/, and the `--name value` options of the scripts
 * that walk them. One home for what scene-checksums, scene-timings,
 * scene-views and the scene tests used to write out each.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { type BuildOptions, loadScene, type SceneInstance } from '../src/index.js';

/** scenes/ of this checkout. */
export const scenesDir = new URL('../scenes/', import.meta.url);

/** The scene files (`name.json`), sorted by name; with `only`, just those whose names it lists. */
export function sceneFiles(only?: readonly string[]): string[] {
  return readdirSync(scenesDir)
    .filter((f) => f.endsWith('.json'))
    .filter((f) => !only || only.includes(f.replace(/\.json$/, '')))
    .sort();
}

/** The text of scenes/`file`. */
export function sceneText(file: string): string {
  return readFileSync(new URL(file, scenesDir), 'utf8');
}

/**
 * Loads a shipped scene by its name (`cloth-drape`) or file (`cloth-drape.json`),
 * reading the files it names from scenes/.
 */
export function loadShippedScene(
  name: string,
  options: Omit<BuildOptions, 'file' | 'readFile'> = {},
): SceneInstance {
  const file = name.endsWith('.json') ? name : `${name}.json`;
  return loadScene(sceneText(file), { ...options, file, readFile: sceneText });
}

/** A script's `--name value` option from its command line, or undefined. */
export function scriptOption(name: string): string | undefined {
  const args = process.argv.slice(2);
  const k = args.indexOf(`--${name}`);
  return k >= 0 ? args[k + 1] : undefined;
}
