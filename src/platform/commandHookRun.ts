/**
 * Runs one command hook as Claude Code runs it: the shell form through `sh -c`, the exec form
 * (`command` and `args`) with no shell; its input on stdin, then stdin closed. It leads a process
 * group of its own (POSIX), so a timeout kills the hook and everything it started; its output is
 * kept up to MAX_HOOK_OUTPUT_BYTES a stream and the rest read and dropped, so a hook that writes a
 * lot never blocks on a full pipe. For `transcript-lag replay` (src/cli/replay.ts).
 */
import type { HookOutcome } from '../core/replay/decision';
import { undoAtExit } from './exitCleanup';
import { runInGroup } from '../rules/processGroupRun';

/** What is kept of each of stdout and stderr. */
export const MAX_HOOK_OUTPUT_BYTES = 64 * 1024;

/** After the hook exits, how long its output may take to end (a child it left may hold the pipes open). */
const OUTPUT_GRACE_MS = 250;

export interface CommandHookSpec {
  /** Shell form: the command line. Exec form: the program. */
  command: string;
  /** Exec form: the program's arguments. */
  args?: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  input: string;
  timeoutMs: number;
}

export interface CommandHookRun extends HookOutcome {
  ms: number;
  /** The hook's process id (its group's id on POSIX), for tests. */
  pid?: number;
}

/** Runs the hook to its end or its timeout (src/rules/processGroupRun.ts). `stop`: abort it now (the replay was interrupted). Never rejects. */
export async function runCommandHook(spec: CommandHookSpec, stop?: AbortSignal): Promise<CommandHookRun> {
  const [file, args] = spec.args !== undefined ? [spec.command, [...spec.args]] : [process.platform === 'win32' ? 'sh' : '/bin/sh', ['-c', spec.command]];
  const run = await runInGroup(
    {
      file,
      args,
      cwd: spec.cwd,
      env: spec.env,
      input: spec.input,
      timeoutMs: spec.timeoutMs,
      maxBytes: MAX_HOOK_OUTPUT_BYTES,
      stderr: true,
      overflow: 'drain',
      end: { kind: 'wait', outputGraceMs: OUTPUT_GRACE_MS },
      // The hook leads a group of its own: if we exit before it ends (a closed pipe, an uncaught error),
      // it and its children would run on past any timeout.
      atExit: undoAtExit,
    },
    stop,
  );
  if (run.notStarted) return { exitCode: null, timedOut: false, spawnError: run.spawnError, stdout: '', stderr: '', ms: run.ms };
  return {
    exitCode: run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    timeoutMs: spec.timeoutMs,
    ...(run.spawnError !== undefined ? { spawnError: run.spawnError } : {}),
    stdout: run.stdout.toString('utf8'),
    stderr: run.stderr.toString('utf8'),
    ms: run.ms,
    ...(run.pid !== undefined ? { pid: run.pid } : {}),
  };
}
