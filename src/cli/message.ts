/**
 * `transcript-lag message [--json]`: for a reviewing PreToolUse hook, the text of the assistant
 * message that carries the hook's call, which the transcript does not hold yet while the hook runs
 * (README, "A reviewing hook that sees the message"; the file contract: docs/HELD-MESSAGE.md).
 *
 * It reads the hook's JSON from stdin and answers at once, never polling:
 * 1. the mod's held message for the call (`<claude dir>/transcript-lag/held/<session>/<id>.json`),
 *    when it is a regular file the mod wrote for this call less than HELD_MESSAGE_TTL_MS ago;
 * 2. else the transcript, once the call's record is on disk: the text blocks of every assistant
 *    record of the same API message (`message.id`), in file order;
 * 3. else nothing, with the reason.
 *
 * A hook runs it on every call, so it starts like the status line: node: modules only, its own
 * bundle (dist/cli-message.js, also run on its own), bounded reads, exit 0 whatever happens
 * unless the answer could not be written whole (src/rules/writeAll.ts), and nothing on stdout but
 * the answer.
 */
import { fstatSync } from 'node:fs';
import { claudeDirOfTranscript, recordFileOf, sessionIdOfTranscript } from '../rules/modContract';
import { HELD_FILE_MAX_BYTES, NO_HELD_MESSAGE_REASON, readHeldMessageFile } from '../rules/heldMessageFile';
import { HELD_MESSAGE_SINCE, claudeCodeSince } from '../rules/claudeCodeSince';
import { readBounded } from '../rules/boundedRead';
import { callInWindow, linesHolding, readWindow, toolUseIdNeedle } from '../rules/onDiskCheck';
import { modReportsCall, readModLiveness } from '../rules/modFiles';
import { parseHookInput, readStdin, type HookInput, type StdinBytes } from '../rules/stdin';
import { writeAll, writeDeadline } from '../rules/writeAll';
import { jsonEscapingUnprintable, printableLines } from '../rules/printable';
import type { CliIo } from './io';

export { HELD_FILE_MAX_BYTES };
/** How much of the transcript's end is read: the call's record and its message's other records are among the newest lines. */
export const TRANSCRIPT_WINDOW_BYTES = 8 * 1024 * 1024;
/** A hook's stdin ends as soon as Claude Code has written it; one left open is given up on after this. */
const STDIN_WAIT_MS = 2000;

export type MessageSource = 'mod' | 'transcript';

/** The one line `--json` prints: `text` and `text_blocks` null (with a reason) when nothing is known. */
export interface MessageAnswer {
  tool_use_id: string | null;
  /** The text blocks joined with a blank line; "" for a message with no text. */
  text: string | null;
  text_blocks: string[] | null;
  source: MessageSource | null;
  reason: string | null;
  /**
   * The session's transcript-lag mod is running: it listed this call before the call's hooks ran,
   * or its liveness file is fresh (src/rules/modContract.ts). False when neither, or the input names no session.
   */
  mod: boolean;
}

export const REASON_NOT_YET = NO_HELD_MESSAGE_REASON;
/** REASON_NOT_YET where the mod is known to run: it did not keep this call's message. */
export const REASON_NOT_KEPT = 'not on disk yet and no held message (the mod runs, but kept none for this call)';
export const REASON_NOT_KEPT_OFF = 'not on disk yet and no held message (the mod runs, but its option keepHeldMessages is off)';


type TranscriptLook = { text_blocks: string[] } | { reason: string };

/** The held message's blocks, or `ignored`: why a file that is there was not taken (absent: there is none). */
type HeldLook = { text_blocks: string[] } | { ignored?: string };

/**
 * The mod's held message for the call (src/rules/heldMessageFile.ts). One the mod left behind older
 * than the TTL is removed here: the only file this command deletes. `read`: the bounded read,
 * replaced by tests to remove the file between the look and the read.
 */
export function readHeldMessage(claudeDir: string, sessionId: string, toolUseId: string, now: number, read: typeof readBounded = readBounded): HeldLook {
  const look = readHeldMessageFile(claudeDir, sessionId, toolUseId, now, true, read);
  return 'held' in look ? { text_blocks: look.held.text_blocks } : look;
}

interface AssistantRecord {
  type?: unknown;
  uuid?: unknown;
  message?: { id?: unknown; content?: unknown };
}

