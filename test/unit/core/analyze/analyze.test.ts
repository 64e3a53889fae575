import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeTranscript, AnalyzeInputError, type TranscriptAnalysis } from '../../../../src/core/analyze';
import { renderTable } from '../../../../src/cli/analyze';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { FIELDS } from '../../../../src/core/scanner/fieldTable';
import { fixturesDir } from '../../helpers/fixtures';

const clock = { now: () => 1_800_000_000_000 };
const analyze = (file: string, extra: { channelPath?: string; sliceBytes?: number; chunkSize?: number; streamThreshold?: number } = {}) =>
  analyzeTranscript({ path: file, files: nodeFileAccess, clock, ...extra });

/** Independent reading of a transcript: JSON.parse of each newline-terminated line. */
function parsedLines(file: string): Array<Record<string, any> | undefined> {
  const text = fs.readFileSync(file, 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete.split('\n').slice(0, -1).map((l) => {
    try {
      const v = JSON.parse(l);
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
    } catch {
      return undefined;
    }
  });
}
/** What the field table's per-call lines keep of a parsed record: each value of its line's type (a string cut to its cap). */
function perCallOf(r: Record<string, any>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const line of FIELDS.perCall) {
    const v = (line.in === 'root' ? r : r.message)?.[line.key];
    if (line.as === 'string' && typeof v === 'string') out[line.key] = v.slice(0, line.cap);
    else if (typeof v === line.as) out[line.key] = v;
  }
  return out;
}
const blocksOf = (r: Record<string, any> | undefined): any[] => (Array.isArray(r?.message?.content) ? r!.message.content : []);

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-analyze-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, data: string | Buffer) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, data);
  return file;
};
const j = (o: unknown) => JSON.stringify(o);
const toolUse = (id: string, extra: Record<string, unknown> = {}) =>
  j({ type: 'assistant', uuid: `u-${id}`, message: { id: `m-${id}`, stop_reason: 'tool_use', content: [{ type: 'tool_use', id, name: 'Edit' }] }, apiBlockIndex: 0, ...extra });
const toolResult = (id: string) => j({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });
const trailer = () => ['last-prompt', 'mode', 'permission-mode', 'atis-latch'].map((type) => j({ type, sessionId: 's' }));

describe('analyze: real transcripts against probe.log', () => {
  const realDirs = fs
    .readdirSync(path.join(fixturesDir, 'real'))
    .map((d) => path.join(fixturesDir, 'real', d))
    .filter((d) => fs.existsSync(path.join(d, 'probe.log')));
  for (const dir of realDirs) {
    const transcript = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))!);
    it(`${path.basename(dir)}: call lines are probe.log's seen lines; result lines hold the matching tool_result`, async () => {
      const a = await analyze(transcript);
      const probe = fs.readFileSync(path.join(dir, 'probe.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const seen = probe.filter((e) => e.ev === 'seen');
      assert.equal(a.calls.length, seen.length);
      for (const ev of seen) {
        const call = a.calls.find((c) => c.tool_use_id === ev.id);
        assert.ok(call, ev.id);
        assert.equal(call.line, ev.line);
        assert.equal(call.tool_name, probe.find((e) => e.ev === 'PreToolUse' && e.id === ev.id).tool);
      }
      const lines = parsedLines(transcript);
      for (const call of a.calls) {
        const resultLine = lines.findIndex((r) => blocksOf(r).some((b) => b.type === 'tool_result' && b.tool_use_id === call.tool_use_id)) + 1;
        assert.ok(resultLine > 0);
        assert.equal(call.result_line, resultLine);
        const rec = lines[call.line - 1]!;
        assert.equal(call.message_id, rec.message.id);
        assert.equal(call.block_index, rec.apiBlockIndex);
        assert.equal(call.timestamp, rec.timestamp);
        // The field table's per-call lines, under `record`: the model that made the call, as its record says.
        assert.equal(call.record.requestedModel, rec.requestedModel);
        assert.equal(typeof rec.requestedModel, 'string');
        assert.deepEqual(call.record, perCallOf(rec));
      }
      assert.equal(a.lines, lines.length);
      assert.equal(a.malformed, 0);
      assert.equal(a.session_id, path.basename(transcript, '.jsonl'));
      assert.equal(a.first_prompt, lines.find((r) => r?.type === 'user' && typeof r.message.content === 'string')!.message.content);
      // Every trailer is a run of metadata lines, and batches tile the file.
      for (const t of a.trailers) assert.equal(t.types.length, t.last_line - t.first_line + 1);
      assert.equal(a.batches[0]!.first_line, 1);
      assert.equal(a.batches.at(-1)!.last_line, a.lines);
    });

    it(`${path.basename(dir)}: no call claims with_result where probe.log says the record landed first`, async () => {
      const a = await analyze(transcript);
      const probe = fs.readFileSync(path.join(dir, 'probe.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      for (const ev of probe.filter((e) => e.ev === 'seen' && e.with_result === false)) {
        const call = a.calls.find((c) => c.tool_use_id === ev.id)!;
        assert.notEqual(call.shape, 'with_result', ev.id);
        // No trailer lies between record and result in these files, so the file alone cannot tell.
        assert.equal(call.shape, 'unknown', ev.id);
      }
      assert.equal(a.counts.unknown_shape, a.calls.filter((c) => c.shape === 'unknown').length);
      assert.equal(a.counts.with_result + a.counts.before_result + a.counts.unknown_shape + a.counts.no_result, a.counts.calls);
    });
  }
});

