/**
 * Writes a long session for `replay`'s memory benchmark (bench/replayMemory.ts): mostly ordinary
 * turns (a prompt, attachments, an assistant message of a thinking and a text record, the metadata
 * trailer: lines of a few KB, none a call), with `calls` tool calls spread evenly through it (a
 * `tools-used` line before a message's first record when a tool is first used, an intro text, 1–3
 * tool_use records, their results), every LONG_EVERY-th result a long line (1–8 MiB at 1 GiB). Unlike the cold
 * index's transcript (./generateTranscript.ts), whose bytes are mostly in huge lines, this one's are in
 * lines, which is what replay's index kept something of, call or not. Streams to disk.
 */
import * as fs from 'node:fs';
import { randomInt, randomUuid, seededRandom } from './random';
import { base64Filler, fillerText, MARKER, Sink } from './generateTranscript';
import { assistantBlock, attachment, metadataTrailer, newIds, toolResult, toolUseBlock, userPrompt, type SessionContext } from './transcriptRecords';

/** One call's result in this many is a long line. */
const LONG_EVERY = 25;
const TOOLS = ['Bash', 'Read', 'Edit', 'Grep'] as const;

export interface ReplaySessionOptions {
  path: string;
  sizeBytes: number;
  /** Tool calls in the session (default 300 a GiB, at least 20). */
  calls?: number;
  /** The ordinary records' texts scaled by this (default 1: lines of a few KB; 0.02: a few hundred bytes, many more lines). */
  textScale?: number;
  seed?: number;
}

export interface GeneratedReplaySession {
  path: string;
  sessionId: string;
  bytes: number;
  lines: number;
  calls: number;
  longLines: number;
  largestLine: number;
}

export function generateReplaySession(opts: ReplaySessionOptions): GeneratedReplaySession {
  const rand = seededRandom(opts.seed ?? 20261207);
  const ctx: SessionContext = { sessionId: randomUuid(rand), cwd: '/home/dev/bench-project', rand, clockMs: Date.UTC(2026, 11, 7, 8) };
  const scale = opts.textScale ?? 1;
  const wantCalls = opts.calls ?? Math.max(20, Math.round((300 * opts.sizeBytes) / 2 ** 30));
  // 1–8 MiB at 1 GiB: a twentieth of the bytes or so, scaled with the file.
  const longBytes = () => randomInt(rand, Math.ceil(opts.sizeBytes / 1024), Math.ceil(opts.sizeBytes / 128));
  const text = fillerText(rand, 64 * 1024);
  const escapedText = Buffer.from(JSON.stringify(fillerText(rand, 256 * 1024)).slice(1, -1));
  const base64 = Buffer.from(base64Filler(rand, 256 * 1024));
  const fd = fs.openSync(opts.path, 'w');
  const sink = new Sink(fd);
  const used = new Set<string>();
  let parent: string | null = null;
  let calls = 0;
  const slice = (min: number, max: number) => {
    const from = randomInt(rand, 0, text.length - max);
    return text.slice(from, from + Math.ceil(randomInt(rand, min, max) * scale));
  };
  const record = (rec: Record<string, unknown>) => {
    sink.record(rec);
    parent = (rec.uuid as string | undefined) ?? parent;
  };
  try {
    while (sink.bytes < opts.sizeBytes) {
      record(userPrompt(ctx, parent, slice(100, 2000)));
      for (let a = randomInt(rand, 0, 2); a > 0; a--) record(attachment(ctx, parent!, 'file', slice(1000, 6000)));
      // The calls fall evenly over the bytes: the next one once its share of the file is written.
      const callTurn = calls < wantCalls && sink.bytes >= (calls * opts.sizeBytes) / wantCalls;
      const messageId = newIds(ctx).messageId;
      if (callTurn) {
        const turn = Array.from({ length: Math.min(randomInt(rand, 1, 3), wantCalls - calls) }, () => ({ id: newIds(ctx).toolUseId, uuid: '', name: TOOLS[randomInt(rand, 0, TOOLS.length - 1)]! }));
        const fresh = turn.map((c) => c.name).filter((n) => !used.has(n));
        if (fresh.length > 0) {
          for (const n of fresh) used.add(n);
          sink.record({ type: 'tools-used', tools: [...used], sessionId: ctx.sessionId });
        }
        record(assistantBlock(ctx, parent!, messageId, 0, { type: 'thinking', thinking: slice(500, 3000), signature: randomUuid(rand) }, 'tool_use'));
        record(assistantBlock(ctx, parent!, messageId, 1, { type: 'text', text: slice(100, 800) }, 'tool_use'));
        for (const [i, c] of turn.entries()) {
          const input = c.name === 'Bash' ? { command: 'npm test', description: 'run tests' } : { file_path: `${ctx.cwd}/src/file${i}.ts` };
          const rec = assistantBlock(ctx, parent!, messageId, i + 2, toolUseBlock(c.id, c.name, input), 'tool_use');
          record(rec);
          c.uuid = rec.uuid as string;
        }
        for (const c of turn) {
          calls++;
          if (calls % LONG_EVERY === 0) {
            const result = toolResult(ctx, c, MARKER);
            sink.recordWithFill(result, calls % (2 * LONG_EVERY) === 0 ? base64 : escapedText, longBytes());
            parent = result.uuid as string;
          } else {
            record(toolResult(ctx, c, slice(500, 4000)));
          }
        }
        record(assistantBlock(ctx, parent!, newIds(ctx).messageId, 0, { type: 'text', text: slice(100, 1500) }, 'end_turn'));
      } else {
        record(assistantBlock(ctx, parent!, messageId, 0, { type: 'thinking', thinking: slice(500, 3000), signature: randomUuid(rand) }, null));
        record(assistantBlock(ctx, parent!, messageId, 1, { type: 'text', text: slice(300, 3000) }, 'end_turn'));
      }
      if (rand() < 0.8) for (const rec of metadataTrailer(ctx, parent!, 'go')) sink.record(rec);
    }
    sink.flush();
  } finally {
    fs.closeSync(fd);
  }
  return { path: opts.path, sessionId: ctx.sessionId, bytes: sink.bytes, lines: sink.lines, calls, longLines: sink.hugeLines, largestLine: sink.largestLine };
}

/** `count` lines of `{}`: no record replay keeps anything of, each a line its index once held. */
export function generateEmptyObjects(path: string, count: number): { path: string; bytes: number; lines: number } {
  const fd = fs.openSync(path, 'w');
  const piece = Buffer.from('{}\n'.repeat(64 * 1024));
  let lines = 0;
  try {
    for (; lines + 64 * 1024 <= count; lines += 64 * 1024) fs.writeSync(fd, piece);
    if (lines < count) fs.writeSync(fd, piece.subarray(0, 3 * (count - lines)));
  } finally {
    fs.closeSync(fd);
  }
  return { path, bytes: 3 * count, lines: count };
}
