/**
 * `transcript-lag complete -- CMD [ARGS…]`: put in front of a PreToolUse command hook, it runs CMD
 * on the hook's input, but when the call's record is not on disk yet and the mod holds its message,
 * with `transcript_path` naming a private copy of the transcript that ends with the held message's
 * records (src/rules/heldRecords.ts). A hook written for a transcript that holds its call then works
 * while Claude Code has not written it yet (docs/BACKGROUND.md).
 *
 * Never worse than without it: wherever the copy cannot be made, CMD runs on the input unchanged.
 * CMD's stdout, stderr and exit code are its own (stderr inherited; stdout passed on byte for byte,
 * its head kept to read the decision; the exit code passed on); signals sent to us are sent to CMD's
 * process group, so a timeout's kill ends CMD and its children; the copy is removed after.
 * Once CMD has exited, its run is appended to the session's channel as a `hook_run` event (its
 * label, time, decision, exit code: docs/CHANNEL.md), so the views give each hook's share of a hold.
 * A write that fails changes nothing CMD's caller sees.
 * `TRANSCRIPT_LAG_COMPLETE` in CMD's environment: 1 when the transcript CMD is given holds the call's
 * record (the copy, or the transcript itself once it landed), else 0.
 *
 * Run by Claude Code on every call, so like `message` it loads only `node:` modules and src/rules/,
 * is its own bundle (dist/cli-complete.js; the plugin copies it to <claude dir>/transcript-lag/bin/),
 * and writes nothing on stdout: stdout is CMD's.
 */
import { spawn } from 'node:child_process';
import { closeSync, constants, copyFileSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, truncateSync, write, writeSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { readBounded } from '../rules/boundedRead';
import { CHANNEL_DIR_NAME, CHANNEL_SCHEMA_VERSION, COMPLETE_SOURCE, MAX_HOOKS_MS, MAX_ID_LENGTH, MAX_PATH_LENGTH, SAFE_SESSION_ID } from '../rules/channelConstants';
import { appendChannelLine } from '../rules/channelWriter';
import { HOOK_STDOUT_HEAD_BYTES, hookLabel, hookRunDecision } from '../rules/hookRun';
import { lazyWriteDeadline } from '../rules/writeAll';
import { NO_HELD_MESSAGE_REASON, readHeldMessageFile } from '../rules/heldMessageFile';
import { HELD_MESSAGE_SINCE, claudeCodeSince } from '../rules/claudeCodeSince';
import { heldRecordLines } from '../rules/heldRecords';
import { claudeDirOfTranscript, recordFileOf, sessionIdOfTranscript } from '../rules/modContract';
import { checkOnDisk } from '../rules/onDiskCheck';
import { topLevelFields } from '../rules/topLevelFields';

/** The folder under the channel folder where the copies are made, one private folder per run. */
export const COMPLETE_DIR_NAME = 'complete';
/** The hook input is read whole up to this; a larger one goes to CMD unchanged, streamed. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;
/** Claude Code writes a hook's stdin and closes it at once; one left open is given up on after this and streamed on. */
const STDIN_WAIT_MS = 2000;
/** How far back the copy's last newline is looked for: a partial last line (Claude Code mid-write) longer than this leaves the copy unmade. */
const PARTIAL_LINE_MAX_BYTES = 4 * 1024 * 1024;

/** After CMD has exited, how long its stdout may stay open with nothing coming (a child of its own holding it) before we stop passing it on. */
const STDOUT_AFTER_EXIT_MS = 1000;

const FIELDS: ReadonlySet<string> = new Set(['session_id', 'transcript_path', 'tool_use_id', 'agent_id', 'cwd', 'tool_name']);

/** The call the input is about, where its `hook_run` event goes: known when the input names a session's transcript under `<claude dir>/projects/`. */
export interface HookCall {
  claudeDir: string;
  sessionId: string;
  transcriptPath: string;
  toolUseId: string;
  toolName?: string;
  agentId?: string;
}

/** What CMD is given: the input (changed or not), whether its transcript holds the call, and why not. */
export interface Completion {
  input: Buffer;
  complete: boolean;
  /** The private folder to remove after CMD, when a copy was made. */
  dir?: string;
  /** Why the input is unchanged, or what was done. */
  reason: string;
  /** The call, for the `hook_run` event; absent when the input names none we may write for. */
  call?: HookCall;
}

const unchanged = (input: Buffer, complete: boolean, reason: string): Completion => ({ input, complete, reason });

/** A folder of ours nobody else may write, made 0700 if missing; a symlink or another's folder is refused. */
function privateFolder(path: string): boolean {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  try {
    const st = lstatSync(path);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || (st.uid === uid && (st.mode & 0o077) === 0));
  } catch {
    return false;
  }
}