describe('analyze: public samples', () => {
  const dir = path.join(fixturesDir, 'public');
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    it(`${file}: lines, malformed and the unfinished last line`, async () => {
      const data = fs.readFileSync(path.join(dir, file));
      const a = await analyze(path.join(dir, file));
      const lines = parsedLines(path.join(dir, file));
      assert.equal(a.lines, data.toString('latin1').split('\n').length - 1);
      assert.equal(a.malformed, lines.filter((r) => r === undefined).length);
      assert.equal(a.partial_tail_bytes, data.length - (data.lastIndexOf(0x0a) + 1));
      const ids = lines.flatMap((r) => blocksOf(r).filter((b) => b.type === 'tool_use').map((b) => b.id));
      assert.deepEqual(a.calls.map((c) => c.tool_use_id), [...new Set(ids)]);
    });
  }
});

describe('analyze: synthetic transcripts', () => {
  it('counts garbage, half-written lines and invalid JSON as malformed; a last line without newline is no line', async () => {
    const body = [
      toolUse('toolu_a'),
      'garbage here',
      toolUse('toolu_b').slice(0, 30), // half-written, then the writer went on
      '',
      '{"type":"user"}}',
      toolResult('toolu_a'),
    ].join('\n');
    const file = write('t.jsonl', `${body}\n${toolResult('toolu_b')}`);
    const a = await analyze(file);
    assert.equal(a.lines, 6);
    assert.equal(a.malformed, 4);
    assert.deepEqual(a.malformed_lines.map((m) => m.line), [2, 3, 4, 5]);
    assert.deepEqual(a.calls.map((c) => [c.tool_use_id, c.line, c.result_line]), [['toolu_a', 1, 6]]);
    assert.equal(a.partial_tail_bytes, Buffer.byteLength(toolResult('toolu_b')));
  });

  it('CRLF lines and invalid UTF-8 inside strings are records', async () => {
    const bad = Buffer.concat([Buffer.from('{"type":"user","message":{"content":"caf'), Buffer.from([0xe9, 0xff]), Buffer.from('"}}\r\n')]);
    const file = write('crlf.jsonl', Buffer.concat([Buffer.from(`${toolUse('toolu_c')}\r\n`), bad, Buffer.from(`${toolResult('toolu_c')}\r\n`)]));
    const a = await analyze(file);
    assert.equal(a.malformed, 0);
    assert.equal(a.first_prompt, 'caf\ufffd\ufffd');
    assert.deepEqual(a.calls.map((c) => [c.line, c.result_line]), [[1, 3]]);
  });

  it('first_prompt: the first user prompt, even after a last-prompt and before later ones; else the first last-prompt', async () => {
    const prompt = (content: unknown, extra: Record<string, unknown> = {}) => j({ type: 'user', message: { content }, ...extra });
    const lastPrompt = (text: string) => j({ type: 'last-prompt', lastPrompt: text });
    const lines = [
      lastPrompt('from before'),
      prompt('caveat', { isMeta: true }),
      toolResult('toolu_early'),
      prompt([{ type: 'text', text: 'fix "the" build\n' }]),
      lastPrompt('later'),
      prompt('second'),
      toolUse('toolu_p'),
      '',
    ];
    for (const streamThreshold of [undefined, 0]) {
      assert.equal((await analyze(write('prompts.jsonl', lines.join('\n')), { streamThreshold })).first_prompt, 'fix "the" build\n');
      const onlyLastPrompts = [lastPrompt('first of two'), toolUse('toolu_q'), lastPrompt('second of two'), ''].join('\n');
      assert.equal((await analyze(write('last.jsonl', onlyLastPrompts), { streamThreshold })).first_prompt, 'first of two');
    }
  });

  it('the first record of an id wins; results without a call are counted', async () => {
    const file = write('dup.jsonl', [toolResult('toolu_x'), toolUse('toolu_d'), toolUse('toolu_d'), toolResult('toolu_d'), toolResult('toolu_d'), ''].join('\n'));
    const a = await analyze(file);
    assert.deepEqual(a.calls.map((c) => [c.line, c.result_line]), [[2, 4]]);
    assert.equal(a.counts.duplicate_tool_uses, 1);
    assert.equal(a.counts.orphan_results, 1);
    assert.equal(a.counts.results, 3);
  });

  it('shapes from the file: a trailer between proves before_result, none proves nothing (unknown), a line with a call and its result counts for one side, by its owner (the record-line rule)', async () => {
    const lines = [
      ...trailer(),
      toolUse('toolu_A'), // written promptly: its batch closes with a trailer
      ...trailer(),
      j({ type: 'attachment' }),
      toolResult('toolu_A'),
      toolUse('toolu_B'), // with its result, or in a batch not closed by a trailer: the file cannot tell
      j({ type: 'attachment' }),
      toolResult('toolu_B'),
      ...trailer(),
      toolUse('toolu_C'),
      j({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_D', name: 'Edit' }, { type: 'tool_result', tool_use_id: 'toolu_D' }] } }),
    ];
    const a = await analyze(write('shapes.jsonl', lines.join('\n') + '\n'));
    const shape = (id: string) => a.calls.find((c) => c.tool_use_id === id)!.shape;
    assert.equal(shape('toolu_A'), 'before_result');
    assert.equal(shape('toolu_B'), 'unknown');
    assert.equal(shape('toolu_C'), null);
    // An assistant's line: the record of toolu_D, never its result, so no line proves with_result.
    assert.equal(shape('toolu_D'), null);
    assert.deepEqual(a.calls.map((c) => c.shape_evidence), ['trailer', undefined, undefined, undefined]);
    assert.deepEqual(a.trailers.map((t) => [t.first_line, t.last_line]), [[1, 4], [6, 9], [15, 18]]);
    assert.deepEqual(a.batches.map((b) => [b.first_line, b.last_line, b.closed_by_trailer]), [[1, 4, true], [5, 9, true], [10, 18, true], [19, 20, false]]);
    assert.deepEqual([a.counts.with_result, a.counts.before_result, a.counts.unknown_shape, a.counts.no_result], [0, 1, 1, 2]);
  });

  it('a line of several MB in a file read in small slices and chunks gives the same analysis', async () => {
    const huge = j({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_h', content: 'x\\n"'.repeat(500_000) }] }, toolUseResult: { stdout: 'y'.repeat(5 * 1024 * 1024) } });
    const file = write('huge.jsonl', [toolUse('toolu_h'), ...trailer(), huge, toolUse('toolu_i'), ''].join('\n'));
    const whole = await analyze(file);
    assert.deepEqual(whole.calls.map((c) => [c.line, c.result_line, c.shape]), [[1, 6, 'before_result'], [7, null, null]]);
    assert.equal(whole.malformed, 0);
    assert.deepEqual(await analyze(file, { sliceBytes: 300_001, chunkSize: 65_536 }), whole);
  });

  it('reading in slices never changes the result (property)', async () => {
    const line = fc.oneof(
      fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3').map((id) => toolUse(id)),
      fc.constantFrom('toolu_1', 'toolu_2', 'toolu_4').map((id) => toolResult(id)),
      fc.constant(trailer()[0]!),
      fc.constant(j({ type: 'mode' })),
      fc.string({ maxLength: 20 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 15 }), fc.boolean(), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 64 }), async (ls, crlf, slice, chunk) => {
        const file = write('p.jsonl', ls.join(crlf ? '\r\n' : '\n'));
        const expected = await analyze(file);
        assert.deepEqual(await analyze(file, { sliceBytes: slice, chunkSize: chunk, streamThreshold: 16 }), expected);
        // Read into analyze's wasm memory (the default) or, with a threshold too large for that, into the tail's own buffers.
        assert.deepEqual(await analyze(file, { streamThreshold: 2 ** 30 }), expected);
      }),
      { numRuns: 60 },
    );
  });

  it('a key repeated at the top level reads as its last value, as JSON.parse reads it: type and every other kept key, on every scan path', async () => {
    const pad = 'p'.repeat(70_000);
    const call = (id: string) => ({ id: `m-${id}`, stop_reason: 'tool_use', content: [{ type: 'tool_use', id, name: 'Edit' }] });
    // Members as written, repeated keys and all: JSON.parse keeps the last of each.
    const rec = (members: [string, unknown][]) => `{${members.map(([k, v]) => `${j(k)}:${j(v)}`).join(',')}}`;
    const records = [
      rec([['type', 'user'], ['sessionId', 's1'], ['message', { role: 'user', content: 'first prompt' }]]),
      rec([['type', 'user'], ['type', 'assistant'], ['sessionId', 's1'], ['message', call('toolu_a')]]),
      rec([['type', 'assistant'], ['message', call('toolu_b')], ['type', 'user']]),
      rec([['type', 'user'], ['message', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'ok' }] }], ['type', 'assistant']]),
      rec([['type', 'assistant'], ['type', 'custom-title'], ['customTitle', 'kept'], ['customTitle', 'last title']]),
      rec([['type', 'custom-title'], ['customTitle', 'not a title'], ['type', 'user'], ['message', { role: 'user', content: 'second prompt' }]]),
      rec([['type', 'user'], ['pad', pad], ['type', 'assistant'], ['message', call('toolu_c')]]),
      rec([['type', 'assistant'], ['message', call('toolu_d')], ['pad', pad], ['type', 'summary']]),
      rec([
        ['type', 'assistant'], ['sessionId', 'first'], ['sessionId', 's1'], ['timestamp', 'a'], ['timestamp', '2026-01-01T00:00:00Z'],
        ['isSidechain', true], ['isSidechain', false], ['apiBlockIndex', 1], ['apiBlockIndex', 2], ['agentId', 'x'], ['agentId', 'y'],
        ['requestSessionId', 'other'], ['requestSessionId', 's1'], ['version', '1.0.0'], ['version', '2.0.0'], ['cwd', '/a'], ['cwd', '/b'],
        ['requestedModel', 'first-model'], ['requestedModel', 'claude-opus-5-5'],
        ['message', call('toolu_gone')], ['message', call('toolu_e')],
      ]),
      rec([['type', 'last-prompt'], ['lastPrompt', 'a'], ['lastPrompt', 'last'], ['type', 'last-prompt']]),
      rec([['type', 'ai-title'], ['aiTitle', 'a'], ['type', 'user'], ['isMeta', false], ['isMeta', true], ['message', { role: 'user', content: 'meta' }]]),
    ];
    const withRepeats = write('repeats.jsonl', records.map((l) => `${l}\n`).join(''));
    const asParsed = write('parsed.jsonl', records.map((l) => `${j(JSON.parse(l))}\n`).join(''));
    const comparable = (a: TranscriptAnalysis) => ({ ...a, file: '', bytes: 0 });
    for (const extra of [{}, { chunkSize: 4096 }, { chunkSize: 7, streamThreshold: 64 }, { streamThreshold: 0 }]) {
      const expected = comparable(await analyze(asParsed, extra));
      assert.deepEqual(comparable(await analyze(withRepeats, extra)), expected, `options ${j(extra)}`);
    }
    const expected = await analyze(asParsed);
    assert.deepEqual(expected.record_types, { user: 4, assistant: 4, 'custom-title': 1, summary: 1, 'last-prompt': 1 });
    // toolu_b's and toolu_d's lines are a user's and a summary's by their last type: by the record-line rule no call's record.
    assert.deepEqual(expected.calls.map((c) => c.tool_use_id), ['toolu_a', 'toolu_c', 'toolu_e']);
    assert.deepEqual(expected.calls.map((c) => c.record), [{}, {}, { requestedModel: 'claude-opus-5-5' }]);
  });

  it("per-call fields (the field table's requestedModel) are each call's own record's, under record, on every scan path", async () => {
    const pad = 'p'.repeat(70_000);
    const lines = [
      toolUse('toolu_1', { requestedModel: 'claude-opus-5-5' }),
      toolUse('toolu_2', { requestedModel: 'claude-opus-5-5' }),
      toolUse('toolu_3', { requestedModel: 'claude-haiku-5', pad }),
      toolUse('toolu_4'),
      toolUse('toolu_5', { requestedModel: 42 }),
      toolUse('toolu_6', { requestedModel: 'm'.repeat(600) }),
      toolUse('toolu_7', { requestedModel: 'claude-opus-5-5' }),
      // Not a call: its model is nobody's.
      j({ type: 'assistant', requestedModel: 'text-only', message: { content: [{ type: 'text', text: 'hi' }] } }),
      toolUse('toolu_8', { requestedModel: 'claude-opus-5-5\u00e9\n' }),
    ];
    const file = write('models.jsonl', lines.map((l) => `${l}\n`).join(''));
    const expected = [{ requestedModel: 'claude-opus-5-5' }, { requestedModel: 'claude-opus-5-5' }, { requestedModel: 'claude-haiku-5' }, {}, {}, { requestedModel: 'm'.repeat(512) }, { requestedModel: 'claude-opus-5-5' }, { requestedModel: 'claude-opus-5-5\u00e9\n' }];
    for (const extra of [{}, { chunkSize: 4096 }, { chunkSize: 7, streamThreshold: 64 }, { streamThreshold: 0 }]) {
      const a = await analyze(file, extra);
      assert.deepEqual(a.calls.map((c) => c.record), expected, `options ${j(extra)}`);
    }
  });

  it('refuses a chunk size that is no positive integer, as the tail does', async () => {
    const file = write('c.jsonl', `${toolUse('toolu_1')}\n`);
    for (const chunkSize of [0, -1, 1.5]) await assert.rejects(analyze(file, { chunkSize }), RangeError);
  });

  it('refuses a missing transcript or channel file with AnalyzeInputError', async () => {
    await assert.rejects(analyze(path.join(tmp, 'none.jsonl')), AnalyzeInputError);
    await assert.rejects(analyze(tmp), /not a regular file/);
    const file = write('ok.jsonl', `${toolUse('toolu_1')}\n`);
    await assert.rejects(analyze(file, { channelPath: path.join(tmp, 'none.channel.jsonl') }), /channel file not found/);
  });
});

