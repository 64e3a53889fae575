import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeTranscript, forEachScan, LocalRangeScanner, type AnalyzeOptions, type RangeScan, type RangeScanner } from '../../src/core/analyze';
import { nodeFileAccess } from '../../src/platform/nodeFileAccess';
import { fixturesDir } from './fixtures';

const clock = { now: () => 1_800_000_000_000 };
const analyze = (file: string, extra: Partial<AnalyzeOptions> = {}) => analyzeTranscript({ path: file, files: nodeFileAccess, clock, ...extra });

/** Another thread's scanner, run here: the real LocalRangeScanner, counting what it was given. */
class CountingRangeScanner implements RangeScanner {
  /** The ranges asked for, [from, to). */
  readonly ranges: Array<[number, number]> = [];
  /** What each read found, [start, end). */
  readonly reads: Array<[number, number]> = [];
  private readonly inner = new LocalRangeScanner(nodeFileAccess);
  constructor(private readonly failOnCall = -1) {}
  async scanRange(file: string, from: number, to: number, limit: number): Promise<RangeScan> {
    this.ranges.push([from, to]);
    if (this.ranges.length - 1 === this.failOnCall) throw new Error('worker died');
    const scan = await this.inner.scanRange(file, from, to, limit);
    this.reads.push([scan.start, scan.end]);
    return scan;
  }
  recycle(range: RangeScan): void {
    this.inner.recycle(range);
  }
}

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-analyze-par-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, data: string) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, data);
  return file;
};
const j = (o: unknown) => JSON.stringify(o);
const toolUse = (id: string) => j({ type: 'assistant', uuid: `u-${id}`, message: { id: `m-${id}`, stop_reason: 'tool_use', content: [{ type: 'tool_use', id, name: 'Edit' }] } });
const toolResult = (id: string, pad = 0) => j({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'x'.repeat(pad) }] } });
const trailerLine = j({ type: 'last-prompt', sessionId: 's', lastPrompt: 'go' });

describe('LocalRangeScanner: ranges cut anywhere', () => {
  it('reads each line in the range where it starts, so any cut points tile the file (property)', async () => {
    const line = fc.oneof(fc.constantFrom(toolUse('toolu_1'), toolResult('toolu_1', 40), trailerLine), fc.string({ maxLength: 12 }).map((t) => t.replace(/\n/g, '')));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 25 }), fc.string({ maxLength: 10 }), fc.array(fc.nat(), { maxLength: 6 }), async (ls, tail, cuts) => {
        const text = ls.map((l) => `${l}\n`).join('') + tail.replace(/\n/g, '');
        const file = write('r.jsonl', text);
        const size = Buffer.byteLength(text);
        const points = [...new Set(cuts.map((c) => (size === 0 ? 0 : c % size)))].sort((x, y) => x - y).filter((c) => c > 0);
        const bounds = [0, ...points, size];
        const scanner = new LocalRangeScanner(nodeFileAccess);
        const whole = await scanner.scanRange(file, 0, size, size);
        const all: unknown[] = [];
        forEachScan(whole, (scan) => all.push(scan));
        const pieces: unknown[] = [];
        let expected = 0;
        for (let i = 0; i + 1 < bounds.length; i++) {
          const range = await scanner.scanRange(file, bounds[i]!, bounds[i + 1]!, size);
          assert.equal(range.start, expected, `range ${i} starts where the last ended`);
          forEachScan(range, (scan) => pieces.push(scan));
          expected = range.end + range.partialBytes;
        }
        assert.equal(expected, size);
        assert.deepEqual(pieces, all);
        assert.equal(all.length, ls.length);
      }),
      { numRuns: 150 },
    );
  });
});