/** A regular file (not a symlink to one), as lstat sees it. */
function regularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** A real folder (not a symlink to one), as lstat sees it. */
function realFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function pidIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the copies of runs that are gone (`<pid>-XXXXXX`, the pid no longer running): a wrapper
 * killed with SIGKILL cannot remove its own. Best effort, never throws.
 */
export function sweepStaleCopies(completeDir: string): void {
  let names: string[];
  try {
    names = readdirSync(completeDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || pidIsRunning(pid)) continue;
    try {
      rmSync(join(completeDir, name), { recursive: true, force: true });
    } catch {
      // not ours to remove, or gone meanwhile
    }
  }
}

/**
 * Copies `from` to `to` with the kernel's copy (a reflink where the file system has them, else
 * copy_file_range / sendfile in the kernel: the transcript's bytes never pass through JS), then cuts
 * a partial last line (Claude Code mid-write: not on disk yet, and our records must start a line).
 * False when it could not.
 */
function kernelCopy(from: string, to: string): boolean {
  try {
    copyFileSync(from, to, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
    const tail = readBounded(to, PARTIAL_LINE_MAX_BYTES, 'end', true);
    if (tail === undefined) return false;
    if (tail.size > 0 && tail.bytes[tail.bytes.length - 1] !== 0x0a) {
      const nl = tail.bytes.lastIndexOf(0x0a);
      if (nl === -1 && tail.start > 0) return false;
      truncateSync(to, tail.start + nl + 1);
    }
    return true;
  } catch {
    return false;
  }
}

/** Appends the records, whole. */
function appendText(path: string, text: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0));
    if (!fstatSync(fd).isFile()) return false;
    const bytes = Buffer.from(text, 'utf8');
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The input with one top-level string value replaced by `value`, every other byte kept. */
function withValue(input: Buffer, span: [number, number], value: string): Buffer {
  return Buffer.concat([input.subarray(0, span[0]), Buffer.from(JSON.stringify(value), 'utf8'), input.subarray(span[1])]);
}

/**
 * What CMD is given for this input. Never throws: whatever goes wrong leaves the input unchanged.
 * The copy is judged, not the transcript: the call's record checked for in the copy (one moment
 * for both), so a record that landed meanwhile is not written twice.
 */
