import { joinChannel } from './channelJoin';
import { spoolHoldsSession, spoolOfChannelFile } from '../../rules/spoolNames';
import { countShapes, proveShapesFromHookSightings, proveShapesFromSeenWaits } from './shapes';
import { TranscriptSummary } from './transcriptSummary';
import type { TranscriptAnalysis } from './types';
import type { Clock } from '../../rules/clock';
import type { FileAccess } from '../fileAccess';
import type { ScanResult } from '../records';
import { createCaptureReading } from './capture/captureScanner';
import { FileTail } from '../tail';
import type { TailChange } from '../tailTypes';

export type * from './types';
export { inferBatches } from './transcriptSummary';
export { inferShape } from './shapes';

export interface AnalyzeOptions {
  /** The transcript (.jsonl). */
  path: string;
  files: FileAccess;
  clock: Clock;
  /** A hook channel file to join `pre` / `wait` events from. */
  channelPath?: string;
  /** FileTail's chunkSize: bytes per read (default ANALYZE_CHUNK_SIZE). */
  chunkSize?: number;
  /** Lines longer than this go through the streaming tokenizer (see src/core/scanner). */
  streamThreshold?: number;
  /** FileTail's maxBytesPerRead: how far one read goes (see DEFAULT_SLICE_BYTES). */
  sliceBytes?: number;
}

/**
 * Lines go straight into the summary as they are read (FileTail's onLine), so
 * a slice holds no lines and can be large: the tail reads ahead within a
 * slice, and each slice costs a stat and starts with no read running ahead,
 * so one slice is the fastest. Slices only bound how far past the size seen at
 * the start one read may go.
 */
export const DEFAULT_SLICE_BYTES = 1024 * 1024 * 1024;

/**
 * Bytes per read for analyze, twice the tail's default: each read issued costs
 * this thread time (it may wake a libuv thread), and this issues half as many.
 * Larger reads were no faster, and 2 MiB loses a little on ordinary lines only
 * to gain more on huge ones (sizes compared in BENCHMARKS.md).
 */
export const ANALYZE_CHUNK_SIZE = 2 * 1024 * 1024;

/** A file analyze cannot read: the CLI turns it into exit code 2. */
export class AnalyzeInputError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'AnalyzeInputError';
  }
}

async function requireFile(files: FileAccess, path: string, what: string): Promise<number> {
  const id = await files.stat(path);
  if (!id) throw new AnalyzeInputError(`${what} not found: ${path}`, path);
  if (!id.isFile) throw new AnalyzeInputError(`${what} is not a regular file: ${path}`, path);
  return id.size;
}

/** The channel file does not exist and the spool beside it holds events of its session. */
async function spooledOnly(files: FileAccess, channelPath: string): Promise<boolean> {
  const spool = spoolOfChannelFile(channelPath);
  return spool !== undefined && (await files.stat(channelPath)) === undefined && (await spoolHoldsSession(files, spool.spoolDir, spool.sessionId));
}

/**
 * Offline analysis of one transcript, on the same pieces as the live engine:
 * FileTail splits lines and streams their bytes into the record scanner, so
 * neither the file nor any line is ever held whole, and hands each line to the
 * summary as it is read, so a multi-GB file never becomes millions of lines
 * held at once. It stops once the size seen at the start is covered; a slice
 * may take in a little of what was appended meanwhile (`bytes` says how much
 * was read).
 */
export async function analyzeTranscript(opts: AnalyzeOptions): Promise<TranscriptAnalysis> {
  const sizeAtStart = await requireFile(opts.files, opts.path, 'transcript');
  // A session whose events are all still in the mod's spool has no channel file yet: its spool is read alone.
  if (opts.channelPath !== undefined && !(await spooledOnly(opts.files, opts.channelPath))) await requireFile(opts.files, opts.channelPath, 'channel file');
  const read = await readInOneThread(opts, sizeAtStart);
  const { summary, bytes, partialTailBytes, changes } = read;

  const analysis: TranscriptAnalysis = {
    file: opts.path,
    bytes,
    ...summary.finish(),
    partial_tail_bytes: partialTailBytes,
    changes,
  };
  if (opts.channelPath !== undefined) {
    const joined = await joinChannel(opts.channelPath, opts.files, opts.clock, (id) => summary.call(id));
    analysis.waits = joined.waits;
    analysis.channel = joined.channel;
    proveShapesFromSeenWaits(analysis.calls, joined.sightings);
    proveShapesFromHookSightings(analysis.calls, joined.sightings);
    Object.assign(analysis.counts, countShapes(analysis.calls));
  }
  return analysis;
}

interface TranscriptRead {
  summary: TranscriptSummary;
  bytes: number;
  partialTailBytes: number;
  changes: TailChange[];
}

async function readInOneThread(opts: AnalyzeOptions, sizeAtStart: number): Promise<TranscriptRead> {
  let summary = new TranscriptSummary();
  let generation = 0; // the tail's, set below
  const chunkSize = opts.chunkSize ?? ANALYZE_CHUNK_SIZE;
  const { scanner, batches } = createCaptureReading({
    chunkSize,
    streamThreshold: opts.streamThreshold,
    // Prompts only until the first user prompt, the one the report shows (of a new generation, once more).
    prompts: (): boolean => tail.generation !== generation || summary.wantsPrompt,
  });
  const tail: FileTail<ScanResult> = new FileTail<ScanResult>({
    path: opts.path,
    files: opts.files,
    clock: opts.clock,
    scanner,
    chunkSize,
    maxBytesPerRead: Math.max(1, opts.sliceBytes ?? DEFAULT_SLICE_BYTES),
    onLine: (l) => {
      // The file was cut or replaced under the read: line numbers restart, and so does
      // the summary, so that its calls are those of the lines it reports (the change is in `changes`).
      if (tail.generation !== generation) {
        generation = tail.generation;
        summary = new TranscriptSummary();
      }
      summary.add(l.line, l.scan);
    },
  }, batches);
  generation = tail.generation;
  const changes: TailChange[] = [];
  try {
    // Read in bounded slices until the size seen at the start is covered, so a
    // file still being appended to does not keep the analysis going.
    for (;;) {
      const read = await tail.read();
      changes.push(...read.changes);
      if (!read.more || tail.offset >= sizeAtStart) break;
    }
    // Cut to nothing (no line of the new generation came): nothing of what was read before is in the file.
    if (tail.generation !== generation) summary = new TranscriptSummary();
    return { summary, bytes: tail.offset, partialTailBytes: tail.partialBytes, changes };
  } finally {
    await tail.close();
  }
}