describe('analyze: segments shared with another thread', () => {
  it('gives what one thread gives, for any transcript and segment size (property)', async () => {
    const line = fc.oneof(
      fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3').map(toolUse),
      fc.tuple(fc.constantFrom('toolu_1', 'toolu_2', 'toolu_4'), fc.nat({ max: 3000 })).map(([id, pad]) => toolResult(id, pad)),
      fc.constant(trailerLine),
      fc.constant(j({ type: 'mode' })),
      // Every field the summary reads, so a field a segment failed to carry over would show.
      fc.constantFrom(
        j({ type: 'assistant', isSidechain: true, agentId: 'a1', sessionId: 's2', timestamp: '2026-11-30T10:00:00.000Z', apiBlockIndex: 2, message: { id: 'm9', stop_reason: null, content: [{ type: 'tool_use', id: 'toolu_5', name: 'Task' }] } }),
        j({ type: 'ai-title', aiTitle: 'Fix the tail' }),
        j({ type: 'custom-title', customTitle: 'Mine' }),
        j({ type: 'user', message: { content: 'héllo, a typed prompt' } }),
        j({ type: 'user', message: { content: [{ type: 'text', text: 'block prompt \ud800' }] } }),
      ),
      fc.string({ maxLength: 20 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.string({ maxLength: 30 }), fc.integer({ min: 1, max: 4000 }), async (ls, crlf, tail, segmentBytes) => {
        const file = write('p.jsonl', ls.join(crlf ? '\r\n' : '\n') + (ls.length > 0 ? '\n' : '') + tail.replace(/\n/g, ''));
        const expected = await analyze(file);
        const other = new CountingRangeScanner();
        const shared = await analyze(file, { rangeScanner: other, parallelMinBytes: 0, segmentBytes, streamThreshold: 64 });
        assert.deepEqual(shared, expected);
        // With lines shorter than a segment, a file of over two segments has a second one: the other thread's.
        const longest = Math.max(0, ...fs.readFileSync(file, 'latin1').split('\n').map((l) => l.length + 1));
        if (expected.bytes > segmentBytes * 2 && longest < segmentBytes) assert.ok(other.ranges.length > 0, 'the other thread took no segment');
      }),
      { numRuns: 80 },
    );
  });

  it('the other thread’s reads start and end at line starts', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? toolUse(`toolu_${i}`) : toolResult(`toolu_${i - 1}`, i * 7)));
    const file = write('t.jsonl', lines.join('\n') + '\n');
    const bytes = fs.readFileSync(file);
    const other = new CountingRangeScanner();
    const a = await analyze(file, { rangeScanner: other, parallelMinBytes: 0, segmentBytes: 1000 });
    assert.equal(a.lines, 200);
    assert.ok(other.reads.filter(([start, end]) => end > start).length >= 2);
    for (const [start, end] of other.reads) {
      assert.ok(start === 0 || bytes[start - 1] === 0x0a, `read ${start} starts mid-line`);
      // A segment wholly inside a long line has no line of its own: an empty read.
      assert.ok(end === start || bytes[end - 1] === 0x0a, `read ending ${end} ends mid-line`);
    }
  });

  it('reads in one thread when the other thread fails, with the same result', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? toolUse(`toolu_${i}`) : toolResult(`toolu_${i - 1}`, 300)));
    const file = write('f.jsonl', lines.join('\n') + '\n');
    const expected = await analyze(file);
    for (const failOnCall of [0, 1, 3]) {
      const other = new CountingRangeScanner(failOnCall);
      assert.deepEqual(await analyze(file, { rangeScanner: other, parallelMinBytes: 0, segmentBytes: 500 }), expected);
      assert.ok(other.ranges.length > failOnCall, 'the failing call was made');
    }
  });

  it('by default, cuts a transcript of short lines into segments of about 16K lines, so few scans are held', async () => {
    const line = j({ type: 'mode' }); // 15 bytes
    const file = write('short.jsonl', `${line}\n`.repeat(200_000));
    const other = new CountingRangeScanner();
    const a = await analyze(file, { rangeScanner: other, parallelMinBytes: 0 });
    assert.equal(a.lines, 200_000);
    assert.ok(other.ranges.length >= 1);
    // 16K lines of 16 bytes is under the 1 MiB floor: segments of about 1 MiB, not one of 3 MB.
    for (const [from, to] of other.ranges) assert.ok(to - from <= 1024 * 1024, `${to - from} bytes`);
  });

  it('leaves a transcript below parallelMinBytes to this thread', async () => {
    const file = write('s.jsonl', `${toolUse('toolu_1')}\n${toolResult('toolu_1')}\n`);
    const other = new CountingRangeScanner();
    await analyze(file, { rangeScanner: other, parallelMinBytes: 1_000_000, segmentBytes: 10 });
    assert.equal(other.ranges.length, 0);
  });

  it('real transcripts give the same analysis in small segments', async () => {
    const transcripts = fs.readdirSync(path.join(fixturesDir, 'real')).flatMap((dir) => {
      const folder = path.join(fixturesDir, 'real', dir);
      return fs.readdirSync(folder).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(folder, f));
    });
    for (const transcript of transcripts) {
      const name = path.relative(fixturesDir, transcript);
      const expected = await analyze(transcript);
      const other = new CountingRangeScanner();
      assert.deepEqual(await analyze(transcript, { rangeScanner: other, parallelMinBytes: 0, segmentBytes: 4096 }), expected, name);
      assert.ok(other.ranges.length > 0, name);
    }
  });
});