function parseRecord(line: Buffer): AssistantRecord | undefined {
  try {
    const v = JSON.parse(line.toString('utf8')) as unknown;
    return v && typeof v === 'object' ? (v as AssistantRecord) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The message from the transcript, once the call's record is on disk. Claude Code writes one
 * assistant record per content block, each with the API message's `message.id`, so the message is
 * every assistant record with the record's `message.id`, text blocks in file order; another
 * message (a later turn) has another id. Empty text blocks are left out, as the mod leaves them out
 * (its conversation rows cannot tell an empty block from none). Only the last `windowBytes` of
 * complete lines are read: a partial last line is not on disk yet.
 */
export function readTranscriptMessage(recordPath: string, toolUseId: string, windowBytes = TRANSCRIPT_WINDOW_BYTES): TranscriptLook {
  const w = readWindow(recordPath, windowBytes);
  if (w === undefined) return { reason: `the transcript cannot be read (missing or not a regular file) and there is no held message` };
  const { lines } = w;
  const { record } = callInWindow(w, toolUseId);
  if (record === undefined) {
    return { reason: w.whole ? REASON_NOT_YET : `${REASON_NOT_YET}; only the transcript's last ${windowBytes >> 20} MiB were searched` };
  }
  const messageId = parseRecord(record)?.message?.id;
  if (typeof messageId !== 'string' || messageId === '') return { reason: 'the call\'s record is on disk but has no message.id' };
  const blocks: string[] = [];
  const seen = new Set<string>();
  for (const line of linesHolding(lines, toolUseIdNeedle(messageId))) {
    const rec = parseRecord(line);
    if (rec?.type !== 'assistant' || rec.message?.id !== messageId || !Array.isArray(rec.message.content)) continue;
    if (typeof rec.uuid === 'string') {
      if (seen.has(rec.uuid)) continue;
      seen.add(rec.uuid);
    }
    for (const b of rec.message.content as Array<{ type?: unknown; text?: unknown } | null>) {
      if (b?.type === 'text' && typeof b.text === 'string' && b.text !== '') blocks.push(b.text);
    }
  }
  return { text_blocks: blocks };
}

function unknown(toolUseId: string | null, reason: string, mod = false): MessageAnswer {
  return { tool_use_id: toolUseId, text: null, text_blocks: null, source: null, reason, mod };
}

function known(toolUseId: string, blocks: string[], source: MessageSource, mod: boolean): MessageAnswer {
  return { tool_use_id: toolUseId, text: blocks.join('\n\n'), text_blocks: blocks, source, reason: null, mod };
}


/**
 * Whether the session's mod runs, and what it said of itself: the call in its list (written before
 * the call's settings hooks run) proves it saw this call; else its liveness file, fresh.
 */
export function modPresence(input: Pick<HookInput, 'session_id' | 'transcript_path' | 'tool_use_id'>, claudeDir: string, sessionId: string, now: number): { running: boolean; keepsHeld?: boolean } {
  const liveness = readModLiveness(claudeDir, sessionId, now);
  if (liveness !== undefined) return { running: true, keepsHeld: liveness.keep_held_messages !== false };
  return { running: modReportsCall({ ...input, session_id: sessionId }) };
}

/** The answer for one hook input: the held message, else the transcript, else why not. Never throws on input. */
export function messageFor(input: HookInput, now: number, windowBytes = TRANSCRIPT_WINDOW_BYTES): MessageAnswer {
  const id = input.tool_use_id;
  if (!id) return unknown(null, 'no tool_use_id in input');
  const transcript = input.transcript_path;
  if (!transcript) return unknown(id, 'no transcript_path in input');
  const sessionId = input.session_id || sessionIdOfTranscript(transcript);
  const claudeDir = claudeDirOfTranscript(transcript);
  const presence = claudeDir !== undefined && sessionId ? modPresence(input, claudeDir, sessionId, now) : { running: false };
  const mod = presence.running;
  let ignored: string | undefined;
  if (claudeDir !== undefined && sessionId) {
    const held = readHeldMessage(claudeDir, sessionId, id, now);
    if ('text_blocks' in held) return known(id, held.text_blocks, 'mod', mod);
    ignored = held.ignored;
  }
  const recordPath = sessionId ? recordFileOf(transcript, sessionId, input.agent_id) : input.agent_id === undefined ? transcript : undefined;
  if (recordPath === undefined) return unknown(id, 'the agent_id cannot name a subagent transcript', mod);
  const found = readTranscriptMessage(recordPath, id, windowBytes);
  if ('text_blocks' in found) return known(id, found.text_blocks, 'transcript', mod);
  if (ignored !== undefined) return unknown(id, found.reason === REASON_NOT_YET ? `not on disk yet, and ${ignored}` : `${found.reason}; ${ignored}`, mod);
  // Where the mod is known to run, the reason says so instead of asking whether it is loaded.
  const notKept = presence.keepsHeld === false ? REASON_NOT_KEPT_OFF : REASON_NOT_KEPT;
  return unknown(id, mod && found.reason.startsWith(REASON_NOT_YET) ? notKept + found.reason.slice(REASON_NOT_YET.length) : found.reason, mod);
}

/** The answer for what arrived on stdin. */
export function messageForStdin(bytes: StdinBytes, now: number, windowBytes = TRANSCRIPT_WINDOW_BYTES): MessageAnswer {
  if (bytes.whole !== undefined && bytes.whole.length === 0) return unknown(null, 'no hook input on stdin');
  const input = parseHookInput(bytes);
  if (input === undefined) return unknown(null, "stdin is not a hook's JSON object");
  return messageFor(input, now, windowBytes);
}

/**
 * What is printed: the JSON line, or the text and a newline (a message with no text prints an empty
 * line; nothing known prints nothing). `terminal`: stdout is a terminal, not the hook that ran us,
 * so the text loses its control characters.
 */
export function renderAnswer(answer: MessageAnswer, json: boolean, terminal: boolean): string {
  if (json) return `${jsonEscapingUnprintable(JSON.stringify(answer))}\n`;
  if (answer.text === null) return '';
  return `${terminal ? printableLines(answer.text) : answer.text}\n`;
}

export const usage = `Usage: transcript-lag message [--json] [--verbose]  < PreToolUse hook JSON

For a reviewing PreToolUse hook: the text of the assistant message that carries the hook's call,
which the transcript does not hold yet while the hook runs. Pipe the hook's stdin into it.

It answers at once from the message the transcript-lag mod keeps for the call (${claudeCodeSince(HELD_MESSAGE_SINCE)}
with the plugin: <claude dir>/transcript-lag/held/<session>/<tool_use_id>.json, see
docs/HELD-MESSAGE.md), else from the transcript once the call's record is on disk. It removes a
held message file it finds that is older than its TTL (10 min), and no other file.

Prints the text blocks joined by a blank line, and a newline; nothing when nothing is known.
  --json      one line: {"tool_use_id","text","text_blocks","source","reason","mod"}
              source "mod" | "transcript" | null; text and text_blocks null when nothing is known;
              mod true when the session's transcript-lag mod is running (it listed the call,
              or keeps its liveness file fresh), else false
  --verbose   say on stderr why nothing is known
Exits 0, unless the answer could not be written whole (stdout a non-blocking pipe nobody
read for 10 s, or a failed write): then 1, and a line on stderr says so.
`;

interface MessageArgs {
  json: boolean;
  verbose: boolean;
  help: boolean;
  unknownOption?: string;
}

export function parseMessageArgs(argv: readonly string[]): MessageArgs {
  const out: MessageArgs = { json: false, verbose: false, help: false };
  for (const a of argv) {
    if (a === '--json') out.json = true;
    else if (a === '--verbose') out.verbose = true;
    else if (a === '--help' || a === '-h') out.help = true;
    else out.unknownOption ??= a;
  }
  return out;
}

/** fd 1 is a character device: a terminal (or /dev/null, where stripping costs nothing). */
function stdoutIsTerminal(): boolean {
  try {
    return fstatSync(1).isCharacterDevice();
  } catch {
    return false;
  }
}

/**
 * fd 0 is a terminal or another device (Node opens /dev/null for a closed one): nobody piped a
 * hook's JSON in, and a terminal would be read until the deadline.
 */
function stdinIsDevice(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return false;
  }
}

/** The whole run but the printing: usage, or the answer and what --verbose says. Never throws. */
export async function answerProcess(argv: readonly string[], now: () => number): Promise<{ stdout: string; stderr: string }> {
  const args = parseMessageArgs(argv);
  if (args.help) return { stdout: usage, stderr: '' };
  let answer: MessageAnswer;
  let stderr = '';
  try {
    if (args.unknownOption !== undefined) answer = unknown(null, `unknown option '${args.unknownOption}'`);
    else if (stdinIsDevice()) answer = unknown(null, 'stdin is not a pipe or a file (a terminal, /dev/null, or closed)');
    else answer = messageForStdin(await readStdin(STDIN_WAIT_MS), now());
  } catch (err) {
    answer = unknown(null, 'internal error');
    stderr = `transcript-lag message: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`;
  }
  if (answer.reason !== null) stderr = `transcript-lag message: ${answer.reason}\n${stderr}`;
  return { stdout: renderAnswer(answer, args.json, stdoutIsTerminal()), stderr: args.verbose ? printableLines(stderr) : '' };
}

/** `transcript-lag message [--json] [--verbose]`: always 0. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const out = await answerProcess(args, () => io.clock.now());
  if (out.stdout) io.stdout(out.stdout);
  if (out.stderr) io.stderr(out.stderr);
  return 0;
}

if (require.main === module) {
  // Run on its own (node dist/cli-message.js): whatever happens, the answer or nothing, and exit 0;
  // exit 1 only when the answer could not be written whole, so a hook never takes a cut line for it.
  // Written with writeSync, not process.stdout (net and streams at every start).
  process.on('uncaughtException', () => process.exit(0));
  let code = 0;
  answerProcess(process.argv.slice(2), Date.now)
    .then((out) => {
      const deadline = writeDeadline(process.env);
      let stderr = out.stderr;
      if (!writeAll(1, out.stdout, deadline)) {
        code = 1;
        stderr += 'transcript-lag message: the answer could not be written whole to stdout (not read in time, or the write failed)\n';
      }
      if (stderr) writeAll(2, stderr, deadline);
    })
    .catch(() => undefined)
    // A stdin never closed leaves its handle: leave now.
    .finally(() => process.exit(code));
}
