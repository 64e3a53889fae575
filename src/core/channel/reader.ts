import type { LineScanner } from '../tailTypes';
import { channelLineHead, gluedTail } from '../../rules/channelLineHead';
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

/** The head (src/rules/channelLineHead.ts, shared with the status line), then zod. */
function classify(text: string): ChannelLine {
  const head = channelLineHead(text);
  if (head.kind !== 'candidate') return head;
  const parsed = channelEventSchema.safeParse(head.obj);
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
  // A killed write glued two lines: keep the later, intact event, drop the fragment.
  const glued = gluedTail(text);
  if (glued !== undefined) {
    const tail = classify(glued);
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
