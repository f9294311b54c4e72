/**
 * Node file helpers: atomic writes, scene files with their meshes, and the
 * scenes shipped with the package.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PbdError } from '../core/errors.js';
import {
  type BuildOptions,
  buildScene,
  parseSceneText,
  type SceneInstance,
  type SceneSpec,
} from '../io/scene/scene.js';
import { didYouMean } from './suggest.js';

let tmpCounter = 0;

/**
 * Writes a file atomically: the data goes to a temporary file in the same
 * directory, is flushed to disk, and is then renamed over `path`. Readers see
 * either the old file or the complete new one, never a partial write, even
 * if the process is killed midway. Parent directories are created.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${tmpCounter++}.tmp`);
  let fd = -1;
  try {
    fd = openSync(tmp, 'w');
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(tmp, path);
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    rmSync(tmp, { force: true });
    throw writeError(path, e as NodeJS.ErrnoException);
  }
}

/**
 * Removes the temporary files that `writeFileAtomic` left in `dir` when its
 * process was killed mid-write (`.<name>.<pid>.<n>.tmp` of a process that is
 * no longer running). Returns how many were removed.
 */
export function removeStaleTemporaries(dir: string): number {
  if (!existsSync(dir)) return 0;
  let removed = 0;
  for (const f of readdirSync(dir)) {
    const m = /^\..+\.(\d+)\.\d+\.tmp$/.exec(f);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid !== process.pid && processIsRunning(pid)) continue;
    rmSync(join(dir, f), { force: true });
    removed++;
  }
  return removed;
}

function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const writeProblems: Record<string, string> = {
  EISDIR: 'a folder has that name',
  ENOTDIR: 'a parent of it is not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
};

/** A file system error about `path` itself (not the temporary file), keeping its code. */
function writeError(path: string, e: NodeJS.ErrnoException): NodeJS.ErrnoException {
  const why = (e.code && writeProblems[e.code]) || e.message;
  const err: NodeJS.ErrnoException = new Error(
    `cannot write the file: ${why}${e.code ? ` (${e.code})` : ''}`,
  );
  err.code = e.code;
  err.path = path;
  err.syscall = e.syscall;
  return err;
}

/** A scene loaded from a file, with what is needed to recognise it again. */
export interface LoadedScene extends SceneInstance {
  /** The scene file as named by the caller (used in messages). */
  file: string;
  /** Absolute path of the scene file. */
  path: string;
  /** SHA-256 of the scene text and of every file it read (meshes), in order. */
  digest: string;
}

/** Reads a text file; a failure is a PbdError naming the file. */
export function readTextFile(path: string, what = 'file'): string {
  try {
    if (statSync(path).isDirectory()) {
      throw new PbdError('file/is-directory', path, `is a directory, not a ${what}`, `name a ${what}`);
    }
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof PbdError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new PbdError(
      code === 'ENOENT' ? 'file/missing' : 'file/unreadable',
      path,
      code === 'ENOENT' ? `${what} not found` : `cannot read the ${what} (${(e as Error).message})`,
      code === 'ENOENT' ? 'check the path (relative paths start from the current directory)' : '',
    );
  }
}

/**
 * Reads, validates and builds a scene file. Mesh files named in the scene
 * are read relative to the scene file. Every error is a PbdError naming the
 * file and, for problems inside it, the JSON path.
 */
export function loadSceneFile(
  file: string,
  options: Omit<BuildOptions, 'file' | 'readFile'> = {},
): LoadedScene {
  const path = resolve(file);
  const text = readSceneText(file);
  const hash = createHash('sha256').update(text);
  const spec = parseSceneText(text, file, options.limits);
  const dir = dirname(path);
  const inst = buildScene(spec, {
    ...options,
    file,
    readFile: (p) => {
      const content = readFileSync(resolve(dir, p), 'utf8');
      hash.update(`\0${p}\0`).update(content);
      return content;
    },
  });
  return { ...inst, file, path, digest: hash.digest('hex') };
}

/** Reads and validates a scene file without building it. */
export function readSceneFile(file: string): SceneSpec {
  return parseSceneText(readSceneText(file), file);
}

/**
 * Reads a scene file; a missing one that looks like a misspelt built-in
 * scene name (`cloth-flg`) gets a "did you mean" hint.
 */
function readSceneText(file: string): string {
  try {
    return readTextFile(file, 'scene file');
  } catch (e) {
    if (!(e instanceof PbdError) || e.code !== 'file/missing') throw e;
    const typed = basename(file).replace(/\.json$/i, '');
    const names = builtinScenes().map((s) => s.name);
    const guess = didYouMean(typed, names);
    const hint = guess
      ? `${guess} (\`pbdkit scenes\` lists the scenes that ship with pbdkit)`
      : /[\\/]/.test(file)
        ? e.hint
        : 'give a path to a scene file, or the name of a built-in scene (`pbdkit scenes` lists them)';
    throw new PbdError(e.code, e.where, e.detail, hint);
  }
}

/** The root folder of the installed pbdkit package (holds package.json, scenes/, schema/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if (JSON.parse(readFileSync(pkg, 'utf8')).name === 'pbdkit') return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the pbdkit package folder');
    dir = up;
  }
}

/** A scene shipped in the package's scenes/ folder. */
export interface BuiltinScene {
  /** File name without `.json`, e.g. `cloth-flag`. */
  name: string;
  path: string;
  title: string;
  family: string;
  figure?: string;
  description?: string;
}

/** The scenes shipped with pbdkit, by name. */
export function builtinScenes(): BuiltinScene[] {
  const dir = join(packageRoot(), 'scenes');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const path = join(dir, f);
      const json = JSON.parse(readFileSync(path, 'utf8')) as Partial<SceneSpec>;
      return {
        name: f.slice(0, -5),
        path,
        title: json.title ?? '',
        family: json.family ?? '',
        figure: json.figure,
        description: json.description,
      };
    });
}

/**
 * Resolves what a user typed for a scene: an existing file wins; otherwise a
 * bare name like `cloth-flag` names a built-in scene. Anything else is
 * returned unchanged (so that loading it reports the missing file).
 */
export function resolveScenePath(arg: string): string {
  if (existsSync(arg) || /[\\/]/.test(arg)) return arg;
  const name = arg.endsWith('.json') ? arg.slice(0, -5) : arg;
  const hit = builtinScenes().find((s) => s.name === name);
  return hit ? hit.path : arg;
}
