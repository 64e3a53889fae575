import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { createChannelScanner, parseChannelLine, type ChannelLine } from '../../../../src/core/channel/reader';
import { FileTail } from '../../../../src/core/tail';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ManualClock } from '../../helpers/manualClock';

const pre = {
  v: 1,
  event: 'pre',
  at: 1_796_000_000_000,
  session_id: 's-1',
  transcript_path: '/home/u/.claude/projects/-w/s-1.jsonl',
  tool_use_id: 'toolu_1',
  tool_name: 'Bash',
  mode: 'probe',
  source: 'transcript-lag-hook',
};
const wait = { v: 1, event: 'wait', at: 1_796_000_000_500, session_id: 's-1', transcript_path: pre.transcript_path, tool_use_id: 'toolu_1', outcome: 'behind', polls: 50, waited_ms: 5003, bytes_on_disk: 1234 };

function scanAll(text: string | Buffer, cuts: number[] = [], maxLineBytes?: number): { lines: ChannelLine[]; counts: Record<string, number> } {
  const scanner = createChannelScanner({ maxLineBytes });
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const lines: ChannelLine[] = [];
  const cutSet = new Set(cuts.map((c) => c % (bytes.length + 1)));
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a || cutSet.has(i)) {
      if (i > start) scanner.push(bytes.subarray(start, i));
      if (i < bytes.length && bytes[i] === 0x0a) {
        lines.push(scanner.finish());
        start = i + 1;
      } else start = i;
    }
  }
  return { lines, counts: { ...scanner.counts } };
}