export function completeInput(input: Buffer, now: number): Completion {
  const spans = new Map<string, [number, number]>();
  const fields = topLevelFields(input, FIELDS, false, spans);
  if (fields === undefined) return unchanged(input, false, "stdin is not a hook's JSON object");
  const str = (k: string) => {
    const v = fields.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const transcript = str('transcript_path');
  const toolUseId = str('tool_use_id');
  const span = spans.get('transcript_path');
  if (!transcript || !toolUseId || span === undefined) return unchanged(input, false, 'no transcript_path or tool_use_id in input');
  const sessionId = str('session_id') || sessionIdOfTranscript(transcript);
  const claudeDir = claudeDirOfTranscript(transcript);
  const agentId = str('agent_id');
  if (!sessionId || !SAFE_SESSION_ID.test(sessionId) || claudeDir === undefined || basename(transcript) !== `${sessionId}.jsonl`) {
    return unchanged(input, false, 'the transcript path is not <claude dir>/projects/<slug>/<session_id>.jsonl');
  }
  const toolName = str('tool_name');
  const call: HookCall | undefined =
    toolUseId.length <= MAX_ID_LENGTH && transcript.length <= MAX_PATH_LENGTH && (agentId === undefined || agentId.length <= MAX_ID_LENGTH)
      ? {
          claudeDir,
          sessionId,
          transcriptPath: transcript,
          toolUseId,
          ...(toolName !== undefined && toolName.length <= MAX_ID_LENGTH ? { toolName } : {}),
          ...(agentId !== undefined ? { agentId } : {}),
        }
      : undefined;
  return { ...completeCall(input, str, span, { claudeDir, sessionId, transcript, toolUseId, agentId }, now), ...(call !== undefined ? { call } : {}) };
}

/** completeInput's work once the input names a session's call: the copy, or why not. */
function completeCall(
  input: Buffer,
  str: (k: string) => string | undefined,
  span: [number, number],
  { claudeDir, sessionId, transcript, toolUseId, agentId }: { claudeDir: string; sessionId: string; transcript: string; toolUseId: string; agentId: string | undefined },
  now: number,
): Completion {  const recordPath = recordFileOf(transcript, sessionId, agentId);
  if (recordPath === undefined) return unchanged(input, false, 'the agent_id cannot name a subagent transcript');
  // Cheap first: most calls are not held, or their record is there already.
  const onDisk = checkOnDisk(recordPath, toolUseId);
  if (onDisk === undefined) return unchanged(input, false, 'the transcript cannot be read (missing or not a regular file)');
  if (onDisk.record_on_disk === true) return unchanged(input, true, "the call's record is on disk");
  const look = readHeldMessageFile(claudeDir, sessionId, toolUseId, now, false);
  if (!('held' in look)) return unchanged(input, false, look.ignored ?? NO_HELD_MESSAGE_REASON);
  const slugDir = dirname(transcript);
  // A symlinked folder on the way: the copy's shape would not be the path's, nor ours to judge.
  if (!realFolder(slugDir) || !realFolder(dirname(slugDir))) return unchanged(input, false, 'the transcript\'s folder is a symbolic link or not a folder');
  if (!regularFile(transcript) || !regularFile(recordPath)) return unchanged(input, false, 'the transcript is a symbolic link or not a regular file');
  const channelDir = join(claudeDir, CHANNEL_DIR_NAME);
  const completeDir = join(channelDir, COMPLETE_DIR_NAME);
  if (!realFolder(channelDir) || !privateFolder(completeDir)) return unchanged(input, false, `${completeDir} cannot be made a private folder of ours`);
  sweepStaleCopies(completeDir);
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(completeDir, `${process.pid}-`));
    const copyDir = join(dir, 'projects', basename(slugDir));
    mkdirSync(copyDir, { recursive: true, mode: 0o700 });
    const copy = join(copyDir, basename(transcript));
    let recordCopy = copy;
    if (!kernelCopy(transcript, copy)) throw new Error('the transcript could not be copied');
    if (recordPath !== transcript) {
      // A subagent's call: its records go to its own file, beside the copy as beside the transcript.
      recordCopy = join(copyDir, sessionId, 'subagents', basename(recordPath));
      mkdirSync(dirname(recordCopy), { recursive: true, mode: 0o700 });
      if (!kernelCopy(recordPath, recordCopy)) throw new Error("the subagent's transcript could not be copied");
    }
    const inCopy = checkOnDisk(recordCopy, toolUseId);
    if (inCopy === undefined) throw new Error('the copy cannot be read');
    if (inCopy.record_on_disk === true) {
      rmSync(dir, { recursive: true, force: true });
      return unchanged(input, true, "the call's record is on disk");
    }
    const cwd = str('cwd');
    const records = heldRecordLines(look.held, { sessionId, ...(cwd !== undefined ? { cwd } : {}), ...(agentId !== undefined ? { agentId } : {}) });
    if (!appendText(recordCopy, records)) throw new Error('the held records could not be written');
    return { input: withValue(input, span, copy), complete: true, dir, reason: 'the held message appended to a private copy' };
  } catch (err) {
    if (dir !== undefined) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // left for the next run's sweep
      }
    }
    return unchanged(input, false, err instanceof Error ? err.message : 'the copy could not be made');
  }
}

export interface CompleteArgs {
  command?: string;
  args: string[];
  help: boolean;
}

/** `[--] CMD [ARGS…]`: everything after `--` (or from the first word) is CMD's, untouched. */
export function parseCompleteArgs(argv: readonly string[]): CompleteArgs {
  const dash = argv.indexOf('--');
  if (dash === -1 && (argv[0] === '--help' || argv[0] === '-h')) return { args: [], help: true };
  const cmd = dash === -1 ? argv : argv.slice(dash + 1);
  return { command: cmd[0], args: cmd.slice(1), help: false };
}

