import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import type { IndexedLine, ReplayCall } from '../../../../src/core/replay/calls';
import { readChannelEvidence } from '../../../../src/core/replay/channelEvidence';
import { placeOf } from '../../../../src/core/replay/landingModel';
import { batchStart, liveTimelineOf, mainCutForSubagentCall, type CallEvidence } from '../../../../src/core/replay/liveCut';
import { indexTranscript, type TranscriptIndex } from '../../../../src/core/replay/transcriptIndex';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { fixturesDir } from '../../helpers/fixtures';
import { materialize, recordingsDir } from '../../helpers/recordings';
import * as plain from './plainIndex';

// replay's index keeps what its calls need as the lines go by (src/core/replay/transcriptIndex.ts);
// the plain index before it kept every line (./plainIndex.ts). Over real and generated transcripts,
// both give the same calls (record, message, result, context), the same answers to the live cut's
// questions, and so the same timelines.

const clock = { now: () => 0 };

/** What replay reads of a call, from either index. */
function callOf(c: ReplayCall) {
  const line = (l: IndexedLine) => ({ start: l.start, end: l.end, line: l.line, type: l.type, uuid: l.uuid, messageId: l.messageId, timestampMs: l.timestampMs, toolUses: [...l.toolUses], hasText: l.hasText });
  return {
    toolUseId: c.toolUseId,
    toolName: c.toolName,
    agentId: c.agentId,
    record: line(c.record),
    message: c.message.map(line),
    result: c.result === undefined ? undefined : { start: c.result.start, end: c.result.end, line: c.result.line },
    context: c.context,
    opening: c.opening,
    batchStart: batchStart(c),
    place: placeOf(c),
  };
}

/** A plain call as the live cut reads a call: its lines, the plain answers to its questions. */
function asReplayCall(c: plain.PlainCall, births: ReadonlyMap<string, number>): ReplayCall {
  const start = plain.batchStart(c);
  const line = (l: plain.IndexedLine): IndexedLine => ({ start: l.start, end: l.end, line: l.line, type: l.type, uuid: l.uuid, messageId: l.messageId, timestampMs: l.timestampMs, toolUses: l.toolUses, hasText: l.textBlocks > 0, batchStart: start });
  const file = { path: c.file.path, end: c.file.end, firstBornAfter: (at: number) => plain.firstBornAfter(c.file, births, at)?.start } as unknown as TranscriptIndex;
  const record = line(c.record);
  const message = c.message.map((l) => (l === c.record ? record : line(l)));
  return { toolUseId: c.toolUseId, toolName: c.toolName, ...(c.agentId !== undefined ? { agentId: c.agentId } : {}), file, record, message, ...(c.result !== undefined ? { result: c.result } : {}), context: c.context, opening: c.opening };
}

interface Questions {
  births: ReadonlyMap<string, number>;
  /** Fire times asked of firstBornAfter. */
  firedAt: number[];
  /** Times asked of the file for a subagent's call (firstCreatedAfter). */
  createdAfter: number[];
  /** Evidence the timelines are made with, besides none and each fire time alone. */
  evidence?: ReadonlyMap<string, CallEvidence>;
  agentId?: string;
}

async function sameAsPlain(file: string, q: Questions): Promise<number> {
  const before = await plain.indexTranscript(file, nodeFileAccess, clock);
  const plainCalls = plain.callsOf(before, q.agentId);
  const size = fs.statSync(file).size;
  // 0: every message's records let go as they come (each call's read again); 1: nearly so; the default.
  for (const pendingRecords of [undefined, 0, 1]) {
    const index = await indexTranscript(file, nodeFileAccess, clock, { agentId: q.agentId, births: q.births, createdAfter: q.createdAfter, pendingRecords });
    const what = `${path.basename(file)}, pending records ${pendingRecords ?? 'default'}`;
    assert.deepEqual([index.end, index.oversizeLines, index.malformedLines], [before.end, before.oversizeLines, before.malformedLines], what);
    assert.equal(index.firstCwd, before.lines.find((l) => l.cwd !== undefined)?.cwd, what);
    assert.deepEqual(index.calls.map(callOf), plainCalls.map((c) => callOf(asReplayCall(c, q.births))), what);
    for (const at of q.firedAt) assert.equal(index.firstBornAfter(at), plain.firstBornAfter(before, q.births, at)?.start, `${what}: born after ${at}`);
    for (const at of q.createdAfter) assert.equal(mainCutForSubagentCall(index, { record: { timestampMs: at } } as ReplayCall), plain.mainCutForSubagentCall(before, at), `${what}: created after ${at}`);
    index.calls.forEach((call, i) => {
      const other = asReplayCall(plainCalls[i]!, q.births);
      const given = q.evidence?.get(call.toolUseId);
      const evidences: Array<CallEvidence | undefined> = [undefined, ...(given ? [given] : []), ...q.firedAt.map((firedAt) => ({ firedAt }))];
      for (const evidence of evidences) assert.deepEqual(liveTimelineOf(call, evidence, q.births, size), liveTimelineOf(other, evidence, q.births, size), `${what}: ${call.toolUseId}, ${JSON.stringify(evidence)}`);
    });
  }
  return plainCalls.length;
}

