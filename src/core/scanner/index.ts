import type { ScanResult } from '../records';
import type { LineScanner } from '../tailTypes';
import { buildRecord, fieldsFromParsed, PlainRecords, ROOT_STRING_KEYS, type CapturedFields, type RootStringKey } from './fields';
import { LineReducer } from './lineReducer';
import { StreamingRecordParser } from './streamingParser';
import type { ScannerKernel } from './scannerKernel';

/**
 * The transcript record scanner. A line up to `streamThreshold` bytes is
 * buffered; where WebAssembly SIMD runs, ./lineReducer.ts validates it and
 * lists where the values of the keys the engine reads lie, and only those are
 * decoded (no JSON.parse, no object tree; without wasm, JSON.parse of the whole
 * line, native and fastest for small records). A longer line
 * switches, mid-line, to StreamingRecordParser, which validates the whole line
 * but keeps only the fields the engine needs, so a 64 MB tool result never
 * becomes a string or an object tree. All paths fill the same CapturedFields
 * under the same rules (./fields.ts), and the property tests hold them to
 * identical results, including for invalid UTF-8 inside strings (decoded to
 * U+FFFD, not malformed) and for garbage.
 */
/**
 * Without the reducer. From about this length up the tokenizer is as fast as
 * JSON.parse plus decoding, and it allocates next to nothing, where JSON.parse
 * builds a whole object tree per line, which raises peak RSS. Small records
 * stay on JSON.parse, whose native loop wins on dense structure (figures in
 * BENCHMARKS.md).
 */
export const DEFAULT_STREAM_THRESHOLD = 16 * 1024;
/**
 * With the reducer, which builds nothing for the bytes it drops: on the bench's
 * 16-64 KiB records and on escaped tool output it beats the tokenizer up to
 * 64 KiB, and loses from 256 KiB on, where it costs a copy of the line the
 * tokenizer does not make (figures in BENCHMARKS.md).
 */
export const DEFAULT_REDUCED_STREAM_THRESHOLD = 64 * 1024;

export interface RecordScannerOptions {
  /**
   * Lines longer than this many bytes go through the streaming tokenizer
   * (default DEFAULT_REDUCED_STREAM_THRESHOLD with the reducer, else DEFAULT_STREAM_THRESHOLD).
   */
  streamThreshold?: number;
  /**
   * Buffered lines are first validated and reduced to the kept keys in wasm
   * (./lineReducer.ts), and only those are read (default: on where
   * WebAssembly SIMD runs). Off: JSON.parse reads the whole line.
   */
  reduce?: boolean;
  /**
   * The wasm instance to scan with (default: the process's shared one). A
   * ReadingKernel whose read buffers the tail reads into scans chunks in place.
   */
  kernel?: ScannerKernel;
  /**
   * Whether the next line's `prompt` is wanted, asked once per line (default:
   * always). Where it is not, the record has none, and the text it would come
   * from (a user record's content, a last-prompt's lastPrompt) is not decoded:
   * analyze reports only the first user prompt, and a session types thousands.
   */
  prompts?: () => boolean;
}

class RecordScanner implements RecordLineScanner {
  private readonly threshold: number;
  private buf: Buffer;
  private len = 0;
  private streaming: StreamingRecordParser | undefined;
  private streamingActive = false;
  private readonly reducer: LineReducer | undefined;
  private readonly kernel: ScannerKernel | undefined;
  private readonly prompts: (() => boolean) | undefined;
  /** The records of the reducer's plain lines, shared (see PlainRecords). */
  private readonly plainRecords = new PlainRecords();
  /** Whether the next line's prompt is wanted (RecordScannerOptions.prompts). */
  private readonly promptsWanted = (): boolean => this.prompts?.() ?? true;

