import { lineKindOf } from './recordLine';
import { completeLines, readBounded } from './boundedRead';

/**
 * What was on disk, at one moment of a hook's life, for its own call: the
 * evidence that lets a reader who was not watching tell later how the call's
 * record reached disk (see the channel contract, docs/CHANNEL.md). One read of the
 * file's last bytes, so it costs about as much as the stat it starts with.
 */
export interface OnDiskCheck {
  /** Where the file's complete lines ended: a record not on disk yet lands after it. Not in events. */
  complete_bytes: number;
  /** Size of the file that holds the call's record (the subagent's own file for a subagent call), partial last line included. */
  bytes_on_disk: number;
  /** The call's tool_use record is on disk; absent when the check could not tell (record older than the bytes searched). */
  record_on_disk?: boolean;
  /** A tool_result for the call is on disk; absent when the check could not tell. */
  result_on_disk?: boolean;
}

/** How far back from the end the check looks: the call is the newest thing in its transcript, so its lines sit near the end. */
export const ON_DISK_WINDOW_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/** The id as its bytes appear inside a JSON string. */
export function toolUseIdNeedle(id: string): Buffer {
  return Buffer.from(JSON.stringify(id).slice(1, -1), 'utf8');
}

/** Each complete line of `lines` that holds `needle`, once, in file order (shared by the hook, the status line and `message`). */
export function* linesHolding(lines: Buffer, needle: Buffer): Generator<Buffer> {
  let at = lines.indexOf(needle);
  while (at !== -1) {
    const start = lines.lastIndexOf(NEWLINE, at) + 1;
    let end = lines.indexOf(NEWLINE, at);
    if (end === -1) end = lines.length;
    yield lines.subarray(start, end);
    at = lines.indexOf(needle, end);
  }
}

/** A file's last complete lines, read once: where the call's record and result are looked for. */
export interface TranscriptWindow {
  lines: Buffer;
  /** Where the file's complete lines ended (a partial last line is not on disk yet: no reader takes it). */
  completeBytes: number;
  size: number;
  /** The window holds the whole file: what is not in it is not on disk. */
  whole: boolean;
}

/** The last `windowBytes` of a file's complete lines; undefined when it is missing, not a regular file or unreadable. */
export function readWindow(path: string, windowBytes = ON_DISK_WINDOW_BYTES): TranscriptWindow | undefined {
  const read = readBounded(path, windowBytes, 'end');
  if (!read) return undefined;
  const { lines, end } = completeLines(read);
  return { lines, completeBytes: end, size: read.size, whole: read.start === 0 };
}

/**
 * The call's lines in a window, by the one reading of a line (./recordLine.ts): its record (the last
 * one: a fork's file starts with copies of its parent's records) and whether its result is there.
 * The one lookup of the hook, the status line, `message` and `complete`.
 */
export function callInWindow(w: TranscriptWindow, toolUseId: string): { record?: Buffer; result: boolean } {
  let record: Buffer | undefined;
  let result = false;
  for (const line of linesHolding(w.lines, toolUseIdNeedle(toolUseId))) {
    const kind = lineKindOf(line, toolUseId);
    if (kind === 'record') record = line;
    else if (kind === 'result') result = true;
  }
  return { ...(record !== undefined ? { record } : {}), result };
}

/**
 * Looks for the call's record and result among the last `windowBytes` of the
 * file's complete lines. Never throws: a file that is missing, not a regular file or
 * unreadable gives undefined (no evidence, which readers take as "unknown").
 */
export function checkOnDisk(path: string, toolUseId: string, windowBytes = ON_DISK_WINDOW_BYTES): OnDiskCheck | undefined {
  const w = readWindow(path, windowBytes);
  if (!w) return undefined;
  const found = callInWindow(w, toolUseId);
  const record = found.record !== undefined;
  // The whole file was searched: absence is proof. Otherwise a record older than the window is
  // possible, so only its presence says something; a result always follows its record, so a
  // record found means a missing result is not older than the window either.
  const check: OnDiskCheck = { complete_bytes: w.completeBytes, bytes_on_disk: w.size };
  if (record || w.whole) check.record_on_disk = record;
  if (found.result || record || w.whole) check.result_on_disk = found.result;
  return check;
}

export { recordFileOf } from './modContract';
