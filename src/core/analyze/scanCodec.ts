import type { ScannedRecord, ScanResult } from '../records';
import { NO_TOOL_RESULTS, NO_TOOL_USES } from '../scanner/fields';

/**
 * What a line's scan says to analyze's summary (TranscriptSummary.add), as
 * short JSON, for scans that cross from the worker thread to this one. The
 * decoding on this thread is the price of the second thread, so the text keeps
 * only what add() reads, and only where it reads it: a call's message id, block
 * index, timestamp, stop reason, sidechain flag and agent id only on lines with
 * tool uses; defaults (not metadata, no uses, no results) left out; the session
 * id only when it differs from the line before, so a typical line's text is
 * a fraction of its full scan's.
 *
 * Keys: m malformed reason; t type; s session id (null: none); n title;
 * p prompt; x metadata; u uses as [id, name]; r result ids; and with uses:
 * i message id, b block index, c timestamp, z stop reason (null kept),
 * e sidechain, a agent id, o request session id (a fork's copies).
 */
interface Compact {
  m?: string;
  t?: string;
  s?: string | null;
  n?: string;
  p?: string;
  x?: 1;
  u?: Array<[string, string]>;
  r?: string[];
  i?: string;
  b?: number;
  c?: string;
  z?: string | null;
  e?: 1;
  a?: string;
  o?: string;
}

/** The session id of the line before, on each side; a range starts with none. */
export class ScanCodecState {
  sessionId: string | undefined = undefined;
}

export function encodeScan(scan: ScanResult, state: ScanCodecState): string {
  if (scan.kind === 'malformed') return JSON.stringify({ m: scan.reason } satisfies Compact);
  const c: Compact = {};
  if (scan.type !== undefined) c.t = scan.type;
  if (scan.sessionId !== state.sessionId) {
    c.s = scan.sessionId ?? null;
    state.sessionId = scan.sessionId;
  }
  if (scan.title !== undefined) c.n = scan.title;
  if (scan.prompt !== undefined) c.p = scan.prompt;
  if (scan.isMetadata) c.x = 1;
  if (scan.toolResults.length > 0) c.r = scan.toolResults;
  if (scan.toolUses.length > 0) {
    c.u = scan.toolUses.map((use) => [use.id, use.name]);
    if (scan.messageId !== undefined) c.i = scan.messageId;
    if (scan.apiBlockIndex !== undefined) c.b = scan.apiBlockIndex;
    if (scan.timestamp !== undefined) c.c = scan.timestamp;
    if (scan.stopReason !== undefined) c.z = scan.stopReason;
    if (scan.isSidechain === true) c.e = 1;
    if (scan.agentId !== undefined) c.a = scan.agentId;
    if (scan.requestSessionId !== undefined) c.o = scan.requestSessionId;
  }
  return JSON.stringify(c);
}

/** A scan with what the summary reads of the encoded one (other fields absent). */
export function decodeScan(text: string, state: ScanCodecState): ScanResult {
  const c = JSON.parse(text) as Compact;
  if (c.m !== undefined) return { kind: 'malformed', reason: c.m };
  if (c.s !== undefined) state.sessionId = c.s ?? undefined;
  const uses = c.u ?? [];
  const rec: ScannedRecord = {
    kind: 'record',
    toolUses: uses.length > 0 ? uses.map(([id, name]) => ({ id, name })) : NO_TOOL_USES,
    toolResults: c.r ?? NO_TOOL_RESULTS,
    isMetadata: c.x === 1,
  };
  if (c.t !== undefined) rec.type = c.t;
  if (state.sessionId !== undefined) rec.sessionId = state.sessionId;
  if (c.n !== undefined) rec.title = c.n;
  if (c.p !== undefined) rec.prompt = c.p;
  if (c.i !== undefined) rec.messageId = c.i;
  if (c.b !== undefined) rec.apiBlockIndex = c.b;
  if (c.c !== undefined) rec.timestamp = c.c;
  if (c.z !== undefined) rec.stopReason = c.z;
  if (c.e === 1) rec.isSidechain = true;
  if (c.a !== undefined) rec.agentId = c.a;
  if (c.o !== undefined) rec.requestSessionId = c.o;
  return rec;
}