export const usage = `Usage: transcript-lag complete -- CMD [ARGS…]   (in front of a PreToolUse command hook)

Runs CMD on the hook input from stdin. When the call's record is not on disk yet and the
transcript-lag mod holds the call's message (${claudeCodeSince(HELD_MESSAGE_SINCE)} with the plugin), CMD's
transcript_path names a private copy of the transcript that ends with that message's records, as
Claude Code will write them (each marked "transcriptLag":"held"); else CMD gets the input unchanged.
CMD's stdout, stderr and exit code are passed on; signals reach CMD's process group; the copy is
removed after. CMD's environment has TRANSCRIPT_LAG_COMPLETE=1 when its transcript holds the call's
record, else 0. After CMD exits, its run (a short label, ms, decision, exit code) is appended to
the session's channel as a hook_run event, for the views' share of each hook. The plugin keeps this tool at <claude dir>/transcript-lag/bin/transcript-lag-complete.js.
`;

interface StdinRead {
  bytes: Buffer;
  /** stdin ended within the bound and the wait: `bytes` is all of it. */
  ended: boolean;
}

/** The hook input, whole if it ends within the wait and MAX_INPUT_BYTES; else what came, stdin left flowing to be piped on. */
function readInput(): Promise<StdinRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const stdin = process.stdin;
    const finish = (ended: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.pause();
      resolve({ bytes: Buffer.concat(chunks, size), ended });
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size > MAX_INPUT_BYTES) finish(false);
    };
    const timer = setTimeout(() => finish(false), STDIN_WAIT_MS);
    stdin.on('data', onData);
    stdin.once('end', () => finish(true));
    stdin.once('error', () => finish(true));
  });
}

const FORWARDED: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];

/** How CMD's run ended, and what of it the `hook_run` event says. */
export interface CommandRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: string;
  /** Spawn to exit, on the wall clock (ms, fractional). */
  ms: number;
  /** When CMD exited (ms since epoch). */
  exitedAt: number;
  /** The head of CMD's stdout (HOOK_STDOUT_HEAD_BYTES at most), for its decision. */
  stdoutHead: Buffer;
  /** CMD wrote more than the head. */
  stdoutCut: boolean;
  /** A signal that came after CMD's exit, while its stdout was being passed on: we die of it. */
  stoppedBy?: NodeJS.Signals;
}

/**
 * CMD's stdout passed on to ours (fd 1) as it comes, byte for byte, keeping a bounded head. Written
 * with `fs.write`, not through process.stdout (making that stream cost a start tens of ms at load: a
 * net socket for a pipe) and not with a synchronous write (a reader that stops reading would block our
 * event loop, and a signal to forward to CMD would wait behind it). CMD's pipe is paused while a chunk
 * is written, so a full pipe of ours holds CMD's write as it would have without us. Where ours is gone
 * (the reader closed it: EPIPE), or a pipe made non-blocking takes nothing for WRITE_WAIT_MS
 * (src/rules/writeAll.ts), CMD's pipe is closed too, so CMD meets the EPIPE it would have met.
 */
interface PassedStdout {
  head: () => Buffer;
  cut: () => boolean;
  /** CMD's pipe closed, and the last chunk written to ours. */
  ended: Promise<void>;
  /** When a chunk last came or was last written (Date.now()); Infinity while one is being written. */
  lastActive: () => number;
}

function passStdout(from: NodeJS.ReadableStream & { destroy(): void }): PassedStdout {
  const head: Buffer[] = [];
  let kept = 0;
  let cut = false;
  let broken = false;
  let writing: Promise<void> = Promise.resolve();
  let pending = false;
  let active = Date.now();
  const give = (chunk: Buffer): Promise<void> =>
    new Promise((done) => {
      const deadline = lazyWriteDeadline(process.env);
      let pause = 1;
      const from_ = (off: number) =>
        write(1, chunk, off, chunk.length - off, null, (err, n) => {
          if (err) {
            const code = err.code;
            if ((code === 'EAGAIN' || code === 'EWOULDBLOCK') && deadline() > performance.now()) {
              setTimeout(() => from_(off), pause);
              pause = Math.min(pause * 2, 16);
              return;
            }
            broken = true;
            from.destroy();
            done();
            return;
          }
          pause = 1;
          if (off + n < chunk.length) from_(off + n);
          else done();
        });
      from_(0);
    });
  from.on('data', (chunk: Buffer) => {
    if (kept < HOOK_STDOUT_HEAD_BYTES) {
      const part = chunk.length <= HOOK_STDOUT_HEAD_BYTES - kept ? chunk : chunk.subarray(0, HOOK_STDOUT_HEAD_BYTES - kept);
      head.push(part);
      kept += part.length;
      if (part.length < chunk.length) cut = true;
    } else cut = true;
    if (broken) return;
    from.pause();
    pending = true;
    writing = give(chunk).then(() => {
      pending = false;
      active = Date.now();
      if (!broken) from.resume();
    });
  });
  const closed = new Promise<void>((resolve) => {
    from.once('end', resolve);
    from.once('close', resolve);
    from.once('error', resolve);
  });
  const ended = closed.then(() => writing);
  return { head: () => Buffer.concat(head, kept), cut: () => cut, ended, lastActive: () => (pending ? Infinity : active) };
}

