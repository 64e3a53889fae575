import { HEAD_BYTES } from '../../rules/recordLine';
import type { MalformedLine, ScannedRecord, ScanResult } from '../records';
import type { LineScanner } from '../tailTypes';
import { buildRecord, fieldsFromParsed, isMalformed, type CapturedFields } from './fields';
import { StreamingRecordParser } from './streamingParser';
import type { ScannerKernel } from './scannerKernel';

/**
 * The live engine's record scanner (docs/ARCHITECTURE.md, "The scanner"): a line of up to `streamThreshold`
 * bytes is read whole by JSON.parse; a longer one switches mid-line to StreamingRecordParser, which keeps only
 * the kept fields in bounded memory. From about this length up the tokenizer is as fast as JSON.parse, and it
 * builds no object tree (figures in BENCHMARKS.md).
 */
export const DEFAULT_STREAM_THRESHOLD = 16 * 1024;

export interface RecordScannerOptions {
  /** Lines longer than this many bytes go through the streaming tokenizer (default DEFAULT_STREAM_THRESHOLD). */
  streamThreshold?: number;
  /** The wasm instance the tokenizer skips string interiors on (default: the process's shared one). */
  kernel?: ScannerKernel;
  /**
   * Whether the next line's `prompt` is wanted, asked once per line (default: always). Where it is not, the
   * texts a prompt comes from are not decoded: analyze reports only the first prompt, and a session types thousands.
   */
  prompts?: () => boolean;
}

/** The record scanner: a LineScanner that takes a line's last bytes by finishLine(). */
export type RecordLineScanner = LineScanner<ScanResult> & Required<Pick<LineScanner<ScanResult>, 'finishLine'>>;

const EMPTY = Buffer.alloc(0);

/**
 * The scanner's two paths, up to a line's kept fields (./fields.ts); what the fields make is the subclass's: a record
 * (RecordScanner: the live engine's, analyze's) or replay's facts of a line (src/core/replay/transcriptIndex.ts).
 */
export abstract class FieldScanner<T> implements LineScanner<T | MalformedLine> {
  protected readonly threshold: number;
  private buf: Buffer;
  private len = 0;
  private streaming: StreamingRecordParser | undefined;
  private streamingActive = false;
  /** Bytes of the line streamed so far, and its fields at HEAD_BYTES (the calls of a longer line are its head's). */
  private streamed = 0;
  private head: CapturedFields | undefined;
  protected readonly kernel: ScannerKernel | undefined;
  private readonly prompts: (() => boolean) | undefined;
  /** Whether the next line's prompt is wanted (RecordScannerOptions.prompts). */
  protected readonly promptsWanted = (): boolean => this.prompts?.() ?? true;

  constructor(opts: RecordScannerOptions = {}, defaultThreshold = DEFAULT_STREAM_THRESHOLD) {
    this.kernel = opts.kernel;
    this.prompts = opts.prompts;
    // At most HEAD_BYTES: a longer line is streamed, so its head can be read as the record-line rule reads it.
    this.threshold = Math.min(HEAD_BYTES, Math.max(0, Math.floor(opts.streamThreshold ?? defaultThreshold)));
    // Grown when a line first arrives in pieces: most lines are scanned where they were read
    // (finishLine), and a process follows thousands of files whose scanners never need it.
    this.buf = EMPTY;
  }

