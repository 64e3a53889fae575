import type { CliIo } from '../../../src/cli/io';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';

export interface CapturedIo {
  io: CliIo;
  out: () => string;
  err: () => string;
}

/** A CliIo over the real file system that keeps what a command prints. */
export function capturingIo(cwd: string, env: NodeJS.ProcessEnv = {}, now = 1_800_000_000_000): CapturedIo {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    env,
    homedir: cwd,
    cwd,
    clock: { now: () => now },
    files: nodeFileAccess,
    stopSignal: new Promise(() => undefined),
  };
  return { io, out: () => out, err: () => err };
}