describe('analyze: --channel join', () => {
  const base = { v: 1, session_id: 's1', transcript_path: '/home/dev/.claude/projects/p/s1.jsonl', source: 'transcript-lag-hook' };
  const wait = (id: string, outcome: string, polls: number, at: number) => j({ ...base, event: 'wait', tool_use_id: id, at, outcome, polls, waited_ms: polls * 100, bytes_on_disk: 1000 });

  it('joins wait outcomes and hook times per call, counts seen / behind, skips invalid lines', async () => {
    const transcript = write('s1.jsonl', [toolUse('toolu_1'), toolResult('toolu_1'), toolUse('toolu_2'), ''].join('\n'));
    const channel = write(
      'channel.jsonl',
      [
        j({ ...base, event: 'pre', tool_use_id: 'toolu_1', at: 1000, tool_name: 'Edit', mode: 'probe' }),
        wait('toolu_1', 'seen', 3, 1300),
        j({ ...base, event: 'pre', tool_use_id: 'toolu_2', at: 2000 }),
        wait('toolu_2', 'behind', 50, 7000),
        wait('toolu_gone', 'behind', 50, 8000),
        j({ ...base, event: 'wait', tool_use_id: 'toolu_2', at: 1 }), // fails the schema: no outcome
        'not json',
        j({ ...base, v: 99, event: 'wait', tool_use_id: 'toolu_2', at: 1 }),
        '',
      ].join('\n'),
    );
    const a: TranscriptAnalysis = await analyze(transcript, { channelPath: channel });
    assert.deepEqual(a.waits, { seen: 1, behind: 2, error: 0, unmatched: 1 });
    assert.deepEqual(a.channel!.events, { pre: 2, post: 0, hooks: 0, hook_run: 0, wait: 3, landed: 0, record: 0, measured: 0 });
    assert.equal(a.channel!.lines, 8);
    assert.equal(Object.values(a.channel!.skipped).reduce((x, y) => x + y, 0), 3);
    const [c1, c2] = a.calls;
    assert.deepEqual(c1!.waits, [{ outcome: 'seen', polls: 3, waited_ms: 300, source: 'transcript-lag-hook' }]);
    assert.equal(c1!.hook_fired_at, 1000);
    assert.deepEqual(c2!.waits!.map((w) => w.outcome), ['behind']);
  });

  it("a call reported by the mod and a command hook fired when the mod says, whatever the order; record events are counted, not joined", async () => {
    const transcript = write('s1.jsonl', [toolUse('toolu_1'), toolUse('toolu_2'), ''].join('\n'));
    const mod = { ...base, source: 'transcript-lag-mod', transport: 'mod' };
    const channel = write(
      'channel.jsonl',
      [
        j({ ...base, event: 'pre', tool_use_id: 'toolu_1', at: 1000 }),
        j({ ...mod, event: 'pre', tool_use_id: 'toolu_1', at: 1040 }),
        j({ ...mod, event: 'pre', tool_use_id: 'toolu_2', at: 2000 }),
        j({ ...base, event: 'pre', tool_use_id: 'toolu_2', at: 1900 }),
        j({ ...mod, event: 'record', uuid: 'u-1', record_type: 'assistant', tool_use_ids: ['toolu_1'], at: 990 }),
        '',
      ].join('\n'),
    );
    const a = await analyze(transcript, { channelPath: channel });
    assert.deepEqual(a.calls.map((c) => c.hook_fired_at), [1040, 2000]);
    assert.deepEqual(a.channel!.events, { pre: 4, post: 0, hooks: 0, hook_run: 0, wait: 0, landed: 0, record: 1, measured: 0 });
  });

  it("a call's held bound is measured from its best fire (the mod's), as the engine and the status line measure it", async () => {
    const transcript = write('s1.jsonl', [toolUse('toolu_1'), ''].join('\n'));
    const mod = { ...base, source: 'transcript-lag-mod', transport: 'mod' };
    const channel = write(
      'channel.jsonl',
      [
        j({ ...mod, event: 'pre', tool_use_id: 'toolu_1', at: 1000 }),
        // A command hook fired 50 ms after the mod and found the record at its look.
        j({ ...base, event: 'pre', tool_use_id: 'toolu_1', at: 1050, checked_at: 1060, record_on_disk: true, result_on_disk: false }),
        '',
      ].join('\n'),
    );
    const a = await analyze(transcript, { channelPath: channel });
    assert.equal(a.calls[0]!.hook_fired_at, 1000);
    assert.deepEqual(a.calls[0]!.held_ms, { min_ms: 0, max_ms: 60 });
  });

  it("the mod's hooks figures join their call (its hooks event, or its post alone); a command hook's post has none", async () => {
    const transcript = write('s1.jsonl', [toolUse('toolu_1'), toolUse('toolu_2'), toolUse('toolu_3'), ''].join('\n'));
    const mod = { ...base, source: 'transcript-lag-mod', transport: 'mod' };
    const channel = write(
      'channel.jsonl',
      [
        j({ ...mod, event: 'pre', tool_use_id: 'toolu_1', at: 1000 }),
        j({ ...mod, event: 'hooks', tool_use_id: 'toolu_1', at: 3004, hooks_ms: 2004, hooks_decision: 'allow' }),
        j({ ...mod, event: 'post', tool_use_id: 'toolu_1', at: 3500, hooks_ms: 2004, hooks_decision: 'allow' }),
        j({ ...mod, event: 'pre', tool_use_id: 'toolu_2', at: 4000 }),
        j({ ...mod, event: 'post', tool_use_id: 'toolu_2', at: 4900, hooks_ms: 850, hooks_decision: 'deny' }),
        j({ ...base, event: 'pre', tool_use_id: 'toolu_3', at: 5000 }),
        j({ ...base, event: 'post', tool_use_id: 'toolu_3', at: 5300 }),
        '',
      ].join('\n'),
    );
    const a = await analyze(transcript, { channelPath: channel });
    assert.deepEqual(
      a.calls.map((c) => [c.tool_use_id, c.hooks_ms, c.hooks_decision]),
      [['toolu_1', 2004, 'allow'], ['toolu_2', 850, 'deny'], ['toolu_3', undefined, undefined]],
    );
    assert.equal(a.channel!.events.hooks, 1);
  });

  it("each wrapped hook's run (hook_run) joins its call, by start, and is counted; a run of no call in the file is counted only", async () => {
    const transcript = write('s1.jsonl', [toolUse('toolu_1'), toolUse('toolu_2'), ''].join('\n'));
    const wrapper = { ...base, source: 'transcript-lag-complete' };
    const run = (id: string, hook: string, at: number, ms: number, decision: string, exitCode: number) =>
      j({ ...wrapper, event: 'hook_run', tool_use_id: id, tool_name: 'Bash', at, hook, ms, decision, exit_code: exitCode, completed: true });
    const channel = write(
      'channel.jsonl',
      [
        j({ ...base, event: 'pre', tool_use_id: 'toolu_1', at: 1000 }),
        // Exits in this order; review.py started first (at 1010).
        run('toolu_1', 'lint.sh', 1300, 250, 'allow', 0),
        run('toolu_1', 'review.py', 3010, 2000, 'block', 2),
        run('toolu_gone', 'lint.sh', 9000, 10, 'allow', 0),
        j({ ...wrapper, event: 'hook_run', tool_use_id: 'toolu_2', at: 5, hook: 'x', ms: -1, exit_code: 0, completed: true }), // fails the schema
        '',
      ].join('\n'),
    );
    const a = await analyze(transcript, { channelPath: channel });
    assert.equal(a.channel!.events.hook_run, 3);
    assert.deepEqual(a.calls[0]!.hook_runs, [
      { hook: 'review.py', at: 3010, ms: 2000, decision: 'block', exit_code: 2, completed: true },
      { hook: 'lint.sh', at: 1300, ms: 250, decision: 'allow', exit_code: 0, completed: true },
    ]);
    assert.equal(a.calls[1]!.hook_runs, undefined);
    assert.match(renderTable(a), /\nhook runs {3}3 reported: review\.py 1 run, 2\.0s · lint\.sh 1 run, 250 ms\n/);
  });

  it("reads the mod's spool beside the channel file where it lies: unfolded events count, one also folded counts once, nothing is changed", async () => {
    const transcript = write('s1.jsonl', [toolUse('toolu_1'), toolUse('toolu_2'), ''].join('\n'));
    const channelDir = path.join(tmp, 'tl');
    const spoolDir = path.join(channelDir, 'spool');
    fs.mkdirSync(spoolDir, { recursive: true });
    const mod = { ...base, source: 'transcript-lag-mod', transport: 'mod' };
    const folded = { ...mod, event: 'pre', tool_use_id: 'toolu_1', at: 900 };
    const channel = path.join(channelDir, 's1.jsonl');
    fs.writeFileSync(channel, [j({ ...base, event: 'pre', tool_use_id: 'toolu_1', at: 1000 }), j(folded), j({ ...base, event: 'pre', tool_use_id: 'toolu_2', at: 2000 }), ''].join('\n'));
    // Folded by someone after it was listed: still in the spool as well as in the channel.
    fs.writeFileSync(path.join(spoolDir, 's1.0000000a.00000001.json'), j(folded));
    fs.writeFileSync(path.join(spoolDir, 's1.0000000a.00000002.json'), j({ ...mod, event: 'pre', tool_use_id: 'toolu_2', at: 1950 }));
    fs.writeFileSync(path.join(spoolDir, 's1.0000000a.00000003.json'), j({ ...mod, event: 'record', uuid: 'u-1', record_type: 'assistant', at: 1940 }));
    fs.writeFileSync(path.join(spoolDir, 'other.0000000a.00000001.json'), j({ ...mod, session_id: 'other', event: 'pre', tool_use_id: 'toolu_2', at: 5 }));
    const before = fs.readdirSync(spoolDir).sort();
    const a = await analyze(transcript, { channelPath: channel });
    assert.deepEqual(a.calls.map((c) => c.hook_fired_at), [900, 1950]);
    assert.deepEqual(a.channel!.events, { pre: 4, post: 0, hooks: 0, hook_run: 0, wait: 0, landed: 0, record: 1, measured: 0 });
    assert.equal(a.channel!.spooled, 2);
    assert.deepEqual(fs.readdirSync(spoolDir).sort(), before);
  });

  it('a session whose events are all still in the spool has no channel file: its spool is read alone; with neither, refused', async () => {
    const transcript = write('s1.jsonl', [toolUse('toolu_1'), ''].join('\n'));
    const channelDir = path.join(tmp, 'only-spool');
    fs.mkdirSync(path.join(channelDir, 'spool'), { recursive: true });
    const channel = path.join(channelDir, 's1.jsonl');
    await assert.rejects(analyze(transcript, { channelPath: channel }), /channel file not found/);
    fs.writeFileSync(path.join(channelDir, 'spool', 's1.0000000a.00000001.json'), j({ ...base, source: 'transcript-lag-mod', transport: 'mod', event: 'pre', tool_use_id: 'toolu_1', at: 700 }));
    const a = await analyze(transcript, { channelPath: channel });
    assert.equal(a.calls[0]!.hook_fired_at, 700);
    assert.deepEqual([a.channel!.lines, a.channel!.spooled], [0, 1]);
    assert.equal(fs.existsSync(channel), false);
  });

  it('a seen wait proves before_result for its call and for every call whose record and result enclose it', async () => {
    // Lines: 1 X, 2 Y, 3 Z, 4 result Y, 5 result X, 6 result Z, 7 W, 8 result W.
    const transcript = write(
      's1.jsonl',
      [toolUse('toolu_X'), toolUse('toolu_Y'), toolUse('toolu_Z'), toolResult('toolu_Y'), toolResult('toolu_X'), toolResult('toolu_Z'), toolUse('toolu_W'), toolResult('toolu_W'), ''].join('\n'),
    );
    const shapes = async (events: string[]) => {
      const a = await analyze(transcript, { channelPath: write('channel.jsonl', [...events, ''].join('\n')) });
      return { shapes: a.calls.map((c) => `${c.tool_use_id.slice(6)}:${c.shape}`), unknown: a.counts.unknown_shape, before: a.counts.before_result };
    };
    // Y seen: lines 1-2 were on disk, lines 4- were not: X (1..5) and Y (2..4) proven; Z's record (3) may have come later.
    assert.deepEqual(await shapes([wait('toolu_Y', 'seen', 1, 1000)]), { shapes: ['X:before_result', 'Y:before_result', 'Z:unknown', 'W:unknown'], unknown: 2, before: 2 });
    // A wait that ended behind proves nothing.
    assert.deepEqual(await shapes([wait('toolu_Y', 'behind', 50, 1000), wait('toolu_W', 'error', 0, 2000)]), { shapes: ['X:unknown', 'Y:unknown', 'Z:unknown', 'W:unknown'], unknown: 4, before: 0 });
    // W seen: lines 1-7 on disk, 8- not: only W itself has its result at 8 or later.
    assert.deepEqual(await shapes([wait('toolu_W', 'seen', 1, 1000)]), { shapes: ['X:unknown', 'Y:unknown', 'Z:unknown', 'W:before_result'], unknown: 3, before: 1 });
  });
});
