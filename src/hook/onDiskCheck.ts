import { SAFE_SESSION_ID } from '../core/channel/constants';
import { completeLines, readBounded } from './boundedRead';

/**
 * What was on disk, at one moment of a hook's life, for its own call: the
 * evidence that lets a reader who was not watching tell later how the call's
 * record reached disk (see the README's channel contract). One read of the
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
/** Lines longer than this are judged by their position alone (an assistant tool_use record is small; a result may be huge). */
const PARSE_LINE_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export type LineKind = 'record' | 'result' | 'other';

/** The id as its bytes appear inside a JSON string. */
export function toolUseIdNeedle(id: string): Buffer {
  return Buffer.from(JSON.stringify(id).slice(1, -1), 'utf8');
}

/**
 * What a line holding the id's bytes is, for the call `id`. `partial`: only
 * the line's first bytes are given (the rest was too long to keep).
 */
export function lineKind(line: Buffer, id: string, partial = false): LineKind {
  if (partial || line.length > PARSE_LINE_BYTES) {
    // Too long to parse: a tool result (its output inline), a record with a large input, or text quoting
    // the id. Judged by the keys Claude Code writes first, compact, as they sit at the line's start.
    const quoted = JSON.stringify(id);
    if (line.includes(`"tool_use_id":${quoted}`) && line.includes('"role":"user"')) return 'result';
    if (line.includes(`"type":"tool_use","id":${quoted}`) && line.includes('"role":"assistant"')) return 'record';
    return 'other';
  }
  let rec: { type?: unknown; message?: { content?: unknown } };
  try {
    rec = JSON.parse(line.toString('utf8'));
  } catch {
    return 'other';
  }
  const content = rec?.message?.content;
  if (!Array.isArray(content)) return 'other';
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    if (rec.type === 'assistant' && b.type === 'tool_use' && b.id === id) return 'record';
    if (rec.type === 'user' && b.type === 'tool_result' && b.tool_use_id === id) return 'result';
  }
  return 'other';
}

/**
 * Looks for the call's record and result among the last `windowBytes` of the
 * file's complete lines. A partial last line is not on disk yet (no reader
 * takes it). Never throws: a file that is missing, not a regular file or
 * unreadable gives undefined (no evidence, which readers take as "unknown").
 */
export function checkOnDisk(path: string, toolUseId: string, windowBytes = ON_DISK_WINDOW_BYTES): OnDiskCheck | undefined {
  const read = readBounded(path, windowBytes, 'end');
  if (!read) return undefined;
  const { start, size } = read;
  const { lines: complete, end } = completeLines(read);
  const needle = toolUseIdNeedle(toolUseId);
  let record = false;
  let result = false;
  let at = complete.indexOf(needle);
  while (at !== -1 && !(record && result)) {
    const lineStart = complete.lastIndexOf(NEWLINE, at) + 1;
    let lineEnd = complete.indexOf(NEWLINE, at);
    if (lineEnd === -1) lineEnd = complete.length;
    const kind = lineKind(complete.subarray(lineStart, lineEnd), toolUseId);
    if (kind === 'record') record = true;
    else if (kind === 'result') result = true;
    at = complete.indexOf(needle, lineEnd);
  }
  // The whole file was searched: absence is proof. Otherwise a record older than the window is
  // possible, so only its presence says something; a result always follows its record, so a
  // record found means a missing result is not older than the window either.
  const whole = start === 0;
  const check: OnDiskCheck = { complete_bytes: end, bytes_on_disk: size };
  if (record || whole) check.record_on_disk = record;
  if (result || record || whole) check.result_on_disk = result;
  return check;
}

/**
 * The file that holds a call's record: a subagent's calls are written to
 * `<session dir>/subagents/agent-<agent_id>.jsonl` beside the main transcript
 * the hook input names. An agent id that could name another path is refused.
 */
export function recordFileOf(transcriptPath: string, sessionId: string, agentId: string | undefined): string | undefined {
  if (agentId === undefined) return transcriptPath;
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(agentId) || !SAFE_SESSION_ID.test(sessionId)) return undefined;
  const slash = transcriptPath.lastIndexOf('/');
  if (slash === -1) return undefined;
  return `${transcriptPath.slice(0, slash)}/${sessionId}/subagents/agent-${agentId}.jsonl`;
}