/** Each line's uuid and timestamp, read here by plain JSON. */
function linesOf(file: string): Array<{ uuid?: string; ms?: number }> {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((text) => {
      try {
        const v = JSON.parse(text) as { uuid?: unknown; timestamp?: unknown };
        const ms = typeof v.timestamp === 'string' ? Date.parse(v.timestamp) : NaN;
        return { uuid: typeof v.uuid === 'string' ? v.uuid : undefined, ms: Number.isFinite(ms) ? ms : undefined };
      } catch {
        return {};
      }
    });
}

/** Each line's time, a millisecond either side, and the times around them. */
function timesAround(ms: Array<number | undefined>): number[] {
  const known = ms.filter((t): t is number => t !== undefined);
  const all = known.flatMap((t) => [t - 1, t, t + 1]);
  if (known.length > 0) all.push(Math.min(...known) - 1000, Math.max(...known) + 1000);
  return [...new Set(all)];
}

describe('replay: the index keeps what the calls need, and says what the plain index said (differential)', function () {
  this.timeout(120_000);

  const real = fs
    .readdirSync(path.join(fixturesDir, 'real'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => path.join(fixturesDir, 'real', f));

  it('on every transcript of the real fixtures, with births on every other line', async () => {
    let calls = 0;
    for (const file of real) {
      const lines = linesOf(file);
      const births = new Map(lines.flatMap((l, i) => (l.uuid !== undefined && l.ms !== undefined && i % 2 === 0 ? [[l.uuid, l.ms + 5] as const] : [])));
      const times = timesAround(lines.map((l) => l.ms));
      calls += await sameAsPlain(file, { births, firedAt: times, createdAfter: times });
    }
    assert.ok(calls >= 4, `the fixtures' calls were compared (${calls})`);
  });

  it("on the field recordings, with their channels' evidence", async () => {
    const recordings = fs.readdirSync(recordingsDir).filter((f) => f.endsWith('.jsonl'));
    assert.ok(recordings.length > 0);
    for (const file of recordings) {
      const rec = await materialize(path.join(recordingsDir, file));
      const evidence = await readChannelEvidence(rec.channel, rec.meta.session_id, nodeFileAccess, clock);
      assert.ok(evidence.calls.size > 0, `${file}: the channel's evidence`);
      // The recordings' sessions ran without the mod's record events: births as the mod would report them, each record's own time.
      const lines = linesOf(rec.transcript);
      const births = evidence.births.size > 0 ? evidence.births : new Map(lines.flatMap((l) => (l.uuid !== undefined && l.ms !== undefined ? [[l.uuid, l.ms] as const] : [])));
      const fired = [...evidence.calls.values()].flatMap((c) => (c.firedAt === undefined ? [] : [c.firedAt - 1, c.firedAt, c.firedAt + 1]));
      const calls = await sameAsPlain(rec.transcript, { births, firedAt: [...fired, ...births.values()], createdAfter: timesAround(lines.map((l) => l.ms)), evidence: evidence.calls });
      assert.equal(calls, rec.meta.calls.length, file);
    }
  });

  it('on the lines generation seldom makes: a text after an empty one in a line streamed past 16 KiB; a message let go and called later', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-index-'));
    const file = path.join(dir, 't.jsonl');
    const pad = 'x'.repeat(40_000);
    const rec = (v: object) => JSON.stringify({ sessionId: 's', entrypoint: 'sdk-cli', version: '2.1.332', ...v });
    fs.writeFileSync(
      file,
      [
        // Not the session's first message (that one's place is its own).
        rec({ type: 'assistant', uuid: 'o', message: { id: 'm0', content: [{ type: 'text', text: 'hello' }] } }),
        rec({ type: 'assistant', uuid: 'a', message: { id: 'm1', content: [{ type: 'text', text: '' }, { type: 'text', text: 'why' }] }, toolUseResult: pad }),
        ...Array.from({ length: 5 }, (_, i) => rec({ type: 'assistant', uuid: `b${i}`, message: { id: `other${i}`, content: [{ type: 'text', text: 'x' }] } })),
        rec({ type: 'tools-used', tools: ['Bash'] }),
        rec({ type: 'assistant', uuid: 'c', message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] } }),
        rec({ type: 'user', uuid: 'd', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] } }),
        '',
      ].join('\n'),
    );
    await sameAsPlain(file, { births: new Map([['c', 5]]), firedAt: [4, 5], createdAfter: [] });
    const [call] = (await indexTranscript(file, nodeFileAccess, clock, { pendingRecords: 2 })).calls;
    // The message's first record, a streamed line: its text counts, and it was read again once its message made a call.
    assert.deepEqual([placeOf(call!), call!.message.map((l) => l.uuid)], ['first-after-text', ['a', 'c']]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('on generated transcripts: interleaved and repeated messages, copies, results before and after, tools-used runs, long and broken lines (property)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-index-'));
    const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
    const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 3 });
    const times = [Date.UTC(2026, 11, 7, 10), Date.UTC(2026, 11, 7, 10, 0, 1), Date.UTC(2026, 11, 7, 10, 0, 2), Date.UTC(2026, 11, 7, 10, 0, 3)];
    const timestamp = maybe(fc.oneof(pick(times.map((t) => new Date(t).toISOString())), fc.constant('not a time')));
    const context = fc.record({
      sessionId: maybe(pick(['s1', 's2'])),
      requestSessionId: maybe(pick(['s1', 's2', 's3'])),
      entrypoint: maybe(pick(['cli', 'sdk-cli'])),
      version: maybe(pick(['2.1.280', '2.1.332'])),
      cwd: maybe(pick(['/w', '/x'])),
      permissionMode: maybe(pick(['default', 'acceptEdits'])),
      promptId: maybe(pick(['p1', 'p2'])),
      timestamp,
      // A long string pushes the line past the scanner's 16 KiB: the tokenizer reads it, in bounded memory.
      padding: maybe(fc.constantFrom('x'.repeat(20_000), 'é'.repeat(12_000))),
    });
    const toolId = pick(['t1', 't2', 't3', 't4', '']);
    const block = fc.oneof(
      fc.record({ type: fc.constant('text'), text: pick(['', 'why']) }),
      fc.record({ type: fc.constant('thinking'), thinking: fc.constant('hm') }),
      fc.record({ type: fc.constant('tool_use'), id: toolId, name: pick(['Bash', 'Read']), input: fc.constant({}) }),
      fc.record({ type: fc.constant('tool_result'), tool_use_id: toolId, content: fc.constant('ok') }),
    );
    const record = fc.record({
      type: pick(['assistant', 'assistant', 'user', 'tools-used', 'attachment']),
      messageId: maybe(pick(['m1', 'm2', 'm3'])),
      content: fc.array(block, { maxLength: 4 }),
      context,
    });
    const broken = pick(['not json', '[1,2]', '"text"', '', '{"type":"assistant",', '{}']);
    const line = fc.oneof({ weight: 9, arbitrary: record }, { weight: 1, arbitrary: broken });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 40 }), fc.boolean(), fc.array(fc.nat(3), { maxLength: 6 }), async (lines, subagent, bornAt) => {
        const file = path.join(dir, `t${n++}.jsonl`);
        const text = lines.map((l, i) => {
          if (typeof l === 'string') return l;
          const { padding, ...ctx } = l.context;
          const message = l.messageId === undefined && l.content.length === 0 ? undefined : { ...(l.messageId !== undefined ? { id: l.messageId } : {}), content: l.content };
          return JSON.stringify({ type: l.type, uuid: `u${i}`, ...ctx, ...(message !== undefined ? { message } : {}), ...(padding !== undefined ? { toolUseResult: padding } : {}) });
        });
        fs.writeFileSync(file, `${text.join('\n')}\n`);
        // Births of some lines, at the times asked about and between them.
        const births = new Map(bornAt.map((k, j) => [`u${(j * 7) % Math.max(1, lines.length)}`, times[k]! + 500] as const));
        const asked = [...times.flatMap((t) => [t - 1, t, t + 1, t + 500]), 0];
        await sameAsPlain(file, { births, firedAt: asked, createdAfter: asked, ...(subagent ? { agentId: 'a1' } : {}) });
        fs.rmSync(file);
      }),
      { numRuns: 300 },
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
