/**
 * Runs a program in a process group of its own (POSIX; on Windows, hidden, its tree killed with
 * taskkill), its input on stdin and then stdin closed, what it prints kept up to a bound a stream.
 * A kill (a timeout, too much output, a stop) goes to the whole group: killing only `sh` would leave
 * its `sleep` or `yes` running after us. The one runner of `replay`'s command hooks
 * (src/platform/commandHookRun.ts) and the status line's wrapped command (src/cli/statusline.ts), which
 * requires it only when it wraps one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

/**
 * The longest delay a Node timer keeps: a longer one (or Infinity) fires at once, so a settings
 * `timeout` past ~24.8 days would have been a 1 ms timeout. Past it, a program runs as with no timeout.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

const isWindows = process.platform === 'win32';

export interface GroupRunSpec {
  file: string;
  args: readonly string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  input: string;
  /** Past it the group is killed; 0 or less: no timeout. */
  timeoutMs: number;
  /** Bytes kept of each of stdout and stderr. */
  maxBytes: number;
  /** stderr kept (else ignored). */
  stderr: boolean;
  /** Past maxBytes of stdout: `kill`, the group is killed and the run ends (`yes`); `drain`, the rest is read and dropped, so a full pipe never blocks it. */
  overflow: 'kill' | 'drain';
  /**
   * `wait`: after a kill, the run ends when the program does (its exit code and signal said), and
   * after its exit its output gets `outputGraceMs` to end (a child it left may hold the pipes open).
   * `now`: a kill ends the run at once with what it printed so far; otherwise it ends at the pipes' close.
   */
  end: { kind: 'wait'; outputGraceMs: number } | { kind: 'now' };
  /** Registers a kill of the group for when this process exits first; returns its undo (src/platform/exitCleanup.ts `undoAtExit`). */
  atExit?: (kill: () => void) => () => void;
}

export interface GroupRun {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  spawnError?: string;
  /** The spawn itself threw: nothing ran (a spawn that fails later, ENOENT, says so in `spawnError` alone). */
  notStarted?: true;
  ms: number;
  /** The process id (its group's on POSIX). */
  pid?: number;
}

/** SIGKILL to the child's whole process group (it leads its own: `detached`); on Windows, its process tree; else to the child alone. */
export function killGroup(child: { pid?: number; kill(signal: NodeJS.Signals): boolean }): void {
  if (child.pid === undefined) return;
  try {
    // No process groups on Windows: taskkill ends the program and everything it started (/T).
    if (isWindows) spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => child.kill('SIGKILL'));
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** The same, synchronously, for a process that is exiting (no callback would run). */
function killGroupNow(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (isWindows) spawnSync('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true, timeout: 5000 });
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Keeps the first `max` bytes of a stream; `take` says whether the chunk fit whole. */
function keeper(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  return {
    take(chunk: Buffer): boolean {
      if (chunk.length <= max - kept) {
        chunks.push(chunk);
        kept += chunk.length;
        return true;
      }
      if (kept < max) chunks.push(chunk.subarray(0, max - kept));
      kept = max;
      return false;
    },
    bytes: () => Buffer.concat(chunks, kept),
  };
}

/** Runs the program to its end, its timeout or a kill. `stop`: kill it now. Never rejects. */
export function runInGroup(spec: GroupRunSpec, stop?: AbortSignal): Promise<GroupRun> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      // Windows: a detached child would get a console window of its own; its tree is killed with taskkill instead.
      child = spawn(spec.file, [...spec.args], { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', spec.stderr ? 'pipe' : 'ignore'], detached: !isWindows, windowsHide: true });
    } catch (err) {
      resolve({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: null, signal: null, timedOut: false, spawnError: `could not start: ${(err as Error).message}`, notStarted: true, ms: elapsed() });
      return;
    }
    const out = keeper(spec.maxBytes);
    const err = keeper(spec.maxBytes);
    let timedOut = false;
    let spawnError: string | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null; ms: number } | undefined;
    let done = false;
    let grace: NodeJS.Timeout | undefined;
    const forget = spec.atExit?.(() => killGroupNow(child));
    const finish = () => {
      if (done) return;
      done = true;
      forget?.();
      clearTimeout(timer);
      clearTimeout(grace);
      stop?.removeEventListener('abort', onStop);
      child.stdout!.destroy();
      child.stderr?.destroy();
      resolve({
        stdout: out.bytes(),
        stderr: err.bytes(),
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        ...(spawnError !== undefined ? { spawnError } : {}),
        ms: exit?.ms ?? elapsed(),
        ...(child.pid !== undefined ? { pid: child.pid } : {}),
      });
    };
    const kill = () => {
      killGroup(child);
      if (spec.end.kind === 'now') finish();
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        kill();
      },
      spec.timeoutMs > 0 ? Math.min(spec.timeoutMs, MAX_TIMER_MS) : MAX_TIMER_MS,
    );
    const onStop = () => kill();
    stop?.addEventListener('abort', onStop);
    child.stdout!.on('data', (c: Buffer) => {
      if (done) return;
      if (!out.take(c) && spec.overflow === 'kill') {
        killGroup(child);
        finish();
      }
    });
    child.stderr?.on('data', (c: Buffer) => err.take(c));
    // A program may exit without reading its input: not an error of ours.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(spec.input);
    child.on('error', (e) => {
      spawnError = `could not start: ${e.message}`;
      finish();
    });
    const end = spec.end;
    if (end.kind === 'wait') {
      child.on('exit', (code, signal) => {
        exit = { code, signal, ms: elapsed() };
        clearTimeout(timer);
        grace = setTimeout(finish, end.outputGraceMs);
      });
    }
    child.on('close', finish);
  });
}