describe('channel reader', () => {
  it('reads valid pre and wait events, whatever chunks the bytes come in (property)', () => {
    const text = JSON.stringify(pre) + '\n' + JSON.stringify(wait) + '\r\n';
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 20 }), (cuts) => {
        const { lines } = scanAll(text, cuts);
        assert.deepEqual(
          lines.map((l) => (l.kind === 'event' ? l.event.event : l.kind)),
          ['pre', 'wait'],
        );
        const w = lines[1];
        assert.ok(w.kind === 'event' && w.event.event === 'wait' && w.event.outcome === 'behind' && w.event.polls === 50);
      }),
      { numRuns: 100 },
    );
  });

  it('counts and skips unknown versions, unknown events, garbage, non-objects, invalid events and blank lines', () => {
    const lines = [
      JSON.stringify({ ...pre, v: 2, brand_new: true }),
      JSON.stringify({ ...pre, event: 'teleport' }),
      '\u0000\u00ff garbage {',
      '[1,2]',
      '"a string"',
      JSON.stringify({ ...pre, tool_use_id: '' }),
      JSON.stringify({ ...wait, outcome: 'maybe' }),
      JSON.stringify({ event: 'pre' }),
      '',
      JSON.stringify(pre),
    ];
    const { lines: out, counts } = scanAll(lines.join('\n') + '\n');
    assert.deepEqual(
      out.map((l) => l.kind),
      ['unknown-version', 'unknown-event', 'malformed', 'malformed', 'malformed', 'invalid', 'invalid', 'invalid', 'blank', 'event'],
    );
    assert.deepEqual(counts, { event: 1, blank: 1, oversize: 0, malformed: 3, 'unknown-version': 1, 'unknown-event': 1, invalid: 3 });
    const unknownVersion = out[0];
    assert.ok(unknownVersion.kind === 'unknown-version' && unknownVersion.v === 2);
  });

  it('accepts fields other hooks add beyond the schema', () => {
    const line = parseChannelLine(JSON.stringify({ ...wait, source: 'my-reviewer', reviewer_extra: { a: 1 } }));
    assert.ok(line.kind === 'event' && line.event.source === 'my-reviewer');
  });

  it('rejects a line over the size cap, pushed in chunks, then reads the next line normally', () => {
    const huge = JSON.stringify({ ...pre, tool_name: 'x'.repeat(5000) });
    const { lines, counts } = scanAll(huge + '\n' + JSON.stringify(pre) + '\n', [100, 1000, 2000, 4000], 1024);
    assert.equal(lines[0].kind, 'oversize');
    assert.equal(lines[0].kind === 'oversize' && lines[0].bytes, huge.length);
    assert.equal(lines[1].kind, 'event');
    assert.equal(counts.oversize, 1);
  });

  it('a line exactly at the cap is read', () => {
    const line = JSON.stringify(pre);
    assert.equal(scanAll(line + '\n', [], Buffer.byteLength(line)).lines[0].kind, 'event');
  });

  it('recovers the event appended after a partial line a killed hook left', () => {
    const partial = JSON.stringify(pre).slice(0, 37);
    const { lines } = scanAll(partial + JSON.stringify(wait) + '\n');
    assert.equal(lines.length, 1);
    const l = lines[0];
    assert.ok(l.kind === 'event' && l.recovered === true && l.event.event === 'wait');
  });

  it("reads the mod's lines: pre and post with transport mod, and record events (no tool_use_id of their own)", () => {
    const modPre = { ...pre, mode: undefined, source: 'transcript-lag-mod', transport: 'mod', prompt_id: 'p-1' };
    const modPost = { v: 1, event: 'post', at: pre.at + 40, session_id: 's-1', transcript_path: pre.transcript_path, tool_use_id: 'toolu_1', tool_name: 'Bash', transport: 'mod', source: 'transcript-lag-mod' };
    const record = { v: 1, event: 'record', at: pre.at - 5, session_id: 's-1', transcript_path: pre.transcript_path, uuid: 'u-1', record_type: 'assistant', tool_use_ids: ['toolu_1'], source: 'transcript-lag-mod' };
    const { lines } = scanAll([modPre, modPost, record, { ...record, tool_use_ids: undefined, record_type: 'attachment' }].map((l) => JSON.stringify(l)).join('\n') + '\n');
    assert.deepEqual(lines.map((l) => l.kind), ['event', 'event', 'event', 'event']);
    const [p, q, r] = lines;
    assert.ok(p.kind === 'event' && p.event.event === 'pre' && p.event.transport === 'mod');
    assert.ok(q.kind === 'event' && q.event.event === 'post' && q.event.transport === 'mod');
    assert.ok(r.kind === 'event' && r.event.event === 'record' && r.event.uuid === 'u-1' && r.event.record_type === 'assistant');
    assert.deepEqual(r.kind === 'event' && r.event.event === 'record' && r.event.tool_use_ids, ['toolu_1']);
  });

  it('refuses a record event without a uuid or of an unknown row type, and a transport nobody writes', () => {
    const record = { v: 1, event: 'record', at: 1, session_id: 's-1', transcript_path: pre.transcript_path, uuid: 'u-1', record_type: 'user' };
    assert.equal(parseChannelLine(JSON.stringify({ ...record, uuid: undefined })).kind, 'invalid');
    assert.equal(parseChannelLine(JSON.stringify({ ...record, record_type: 'summary' })).kind, 'invalid');
    assert.equal(parseChannelLine(JSON.stringify({ ...pre, transport: 'pigeon' })).kind, 'invalid');
  });

  it('reset drops a partial line', () => {
    const scanner = createChannelScanner();
    scanner.push(Buffer.from('{"v":1,"event":"pre"'));
    scanner.reset();
    scanner.push(Buffer.from(JSON.stringify(pre)));
    assert.equal(scanner.finish().kind, 'event');
  });

  it('through FileTail: a partial last line from a killed hook is held, never reported, until its newline', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-channel-'));
    const file = path.join(dir, 's-1.jsonl');
    const full = JSON.stringify(pre);
    fs.writeFileSync(file, JSON.stringify(wait) + '\n' + full.slice(0, 40));
    const tail = new FileTail({ path: file, files: nodeFileAccess, clock: new ManualClock(), scanner: createChannelScanner(), chunkSize: 16 });
    try {
      const first = await tail.read();
      assert.deepEqual(first.lines.map((l) => l.scan.kind), ['event']);
      assert.equal(tail.partialBytes, 40);
      fs.appendFileSync(file, full.slice(40) + '\n');
      const second = await tail.read();
      assert.deepEqual(second.lines.map((l) => l.scan.kind === 'event' && l.scan.event.event), ['pre']);
    } finally {
      await tail.close();
    }
  });
});
