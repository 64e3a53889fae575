/**
 * Writes a large transcript with a realistic mix: most bytes in a few huge
 * tool results and attachments (text with escapes, base64 images), one giant
 * line (64 MiB at 1 GiB), and the rest ordinary turns: prompts, per-block
 * assistant records, small tool results, attachments, metadata trailers and
 * api-request records. Streams to disk: never holds a huge line in memory.
 */
import * as fs from 'node:fs';
import { randomInt, seededRandom, randomUuid, type Random } from './random';
import {
  type SessionContext,
  apiRequest,
  assistantBlock,
  attachment,
  metadataTrailer,
  newIds,
  toolResult,
  toolUseBlock,
  userPrompt,
} from './transcriptRecords';

const MiB = 1024 * 1024;
/** Stands in for a huge string while a record is serialized; replaced by streamed filler. */
export const MARKER = '@@BENCH_FILL@@';

export interface GenerateOptions {
  path: string;
  sizeBytes: number;
  seed?: number;
  cwd?: string;
}

export interface GeneratedTranscript {
  path: string;
  bytes: number;
  lines: number;
  /** Distinct tool_use ids written (each once). */
  toolUses: number;
  toolResults: number;
  /** Lines of 1 MiB or more, and their bytes. */
  hugeLines: number;
  hugeBytes: number;
  largestLine: number;
}

/** Code-like text with tabs, quotes, backslashes and non-ASCII, so its JSON has escapes to skip. */
export function fillerText(rand: Random, bytes: number): string {
  const words = ['const', 'return', 'await', 'config', 'value', 'path', 'résumé', 'naïve', '→', 'ok', 'if', 'else', 'items'];
  let out = '';
  let n = 1;
  while (out.length < bytes) {
    const w = Array.from({ length: randomInt(rand, 3, 10) }, () => words[Math.floor(rand() * words.length)]);
    out += `${n++}\t  ${w.join(' ')} = "${w[0]}\\${w[1]}";\n`;
  }
  return out.slice(0, bytes);
}

export function base64Filler(rand: Random, bytes: number): string {
  const raw = Buffer.alloc(Math.ceil((bytes * 3) / 4));
  for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(rand() * 256);
  return raw.toString('base64').slice(0, bytes);
}

/** Buffers records and writes them in 4 MiB pieces; a huge line's filler is streamed, never held whole. */
export class Sink {
  private parts: Buffer[] = [];
  private pending = 0;
  bytes = 0;
  lines = 0;
  largestLine = 0;
  hugeLines = 0;
  hugeBytes = 0;
  /** Bytes of lines written with filler: the huge ones, whatever their size. */
  filledBytes = 0;
  constructor(private readonly fd: number) {}

  private push(buf: Buffer): void {
    this.parts.push(buf);
    this.pending += buf.length;
    this.bytes += buf.length;
    if (this.pending >= 4 * MiB) this.flush();
  }

  flush(): void {
    if (this.pending === 0) return;
    fs.writeSync(this.fd, Buffer.concat(this.parts, this.pending));
    this.parts = [];
    this.pending = 0;
  }

  private countLine(size: number): void {
    this.lines++;
    this.largestLine = Math.max(this.largestLine, size);
    if (size >= MiB) {
      this.hugeLines++;
      this.hugeBytes += size;
    }
  }

  record(obj: unknown): void {
    const buf = Buffer.from(`${JSON.stringify(obj)}\n`);
    this.countLine(buf.length);
    this.push(buf);
  }

  /** A record whose MARKER strings share `totalFill` bytes of `filler` (already JSON-escaped). */
  recordWithFill(obj: unknown, filler: Buffer, totalFill: number): void {
    const pieces = `${JSON.stringify(obj)}\n`.split(MARKER);
    const fillBytes = Math.floor(totalFill / Math.max(1, pieces.length - 1));
    let size = 0;
    pieces.forEach((piece, i) => {
      const buf = Buffer.from(piece);
      this.push(buf);
      size += buf.length;
      if (i === pieces.length - 1) return;
      for (let left = fillBytes; left > 0; left -= filler.length) {
        const chunk = left >= filler.length ? filler : cutEscaped(filler, left);
        this.push(chunk);
        size += chunk.length;
      }
    });
    this.countLine(size);
    this.filledBytes += size;
  }
}

/**
 * A prefix of escaped JSON text that does not end inside an escape sequence:
 * an odd run of backslashes before the cut means the last one starts an escape.
 * (The filler has no control characters, so there are no \uXXXX escapes.)
 */
export function cutEscaped(escaped: Buffer, length: number): Buffer {
  // Not inside a multi-byte UTF-8 character either: back off continuation bytes (10xxxxxx).
  while (length > 0 && (escaped[length] & 0xc0) === 0x80) length--;
  let run = 0;
  while (run < length && escaped[length - 1 - run] === 0x5c) run++;
  return escaped.subarray(0, run % 2 === 1 ? length - 1 : length);
}

/** Sizes of the huge lines: 1–16 MiB at 1 GiB, scaled down for small quick runs. */
function hugeSchedule(rand: Random, total: number, sizeBytes: number): number[] {
  const upper = Math.max(64 * 1024, Math.min(16 * MiB, Math.floor(sizeBytes / 40)));
  const sizes: number[] = [];
  for (let sum = 0; sum < total; ) {
    const s = randomInt(rand, Math.floor(upper / 16), upper);
    sizes.push(s);
    sum += s;
  }
  return sizes;
}

