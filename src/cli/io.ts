import { once } from 'node:events';
import * as os from 'node:os';
import type { Clock } from '../core/clock';
import type { FileAccess } from '../core/fileAccess';
import { nodeFileAccess } from '../platform/nodeFileAccess';

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
  /** Resolves when the user asks to stop (SIGINT/SIGTERM); `watch` ends then. */
  stopSignal: Promise<void>;
}

export function nodeIo(): CliIo {
  // Signal handlers replace Node's default of exiting, so install them only for a
  // command that asks for the stop signal (watch): Ctrl-C must still end analyze.
  let stopSignal: Promise<void> | undefined;
  return {
    get stopSignal() {
      stopSignal ??= new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      return stopSignal;
    },
    stdout: (t) => process.stdout.write(t),
    stdoutDrained: () => (process.stdout.writableNeedDrain ? once(process.stdout, 'drain').then(() => undefined) : Promise.resolve()),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    homedir: os.homedir(),
    cwd: process.cwd(),
    clock: { now: () => Date.now() },
    files: nodeFileAccess,
  };
}
