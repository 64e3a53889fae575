import type { LineScanner } from '../tailTypes';
import { CHANNEL_SCHEMA_VERSION } from './constants';
import { channelEventSchema, type ChannelEvent } from './schema';

/**
 * What one channel line turned out to be. Only `event` lines reach the
 * correlator; the rest are counted and skipped, never guessed at.
 */
export type ChannelLine =
  | { kind: 'event'; event: ChannelEvent; /** Parsed from the tail of a line a killed writer left unfinished. */ recovered?: boolean }
  | { kind: 'blank' }
  | { kind: 'oversize'; bytes: number }
  | { kind: 'malformed' }
  | { kind: 'unknown-version'; v: unknown }
  | { kind: 'unknown-event'; event: string }
  | { kind: 'invalid'; reason: string };

export type ChannelLineKind = ChannelLine['kind'];
export type ChannelCounts = Record<ChannelLineKind, number>;

export interface ChannelScannerOptions {
  /** Lines longer than this are rejected without being held whole. Default 64 KiB: events are a few hundred bytes. */
  maxLineBytes?: number;
}

export interface ChannelScanner extends LineScanner<ChannelLine> {
  /** Lines seen so far by kind, for diagnostics. */
  readonly counts: Readonly<ChannelCounts>;
}

export const DEFAULT_CHANNEL_MAX_LINE_BYTES = 64 * 1024;

const KNOWN_EVENTS = new Set(['pre', 'post', 'wait', 'landed', 'record']);
/** Every line our hook writes starts so; a line that also holds it later is two lines glued by a killed write. */
const EVENT_START = '{"v":';

function classify(text: string): ChannelLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'malformed' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'malformed' };
  const obj = value as Record<string, unknown>;
  if (obj.v !== CHANNEL_SCHEMA_VERSION) {
    return 'v' in obj ? { kind: 'unknown-version', v: obj.v } : { kind: 'invalid', reason: 'no v' };
  }
  if (typeof obj.event !== 'string' || !KNOWN_EVENTS.has(obj.event)) {
    return typeof obj.event === 'string' ? { kind: 'unknown-event', event: obj.event.slice(0, 100) } : { kind: 'invalid', reason: 'no event' };
  }
  const parsed = channelEventSchema.safeParse(obj);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', reason: `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}` };
  }
  return { kind: 'event', event: parsed.data };
}

export function parseChannelLine(text: string): ChannelLine {
  if (text.trim() === '') return { kind: 'blank' };
  const line = classify(text);
  if (line.kind !== 'malformed') return line;
  // A hook killed mid-write leaves a partial line; the next append then lands
  // on the same line. The later event is intact: keep it, drop the fragment.
  const start = text.lastIndexOf(EVENT_START);
  if (start > 0) {
    const tail = classify(text.slice(start));
    if (tail.kind === 'event') return { ...tail, recovered: true };
  }
  return line;
}

/** The channel reader plugged into FileTail: per-line size cap, JSON, zod. */
export function createChannelScanner(opts: ChannelScannerOptions = {}): ChannelScanner {
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_CHANNEL_MAX_LINE_BYTES;
  const counts: ChannelCounts = {
    event: 0,
    blank: 0,
    oversize: 0,
    malformed: 0,
    'unknown-version': 0,
    'unknown-event': 0,
    invalid: 0,
  };
  let parts: Buffer[] = [];
  let bytes = 0;
  const reset = () => {
    parts = [];
    bytes = 0;
  };
  return {
    counts,
    push(chunk: Buffer) {
      bytes += chunk.length;
      // Past the cap only the byte count goes on; the chunk is never kept.
      if (bytes > maxLineBytes) parts = [];
      else parts.push(Buffer.from(chunk));
    },
    finish() {
      const line: ChannelLine =
        bytes > maxLineBytes ? { kind: 'oversize', bytes } : parseChannelLine(Buffer.concat(parts, bytes).toString('utf8'));
      counts[line.kind] += 1;
      reset();
      return line;
    },
    reset,
  };
}