  /** What a line's fields make (`prompts`: whether its prompt is wanted, see buildRecord). */
  protected abstract fromFields(fields: CapturedFields, prompts: boolean): T;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.streamingActive) return this.stream(chunk);
    const total = this.len + chunk.length;
    if (total > this.threshold) {
      this.streaming ??= new StreamingRecordParser({ kernel: this.kernel });
      this.streamingActive = true;
      if (this.len > 0) this.stream(this.buf.subarray(0, this.len));
      this.len = 0;
      this.stream(chunk);
      return;
    }
    if (total > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.threshold, Math.max(total, this.buf.length * 2, 1024)));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    // TypedArray#set: a plain memcpy; Buffer#copy costs more in argument checks than in copying a small line.
    this.buf.set(chunk, this.len);
    this.len = total;
  }

  /** A streamed line's bytes, its fields taken at HEAD_BYTES on the way. */
  private stream(chunk: Buffer): void {
    const parser = this.streaming!;
    const room = HEAD_BYTES - this.streamed;
    this.streamed += chunk.length;
    if (room <= 0 || chunk.length < room) return parser.push(chunk);
    parser.push(chunk.subarray(0, room));
    this.head = parser.headFields();
    if (chunk.length > room) parser.push(chunk.subarray(room));
  }

  finish(): T | MalformedLine {
    if (this.streamingActive) {
      this.streamingActive = false;
      const prompts = this.promptsWanted();
      const fields = this.streaming!.finishFields();
      const head = this.streamed > HEAD_BYTES ? this.head : undefined;
      this.streamed = 0;
      this.head = undefined;
      if (head === undefined) return isMalformed(fields) ? fields : this.fromFields(fields, prompts);
      // Past HEAD_BYTES a line is the record (or result) of the calls its head names, as every reader of the rule
      // reads it (src/rules/recordLine.ts), even when what follows is no JSON; the rest is the whole line's.
      if (isMalformed(fields)) return head.toolUses.length + head.toolResults.length > 0 ? this.fromFields(head, prompts) : fields;
      fields.toolUses = head.toolUses;
      fields.toolResults = head.toolResults;
      return this.fromFields(fields, prompts);
    }
    const len = this.len;
    this.len = 0;
    return this.scanBuffered(this.buf, 0, len, this.promptsWanted());
  }

  finishLine(chunk: Buffer, start: number, end: number): T | MalformedLine {
    // Most lines lie whole in one read buffer: scanned from there, not copied into this.buf first.
    if (this.idle && end - start <= this.threshold) return this.scanBuffered(chunk, start, end, this.promptsWanted());
    if (end > start) this.push(chunk.subarray(start, end));
    return this.finish();
  }

  /** No partial line is held. */
  protected get idle(): boolean {
    return this.len === 0 && !this.streamingActive;
  }

  /** A whole line of at most `threshold` bytes, [start, end) of `source`, read at once by JSON.parse (nothing kept of `source`). */
  protected scanBuffered(source: Buffer, start: number, end: number, prompts: boolean): T | MalformedLine {
    const line = source.subarray(start, end);
    let value: unknown;
    try {
      value = JSON.parse(line.toString('utf8'));
    } catch {
      return this.streamReason(line, prompts);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'malformed', reason: 'not an object' };
    return this.fromFields(fieldsFromParsed(value as Record<string, unknown>), prompts);
  }

  /** Rare: let the tokenizer say why a line is no JSON ("empty", "truncated", "not JSON"), so both paths give one reason. */
  private streamReason(line: Buffer, prompts: boolean): T | MalformedLine {
    const parser = (this.streaming ??= new StreamingRecordParser({ kernel: this.kernel }));
    parser.push(line);
    const fields = parser.finishFields();
    return isMalformed(fields) ? fields : this.fromFields(fields, prompts);
  }

  reset(): void {
    this.len = 0;
    if (this.streamingActive) this.streaming!.reset();
    this.streamingActive = false;
    this.streamed = 0;
    this.head = undefined;
  }
}

export class RecordScanner extends FieldScanner<ScannedRecord> implements RecordLineScanner {
  protected fromFields(fields: CapturedFields, prompts: boolean): ScannedRecord {
    return buildRecord(fields, prompts);
  }
}

export function createRecordScanner(opts: RecordScannerOptions = {}): RecordLineScanner {
  return new RecordScanner(opts);
}

/** One whole line (without its newline) at once, by a new scanner of `opts` or by `scanner`; for tests and small callers. */
export function scanLine(line: Buffer | string, opts: RecordScannerOptions | RecordLineScanner = {}): ScanResult {
  const scanner = 'push' in opts ? opts : createRecordScanner(opts);
  scanner.push(typeof line === 'string' ? Buffer.from(line, 'utf8') : line);
  return scanner.finish();
}