  constructor(opts: RecordScannerOptions) {
    this.kernel = opts.kernel;
    this.prompts = opts.prompts;
    this.reducer = opts.reduce === false ? undefined : LineReducer.create(opts.kernel);
    const threshold = opts.streamThreshold ?? (this.reducer ? DEFAULT_REDUCED_STREAM_THRESHOLD : DEFAULT_STREAM_THRESHOLD);
    this.threshold = Math.max(0, Math.floor(threshold));
    this.buf = Buffer.allocUnsafe(Math.min(this.threshold, 64 * 1024));
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.streamingActive) {
      this.streaming!.push(chunk);
      return;
    }
    const total = this.len + chunk.length;
    if (total > this.threshold) {
      this.streaming ??= new StreamingRecordParser({ kernel: this.kernel });
      this.streamingActive = true;
      if (this.len > 0) this.streaming.push(this.buf.subarray(0, this.len));
      this.len = 0;
      this.streaming.push(chunk);
      return;
    }
    if (total > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.threshold, Math.max(total, this.buf.length * 2)));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    // TypedArray#set: a plain memcpy; Buffer#copy costs more in argument checks than in copying a small line.
    this.buf.set(chunk, this.len);
    this.len = total;
  }

  finish(): ScanResult {
    if (this.streamingActive) {
      this.streamingActive = false;
      return this.streaming!.finish(this.promptsWanted());
    }
    const len = this.len;
    this.len = 0;
    return this.scanBuffered(this.buf, 0, len);
  }

  finishLine(chunk: Buffer, start: number, end: number): ScanResult {
    // Most lines lie whole in one read buffer: scanned from there, not copied into this.buf first.
    if (this.len === 0 && !this.streamingActive && end - start <= this.threshold) return this.scanBuffered(chunk, start, end);
    if (end > start) this.push(chunk.subarray(start, end));
    return this.finish();
  }

  finishLines(chunk: Buffer, start: number, line: (start: number, end: number, value: ScanResult) => void): number {
    // Lines the reducer captures in place, many to a call; any other line goes through finishLine.
    if (this.reducer === undefined || this.len > 0 || this.streamingActive) return start;
    return this.reducer.captureLines(chunk, start, this.threshold, this.promptsWanted, (from, to, fields, prompts) => line(from, to, this.plainRecords.recordOf(fields, prompts)));
  }

  /** A whole line of at most `threshold` bytes, [start, end) of `source`, read at once (nothing kept of `source`). */
  private scanBuffered(source: Buffer, start: number, end: number): ScanResult {
    const prompts = this.promptsWanted();
    if (this.reducer !== undefined) {
      const fields = this.reducer.captureRange(source, start, end, prompts);
      if (typeof fields !== 'number') return this.plainRecords.recordOf(fields, prompts);
    }
    const line = source.subarray(start, end);
    return parseBuffered(line, () => this.streamReason(line), prompts);
  }

  /** Rare: let the tokenizer say why a line is no JSON ("empty", "truncated", "not JSON"), so both paths give one reason. */
  private streamReason(line: Buffer): ScanResult {
    const parser = (this.streaming ??= new StreamingRecordParser({ kernel: this.kernel }));
    parser.push(line);
    return parser.finish();
  }

  reset(): void {
    this.len = 0;
    if (this.streamingActive) this.streaming!.reset();
    this.streamingActive = false;
  }
}

/**
 * The JSON.parse path on a whole line; `notJson` gives the result for a line
 * JSON.parse rejects; `prompts`: see buildRecord.
 */
function parseBuffered(line: Buffer, notJson: () => ScanResult, prompts: boolean): ScanResult {
  // Latin-1 first: one byte per character, no UTF-8 decoding, and V8 parses a
  // one-byte string markedly faster (BENCHMARKS.md). It
  // accepts exactly the lines UTF-8 decoding does (bytes >= 0x80 are legal only
  // inside strings either way, and a bad UTF-8 sequence never swallows an ASCII
  // byte), so only the kept strings can differ, and only if one holds a
  // character >= 0x80: such a line is decoded again as UTF-8.
  const latin1 = parseObject(line.toString('latin1'));
  if (latin1 === undefined) return notJson();
  if (latin1 === null) return { kind: 'malformed', reason: 'not an object' };
  const fields = fieldsFromParsed(latin1);
  if (!hasNonAscii(fields)) return buildRecord(fields, prompts);
  // Same decoding as the streaming path: invalid UTF-8 becomes U+FFFD. Without
  // a `\u` escape in the line, every character >= 0x80 of a kept string is a
  // raw byte, and the escapes became ASCII characters; a UTF-8 decoder treats
  // any ASCII byte alike (it ends a pending sequence and stands for itself), so
  // re-encoding the kept strings as Latin-1 and decoding those bytes as UTF-8
  // gives what decoding the whole line would, without parsing it again (prose
  // with accents, arrows and emoji is common in text blocks and prompts).
  if (line.indexOf(BACKSLASH_U) === -1) return buildRecord(fieldsFromParsed(latin1, latin1BytesAsUtf8), prompts);
  return buildRecord(fieldsFromParsed(parseObject(line.toString('utf8'))!), prompts);
}

const BACKSLASH_U = Buffer.from('\\u', 'latin1');

function latin1BytesAsUtf8(s: string): string {
  return NON_ASCII.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : s;
}

/** The parsed root object; null for valid JSON that is no object; undefined for invalid JSON. */
function parseObject(text: string): Record<string, unknown> | null | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

const NON_ASCII = /[^\x00-\x7f]/;
const ROOT_STRING_KEY_NAMES = Object.keys(ROOT_STRING_KEYS) as RootStringKey[];

function nonAscii(s: string | null | undefined): boolean {
  return s !== undefined && s !== null && NON_ASCII.test(s);
}

/** Whether any kept string holds a character >= 0x80 (where Latin-1 and UTF-8 decoding may differ). */
function hasNonAscii(f: CapturedFields): boolean {
  for (const key of ROOT_STRING_KEY_NAMES) if (nonAscii(f[key])) return true;
  if (nonAscii(f.messageId) || nonAscii(f.stopReason) || nonAscii(f.contentText) || nonAscii(f.firstText)) return true;
  for (const use of f.toolUses) if (nonAscii(use.id) || nonAscii(use.name)) return true;
  for (const id of f.toolResults) if (nonAscii(id)) return true;
  return false;
}

/** The record scanner: a LineScanner that always takes a line's last bytes by finishLine(). */
export type RecordLineScanner = Required<LineScanner<ScanResult>>;

export function createRecordScanner(opts: RecordScannerOptions = {}): RecordLineScanner {
  return new RecordScanner(opts);
}

/** One whole line (without its newline) at once; for tests and small callers. */
export function scanLine(line: Buffer | string, opts: RecordScannerOptions = {}): ScanResult {
  const scanner = createRecordScanner(opts);
  scanner.push(typeof line === 'string' ? Buffer.from(line, 'utf8') : line);
  return scanner.finish();
}