/**
 * Runs CMD as the leader of its own process group (so a signal to us reaches its children too),
 * stderr ours, stdout passed on (passStdout), the input on its stdin. Resolves when CMD has exited
 * and its stdout ended, all of it written to ours (or nothing came for STDOUT_AFTER_EXIT_MS: a
 * child of CMD's may hold it), with its code or signal; the copy removed.
 */
export function runCommand(command: string, args: readonly string[], c: Completion, rest: NodeJS.ReadableStream | undefined): Promise<CommandRun> {
  return new Promise((resolve) => {
    const cleanup = () => {
      if (c.dir !== undefined) {
        try {
          rmSync(c.dir, { recursive: true, force: true });
        } catch {
          // left for the next run's sweep
        }
      }
    };
    const started = process.hrtime.bigint();
    const child = spawn(command, [...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      detached: process.platform !== 'win32',
      env: { ...process.env, TRANSCRIPT_LAG_COMPLETE: c.complete ? '1' : '0' },
    });
    const stdout = passStdout(child.stdout!);
    // A signal once CMD has exited (its stdout still being passed on, to a reader that may never read:
    // the write then waits for good) ends that wait: the one who sent it wants us gone, not later.
    let stoppedBy: NodeJS.Signals | undefined;
    let stopPassing!: () => void;
    const passingStopped = new Promise<void>((r) => (stopPassing = r));
    const handlers = FORWARDED.map((sig) => {
      const h = () => {
        try {
          if (child.pid !== undefined) process.kill(process.platform === 'win32' ? child.pid : -child.pid, sig);
        } catch {
          // gone already
        }
        if (settled) {
          stoppedBy ??= sig;
          stopPassing();
        }
      };
      process.on(sig, h);
      return [sig, h] as const;
    });
    let settled = false;
    const settle = async (r: { code: number | null; signal: NodeJS.Signals | null; error?: string }) => {
      if (settled) return;
      settled = true;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const exitedAt = Date.now();
      cleanup();
      // Until CMD's pipe closes and all of it is ours, or nothing has come nor been written for
      // STDOUT_AFTER_EXIT_MS: a reader that is slow but reads gets all of it.
      let ended = false;
      void stdout.ended.then(() => (ended = true));
      void passingStopped.then(() => (ended = true));
      while (!ended) {
        const idle = Date.now() - Math.max(exitedAt, stdout.lastActive());
        if (idle >= STDOUT_AFTER_EXIT_MS) break;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([stdout.ended, passingStopped, new Promise<void>((done) => (timer = setTimeout(done, Math.min(STDOUT_AFTER_EXIT_MS, Math.max(1, STDOUT_AFTER_EXIT_MS - idle)))))]);
        clearTimeout(timer);
      }
      child.stdout?.destroy();
      for (const [sig, h] of handlers) process.off(sig, h);
      resolve({ ...r, ms, exitedAt, stdoutHead: stdout.head(), stdoutCut: stdout.cut(), ...(stoppedBy !== undefined ? { stoppedBy } : {}) });
    };
    child.once('error', (err: NodeJS.ErrnoException) => void settle({ code: err.code === 'ENOENT' ? 127 : 126, signal: null, error: `${command}: ${err.message}` }));
    child.once('exit', (code, signal) => void settle({ code, signal }));
    // CMD need not read its stdin: a closed pipe is its business, not an error of ours.
    child.stdin?.on('error', () => undefined);
    child.stdin?.write(c.input);
    if (rest !== undefined) rest.pipe(child.stdin!);
    else child.stdin?.end();
  });
}

/**
 * The `hook_run` event of CMD's run (docs/CHANNEL.md). `at`: when CMD exited; `ms`: its run, whole
 * ms; `decision` as Claude Code reads CMD's exit and stdout, absent when its JSON answer was too
 * long to read; `exit_code` null when a signal ended it (then `signal`).
 */
