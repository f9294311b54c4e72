import { CommanderError } from 'commander';
import { PbdError } from '../src/core/errors.js';
import { SceneError } from '../src/io/scene/common.js';
import { type CliContext, ExitCode } from './context.js';

/** An error raised while simulating (not while reading the input): exit code 1. */
export class RuntimeFailure extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'RuntimeFailure';
  }
}

/** Formats a PbdError for the terminal: where and what on one line, the fix below, no stack. */
export function formatPbdError(e: PbdError): string {
  if (e instanceof SceneError) {
    const lines = e.issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`);
    const head = e.issues.length === 1 ? 'invalid scene' : `invalid scene, ${e.issues.length} problems`;
    return `pbdkit: ${e.where}: ${head}:\n${lines.join('\n')}\n  fix: correct the values above (schema/scene.schema.json describes every option)\n`;
  }
  const where = e.where ? `${e.where}: ` : '';
  const detail = e.detail.includes('\n') ? e.detail.replace(/\n/g, '\n  ') : e.detail;
  return `pbdkit: ${where}${detail}\n${e.hint ? `  fix: ${e.hint}\n` : ''}`;
}

/** Prints an error the way the user should see it and returns its exit code. */
export function reportError(e: unknown, ctx: CliContext): number {
  if (e instanceof CommanderError) {
    // commander has printed its message already (help, version, usage errors)
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return ExitCode.ok;
    return e.exitCode === 0 ? ExitCode.ok : ExitCode.input;
  }
  if (e instanceof PbdError) {
    ctx.err(formatPbdError(e));
    return ExitCode.input;
  }
  if (e instanceof RuntimeFailure) {
    const cause = e.cause instanceof Error ? e.cause : null;
    ctx.err(`pbdkit: ${e.message}${cause ? `: ${cause.message}` : ''}\n`);
    if (ctx.debug && cause?.stack) ctx.err(`${cause.stack}\n`);
    return ExitCode.runtime;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as NodeJS.ErrnoException).code;
  const path = (err as NodeJS.ErrnoException).path;
  if (code && path) {
    // a file system error while writing an output
    ctx.err(
      `pbdkit: ${path}: ${err.message}\n  fix: check that the folder exists and is writable and the disk has space\n`,
    );
  } else {
    ctx.err(`pbdkit: unexpected error: ${err.message}\n`);
    ctx.err(ctx.debug && err.stack ? `${err.stack}\n` : '  (set PBDKIT_DEBUG=1 for the stack trace)\n');
  }
  return ExitCode.runtime;
}
