/**
 * What every command gets: where to print, whether stderr is a terminal,
 * and the exit code to finish with. Commands never call process.exit, so
 * they can run in-process (tests, other tools).
 */
export interface CliContext {
  /** Writes to standard output (results). */
  out(text: string): void;
  /** Writes to standard error (progress, warnings, errors). */
  err(text: string): void;
  /** Standard error is a terminal (progress bar instead of progress lines). */
  isTTY: boolean;
  /** Print stack traces of unexpected errors. */
  debug: boolean;
  /** The command line (as process.argv: node, script, arguments…). */
  argv: string[];
  /** The exit code of the command (see ExitCode). */
  exitCode: number;
}

/** Exit codes of the pbdkit command (documented in docs/cli.md). */
export const ExitCode = {
  /** Success. */
  ok: 0,
  /** The simulation or writing an output failed; with --strict, the simulation needed its NaN/speed guards. */
  runtime: 1,
  /** Invalid input: a bad option, a missing or invalid scene, mesh or checkpoint. */
  input: 2,
  /** Stopped by a signal after writing a checkpoint: 128 + the signal number (SIGINT 130, SIGTERM 143). */
  interrupted: 130,
} as const;

export function processContext(): CliContext {
  // `pbdkit … | head` closes the pipe early: stop quietly instead of crashing on EPIPE
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: !!process.stderr.isTTY,
    debug: !!process.env.PBDKIT_DEBUG,
    argv: process.argv,
    exitCode: 0,
  };
}
