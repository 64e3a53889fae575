/**
 * `transcript-lag complete -- CMD [ARGS…]`: put in front of a PreToolUse command hook, it runs CMD
 * on the hook's input, but when the call's record is not on disk yet and the mod holds its message,
 * with `transcript_path` naming a private copy of the transcript that ends with the held message's
 * records (src/rules/heldRecords.ts). A hook written for a transcript that holds its call then works
 * while Claude Code has not written it yet (docs/BACKGROUND.md).
 *
 * Never worse than without it: wherever the copy cannot be made, CMD runs on the input unchanged.
 * CMD's stdout, stderr and exit code are its own (inherited, passed on); signals sent to us are sent
 * to CMD's process group, so a timeout's kill ends CMD and its children; the copy is removed after.
 * `TRANSCRIPT_LAG_COMPLETE` in CMD's environment: 1 when the transcript CMD is given holds the call's
 * record (the copy, or the transcript itself once it landed), else 0.
 *
 * Run by Claude Code on every call, so like `message` it loads only `node:` modules and src/rules/,
 * is its own bundle (dist/cli-complete.js; the plugin copies it to <claude dir>/transcript-lag/bin/),
 * and writes nothing on stdout: stdout is CMD's.
 */
import { spawn } from 'node:child_process';
import { closeSync, constants, copyFileSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, truncateSync, writeSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { readBounded } from '../rules/boundedRead';
import { CHANNEL_DIR_NAME, SAFE_SESSION_ID } from '../rules/channelConstants';
import { readHeldMessageFile } from '../rules/heldMessageFile';
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

const FIELDS: ReadonlySet<string> = new Set(['session_id', 'transcript_path', 'tool_use_id', 'agent_id', 'cwd']);

/** What CMD is given: the input (changed or not), whether its transcript holds the call, and why not. */
export interface Completion {
  input: Buffer;
  complete: boolean;
  /** The private folder to remove after CMD, when a copy was made. */
  dir?: string;
  /** Why the input is unchanged, or what was done. */
  reason: string;
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
  const str = (k: string) => {
    const v = fields?.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const transcript = str('transcript_path');
  const toolUseId = str('tool_use_id');
  const span = spans.get('transcript_path');
  if (fields === undefined) return unchanged(input, false, "stdin is not a hook's JSON object");
  if (!transcript || !toolUseId || span === undefined) return unchanged(input, false, 'no transcript_path or tool_use_id in input');
  const sessionId = str('session_id') || sessionIdOfTranscript(transcript);
  const claudeDir = claudeDirOfTranscript(transcript);
  const agentId = str('agent_id');
  if (!sessionId || !SAFE_SESSION_ID.test(sessionId) || claudeDir === undefined || basename(transcript) !== `${sessionId}.jsonl`) {
    return unchanged(input, false, 'the transcript path is not <claude dir>/projects/<slug>/<session_id>.jsonl');
  }
  const recordPath = recordFileOf(transcript, sessionId, agentId);
  if (recordPath === undefined) return unchanged(input, false, 'the agent_id cannot name a subagent transcript');
  // Cheap first: most calls are not held, or their record is there already.
  const onDisk = checkOnDisk(recordPath, toolUseId);
  if (onDisk === undefined) return unchanged(input, false, 'the transcript cannot be read (missing or not a regular file)');
  if (onDisk.record_on_disk === true) return unchanged(input, true, "the call's record is on disk");
  const look = readHeldMessageFile(claudeDir, sessionId, toolUseId, now, false);
  if (!('held' in look)) return unchanged(input, false, look.ignored ?? "not on disk yet and no held message (is the transcript-lag plugin's mod loaded? Claude Code 2.1.287+)");
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
transcript-lag mod holds the call's message (Claude Code 2.1.287+ with the plugin), CMD's
transcript_path names a private copy of the transcript that ends with that message's records, as
Claude Code will write them (each marked "transcriptLag":"held"); else CMD gets the input unchanged.
CMD's stdout, stderr and exit code are passed on; signals reach CMD's process group; the copy is
removed after. CMD's environment has TRANSCRIPT_LAG_COMPLETE=1 when its transcript holds the call's
record, else 0. The plugin keeps this tool at <claude dir>/transcript-lag/bin/transcript-lag-complete.js.
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

/**
 * Runs CMD as the leader of its own process group (so a signal to us reaches its children too),
 * its stdout and stderr ours, the input on its stdin. Resolves when CMD has exited, with its code
 * or signal; the copy removed.
 */
export function runCommand(command: string, args: readonly string[], c: Completion, rest: NodeJS.ReadableStream | undefined): Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }> {
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
    const child = spawn(command, [...args], {
      stdio: ['pipe', 'inherit', 'inherit'],
      detached: process.platform !== 'win32',
      env: { ...process.env, TRANSCRIPT_LAG_COMPLETE: c.complete ? '1' : '0' },
    });
    const handlers = FORWARDED.map((sig) => {
      const h = () => {
        try {
          if (child.pid !== undefined) process.kill(process.platform === 'win32' ? child.pid : -child.pid, sig);
        } catch {
          // gone already
        }
      };
      process.on(sig, h);
      return [sig, h] as const;
    });
    const settle = (r: { code: number | null; signal: NodeJS.Signals | null; error?: string }) => {
      for (const [sig, h] of handlers) process.off(sig, h);
      cleanup();
      resolve(r);
    };
    child.once('error', (err: NodeJS.ErrnoException) => settle({ code: err.code === 'ENOENT' ? 127 : 126, signal: null, error: `${command}: ${err.message}` }));
    child.once('exit', (code, signal) => settle({ code, signal }));
    // CMD need not read its stdin: a closed pipe is its business, not an error of ours.
    child.stdin?.on('error', () => undefined);
    child.stdin?.write(c.input);
    if (rest !== undefined) rest.pipe(child.stdin!);
    else child.stdin?.end();
  });
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
  const read = await readInput();
  let c: Completion;
  try {
    c = read.ended ? completeInput(read.bytes, Date.now()) : unchanged(read.bytes, false, 'the input did not end in time or is too large');
  } catch {
    c = unchanged(read.bytes, false, 'internal error');
  }
  if (process.env.TRANSCRIPT_LAG_COMPLETE_VERBOSE === '1') process.stderr.write(`transcript-lag complete: ${c.reason}\n`);
  const r = await runCommand(args.command, args.args, c, read.ended ? undefined : process.stdin);
  if (r.error !== undefined) process.stderr.write(`transcript-lag complete: ${r.error}\n`);
  if (r.signal !== null) {
    // Dying of the same signal: default action restored, raised on ourselves.
    process.removeAllListeners(r.signal);
    try {
      process.kill(process.pid, r.signal);
    } catch {
      // fall through to the shell's convention
    }
    return 128 + (osConstants.signals[r.signal] ?? 0);
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