export function hookRunEvent(call: HookCall, label: string, r: CommandRun, completed: boolean) {
  const decision = hookRunDecision(r.code, r.signal, r.stdoutHead.toString('utf8'), r.stdoutCut);
  return {
    v: CHANNEL_SCHEMA_VERSION,
    event: 'hook_run' as const,
    at: Math.round(r.exitedAt),
    session_id: call.sessionId,
    transcript_path: call.transcriptPath,
    ...(call.agentId !== undefined ? { agent_id: call.agentId } : {}),
    source: COMPLETE_SOURCE,
    tool_use_id: call.toolUseId,
    ...(call.toolName !== undefined ? { tool_name: call.toolName } : {}),
    hook: label,
    ms: Math.min(MAX_HOOKS_MS, Math.max(0, Math.round(r.ms))),
    ...(decision !== undefined ? { decision } : {}),
    exit_code: r.signal !== null ? null : r.code,
    ...(r.signal !== null ? { signal: r.signal } : {}),
    completed,
  };
}

/**
 * Appends CMD's `hook_run` to the session's channel file, as the hook appends its events
 * (src/rules/channelWriter.ts: one write, O_APPEND, never through a symlink, only to a file of ours).
 * Only under a Claude dir whose projects/ folder is there: the input's path is not taken on trust
 * to make folders elsewhere. Never throws; false when nothing was written.
 */
export function writeHookRun(call: HookCall, event: object): boolean {
  try {
    if (!realFolder(join(call.claudeDir, 'projects'))) return false;
    return appendChannelLine(join(call.claudeDir, CHANNEL_DIR_NAME), call.sessionId, event);
  } catch {
    return false;
  }
}

/** The whole run: CMD's exit, or its signal raised on ourselves so our parent sees what it would have. */
export async function completeMain(argv: readonly string[]): Promise<number> {
  const args = parseCompleteArgs(argv);
  if (args.help) {
    // Asked by a person, not a hook: the one thing written on stdout.
    process.stdout.write(usage);
    return 0;
  }
  if (args.command === undefined) {
    process.stderr.write(`transcript-lag complete: no command given\n\n${usage}`);
    return 2;
  }
  const verbose = process.env.TRANSCRIPT_LAG_COMPLETE_VERBOSE === '1';
  const read = await readInput();
  let c: Completion;
  try {
    c = read.ended ? completeInput(read.bytes, Date.now()) : unchanged(read.bytes, false, 'the input did not end in time or is too large');
  } catch {
    c = unchanged(read.bytes, false, 'internal error');
  }
  if (verbose) process.stderr.write(`transcript-lag complete: ${c.reason}\n`);
  const r = await runCommand(args.command, args.args, c, read.ended ? undefined : process.stdin);
  if (r.error !== undefined) process.stderr.write(`transcript-lag complete: ${r.error}\n`);
  if (c.call !== undefined) {
    let written = false;
    try {
      written = writeHookRun(c.call, hookRunEvent(c.call, hookLabel(args.command, args.args), r, c.complete));
    } catch {
      // the run's report is ours; CMD's answer is not touched by it
    }
    if (verbose && !written) process.stderr.write('transcript-lag complete: the hook_run event could not be written to the channel\n');
  }
  // Dying of CMD's signal, or of one sent to us while its stdout was still being passed on (an exit
  // would wait for a write stuck in Node's thread pool): default action restored, raised on ourselves.
  const dieOf = r.signal ?? r.stoppedBy;
  if (dieOf !== undefined) {
    process.removeAllListeners(dieOf);
    try {
      process.kill(process.pid, dieOf);
    } catch {
      // fall through to the shell's convention
    }
    return 128 + (osConstants.signals[dieOf] ?? 0);
  }
  return r.code ?? 1;
}

/** `transcript-lag complete`: the CLI's entry (cli.js); the same as the bundle run on its own. */
export async function run(args: string[], io: { stdout(text: string): void }): Promise<number> {
  const parsed = parseCompleteArgs(args);
  if (parsed.help) {
    io.stdout(usage);
    return 0;
  }
  return completeMain(args);
}

if (require.main === module) {
  completeMain(process.argv.slice(2)).then(
    (code) => process.exit(code),
    () => process.exit(1),
  );
}
