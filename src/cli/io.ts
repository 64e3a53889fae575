import { once } from 'node:events';
import * as os from 'node:os';
import type { Clock } from '../rules/clock';
import type { FileAccess } from '../core/fileAccess';
import { nodeFileAccess } from '../platform/nodeFileAccess';
import { systemClock } from '../platform/systemClock';

/** Everything a subcommand touches outside itself, so tests can run it in-process. */
export interface CliIo {
  stdout(text: string): void;
  /** Resolves once stdout has taken in what was written (a slow pipe reader makes writes queue in memory). */
  stdoutDrained?(): Promise<void>;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  homedir: string;
  cwd: string;
  clock: Clock;
  files: FileAccess;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM); `watch` and `replay` end then. */
  stopSignal: Promise<void>;
  /**
   * Resolves when the terminal closes (SIGHUP); `replay` ends then, its hooks killed. Only a command
   * that asks gets a handler: one would undo `nohup`'s ignoring of the signal, which `watch` may run under.
   */
  hangupSignal?: Promise<void>;
  /**
   * Asks for `count` threads in libuv's pool, which does the file reads: only
   * where the user has not set UV_THREADPOOL_SIZE, and only before the pool's
   * first use (it reads the variable then).
   */
  ioThreads?(count: number): void;
}

interface ErrorSource {
  on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): unknown;
}

/** A write that failed because its reader is gone: a closed pipe, or a terminal that hung up (EIO). */
const READER_GONE = new Set(['EPIPE', 'EIO']);

/**
 * A reader that goes away (`transcript-lag analyze f --json | head -c1`, a closed terminal) is the
 * reader's choice, not our failure: when stdout's reader is gone, the command ends quietly (exit 0)
 * instead of dying on an unhandled EPIPE; what must be undone then (replay's hooks and temp folder)
 * is undone on the way out (src/platform/exitCleanup.ts). A stderr whose reader is gone is ignored:
 * there is nowhere left to say anything. Any other stream error is thrown as before.
 */
export function endQuietlyOnClosedPipe(stdout: ErrorSource, stderr: ErrorSource, exit: (code: number) => void): void {
  stdout.on('error', (err) => {
    if (!READER_GONE.has(err.code ?? '')) throw err;
    exit(0);
  });
  stderr.on('error', (err) => {
    if (!READER_GONE.has(err.code ?? '')) throw err;
  });
}

export function nodeIo(): CliIo {
  endQuietlyOnClosedPipe(process.stdout, process.stderr, (code) => process.exit(code));
  // Signal handlers replace Node's default of exiting, so install them only for a
  // command that asks for the stop signal (watch, replay): Ctrl-C must still end analyze.
  let stopSignal: Promise<void> | undefined;
  let hangupSignal: Promise<void> | undefined;
  return {
    get stopSignal() {
      stopSignal ??= new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      return stopSignal;
    },
    get hangupSignal() {
      hangupSignal ??= new Promise<void>((resolve) => {
        process.once('SIGHUP', () => resolve());
      });
      return hangupSignal;
    },
    stdout: (t) => process.stdout.write(t),
    stdoutDrained: () => (process.stdout.writableNeedDrain ? once(process.stdout, 'drain').then(() => undefined) : Promise.resolve()),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    homedir: os.homedir(),
    cwd: process.cwd(),
    clock: systemClock,
    files: nodeFileAccess,
    ioThreads: (count) => {
      process.env.UV_THREADPOOL_SIZE ??= String(count);
    },
  };
}