export function generateTranscript(opts: GenerateOptions): GeneratedTranscript {
  const rand = seededRandom(opts.seed ?? 20261130);
  const ctx: SessionContext = { sessionId: randomUuid(rand), cwd: opts.cwd ?? '/home/dev/bench-project', rand, clockMs: Date.UTC(2026, 10, 30, 8) };
  const giant = opts.sizeBytes >= 512 * MiB ? 64 * MiB : Math.max(64 * 1024, Math.floor(opts.sizeBytes / 16));
  const huge = hugeSchedule(rand, Math.floor(opts.sizeBytes * 0.7), opts.sizeBytes);
  const ordinaryBudget = Math.max(0, opts.sizeBytes - giant - huge.reduce((a, b) => a + b, 0));
  const text = fillerText(rand, 256 * 1024);
  const escapedText = Buffer.from(JSON.stringify(text).slice(1, -1));
  const base64 = Buffer.from(base64Filler(rand, 256 * 1024));

  const fd = fs.openSync(opts.path, 'w');
  const sink = new Sink(fd);
  let toolUses = 0;
  let toolResults = 0;
  let hugeDone = 0;
  let giantDone = false;
  let parent: string | null = null;

  // Emits the next huge (or the giant) line once ordinary bytes pass its share, so they spread through the file.
  const nextFill = (): { bytes: number; kind: 'text' | 'image' | 'attachment' } | undefined => {
    const progress = ordinaryBudget === 0 ? 1 : (sink.bytes - sink.filledBytes) / ordinaryBudget;
    if (!giantDone && progress >= 0.5) {
      giantDone = true;
      return { bytes: giant, kind: 'text' };
    }
    if (hugeDone < huge.length && progress >= (hugeDone + 1) / (huge.length + 1)) {
      const kind = (['text', 'text', 'image', 'attachment'] as const)[hugeDone % 4];
      return { bytes: huge[hugeDone++], kind };
    }
    return undefined;
  };

  try {
    while (sink.bytes < opts.sizeBytes || hugeDone < huge.length || !giantDone) {
      const prompt = userPrompt(ctx, parent, text.slice(0, randomInt(rand, 5, 300)));
      sink.record(prompt);
      parent = prompt.uuid as string;
      for (let a = randomInt(rand, 0, 2); a > 0; a--) {
        const rec = attachment(ctx, parent, 'skill_listing', text.slice(0, randomInt(rand, 500, 14000)));
        sink.record(rec);
        parent = rec.uuid as string;
      }
      if (rand() < 0.3) for (const rec of apiRequest(ctx, text.slice(0, randomInt(rand, 8000, 43000)))) sink.record(rec);

      const { messageId } = newIds(ctx);
      const intro = assistantBlock(ctx, parent, messageId, 0, { type: 'text', text: text.slice(0, 80) }, 'tool_use');
      sink.record(intro);
      parent = intro.uuid as string;
      const calls: { id: string; uuid: string; name: string }[] = [];
      for (let c = randomInt(rand, 1, 3); c > 0; c--) {
        const id = newIds(ctx).toolUseId;
        const name = rand() < 0.5 ? 'Bash' : 'Read';
        const input = name === 'Bash' ? { command: 'npm test', description: 'run tests' } : { file_path: `${ctx.cwd}/src/a.ts` };
        const rec = assistantBlock(ctx, parent, messageId, calls.length + 1, toolUseBlock(id, name, input), 'tool_use');
        sink.record(rec);
        toolUses++;
        calls.push({ id, uuid: rec.uuid as string, name });
        parent = rec.uuid as string;
      }
      for (const call of calls) {
        const fill = nextFill();
        toolResults++;
        if (!fill) {
          const rec = toolResult(ctx, call, text.slice(0, randomInt(rand, 50, 4000)));
          sink.record(rec);
          parent = rec.uuid as string;
        } else if (fill.kind === 'attachment') {
          sink.record(toolResult(ctx, call, 'ok'));
          sink.recordWithFill(attachment(ctx, call.uuid, 'file', MARKER), escapedText, fill.bytes);
        } else if (fill.kind === 'image') {
          const rec = toolResult(ctx, call, '');
          (rec.message as { content: unknown[] }).content = [
            { tool_use_id: call.id, type: 'tool_result', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: MARKER } }] },
          ];
          rec.toolUseResult = { type: 'image', file: { base64: MARKER, type: 'image/png', originalSize: fill.bytes } };
          sink.recordWithFill(rec, base64, fill.bytes);
        } else {
          sink.recordWithFill(toolResult(ctx, call, MARKER), escapedText, fill.bytes);
        }
      }
      const done = assistantBlock(ctx, parent, newIds(ctx).messageId, 0, { type: 'text', text: 'Done.' }, 'end_turn');
      sink.record(done);
      parent = done.uuid as string;
      if (rand() < 0.8) for (const rec of metadataTrailer(ctx, parent, 'go')) sink.record(rec);
    }
    sink.flush();
  } finally {
    fs.closeSync(fd);
  }
  return {
    path: opts.path,
    bytes: sink.bytes,
    lines: sink.lines,
    toolUses,
    toolResults,
    hugeLines: sink.hugeLines,
    hugeBytes: sink.hugeBytes,
    largestLine: sink.largestLine,
  };
}
