/**
 * Runs one command hook as Claude Code runs it: the shell form through `sh -c`, the exec form
 * (`command` and `args`) with no shell; its input on stdin, then stdin closed. It leads a process
 * group of its own (POSIX), so a timeout kills the hook and everything it started; its output is
 * kept up to MAX_HOOK_OUTPUT_BYTES a stream and the rest read and dropped, so a hook that writes a
 * lot never blocks on a full pipe. For `transcript-lag replay` (src/cli/replay.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { HookOutcome } from '../core/replay/decision';
import { undoAtExit } from './exitCleanup';

/** What is kept of each of stdout and stderr. */
export const MAX_HOOK_OUTPUT_BYTES = 64 * 1024;

/**
 * The longest delay a Node timer keeps: a longer one (or Infinity) fires at once, so a settings
 * `timeout` past ~24.8 days would have been a 1 ms timeout. Past it, a hook runs as with no timeout.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

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

const isWindows = process.platform === 'win32';

/** SIGKILL to the hook's whole process group; on Windows, its process tree. */
function killTree(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (isWindows) spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => child.kill('SIGKILL'));
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** The same, synchronously, for a process that is exiting (no callback would run). */
function killTreeNow(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (isWindows) spawnSync('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true, timeout: 5000 });
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Keeps the first `max` bytes of a stream and reads the rest into nothing. */
function keeper(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  return {
    take(chunk: Buffer) {
      if (kept >= max) return;
      const part = chunk.length > max - kept ? chunk.subarray(0, max - kept) : chunk;
      chunks.push(part);
      kept += part.length;
    },
    text: () => Buffer.concat(chunks, kept).toString('utf8'),
  };
}

/** Runs the hook to its end or its timeout. `stop`: abort it now (the replay was interrupted). Never rejects. */
export function runCommandHook(spec: CommandHookSpec, stop?: AbortSignal): Promise<CommandHookRun> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const [file, args] = spec.args !== undefined ? [spec.command, [...spec.args]] : [isWindows ? 'sh' : '/bin/sh', ['-c', spec.command]];
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(file, args, { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'], detached: !isWindows, windowsHide: true });
    } catch (err) {
      resolve({ exitCode: null, timedOut: false, spawnError: `could not start: ${(err as Error).message}`, stdout: '', stderr: '', ms: elapsed() });
      return;
    }
    const out = keeper(MAX_HOOK_OUTPUT_BYTES);
    const err = keeper(MAX_HOOK_OUTPUT_BYTES);
    child.stdout!.on('data', (c: Buffer) => out.take(c));
    child.stderr!.on('data', (c: Buffer) => err.take(c));
    // A hook may exit without reading its input: not an error of ours.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(spec.input);
    // The hook leads a group of its own: if we exit before it ends (a closed pipe, an uncaught error),
    // it and its children would run on past any timeout.
    const forget = undoAtExit(() => killTreeNow(child));
    let timedOut = false;
    let spawnError: string | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null; ms: number } | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      forget();
      clearTimeout(timer);
      clearTimeout(grace);
      stop?.removeEventListener('abort', onStop);
      child.stdout!.destroy();
      child.stderr!.destroy();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        timeoutMs: spec.timeoutMs,
        ...(spawnError !== undefined ? { spawnError } : {}),
        stdout: out.text(),
        stderr: err.text(),
        ms: exit?.ms ?? elapsed(),
        ...(child.pid !== undefined ? { pid: child.pid } : {}),
      });
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        killTree(child);
      },
      spec.timeoutMs > 0 ? Math.min(spec.timeoutMs, MAX_TIMER_MS) : MAX_TIMER_MS,
    );
    let grace: NodeJS.Timeout | undefined;
    const onStop = () => killTree(child);
    stop?.addEventListener('abort', onStop);
    child.on('error', (e) => {
      spawnError = `could not start: ${e.message}`;
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal, ms: elapsed() };
      clearTimeout(timer);
      grace = setTimeout(finish, OUTPUT_GRACE_MS);
    });
    child.on('close', finish);
  });
}
