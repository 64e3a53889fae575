import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRecordScanner, scanLine } from '../../../../src/core/scanner';
import { ID_CAP, TEXT_CAP } from '../../../../src/core/scanner/fields';
import { HEAD_BYTES } from '../../../../src/rules/recordLine';
import type { ScanResult, ScannedRecord } from '../../../../src/core/records';
import { fixturesDir } from '../../helpers/fixtures';

const STREAM = { streamThreshold: 0 };
/** Every line through JSON.parse, however long. */
const PARSE = { streamThreshold: Number.MAX_SAFE_INTEGER };

/** Pushes a line in pieces of `size` bytes, as the tail does for a line that arrives over several reads. */
function scanInChunks(line: Buffer, size: number, threshold?: number): ScanResult {
  const scanner = createRecordScanner({ streamThreshold: threshold });
  for (let i = 0; i < line.length; i += size) scanner.push(line.subarray(i, i + size));
  return scanner.finish();
}

function record(r: ScanResult): ScannedRecord {
  assert.equal(r.kind, 'record', JSON.stringify(r));
  return r as ScannedRecord;
}

/** Lines of a file, newline-terminated ones only. */
function fileLines(file: string): Buffer[] {
  const data = fs.readFileSync(file);
  const lines: Buffer[] = [];
  let start = 0;
  for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, start)) {
    lines.push(data.subarray(start, nl));
    start = nl + 1;
  }
  return lines;
}

const realDirs = fs.readdirSync(path.join(fixturesDir, 'real')).map((d) => path.join(fixturesDir, 'real', d));
/** Every transcript of every real folder (a fork's folder holds its parent's too). */
const realTranscripts = realDirs.flatMap((dir) =>
  fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => ({ dir, transcript: path.join(dir, f) })),
);
const probeOf = (dir: string) =>
  fs.readFileSync(path.join(dir, 'probe.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('record scanner: real transcripts', () => {
  for (const { dir, transcript } of realTranscripts) {
    const name = `${path.basename(dir)}/${path.basename(transcript).slice(0, 8)}`;
    const lines = fileLines(transcript);

    it(`${name}: every line is a record, identical on both paths and for any chunking`, () => {
      for (const [i, line] of lines.entries()) {
        const whole = scanLine(line, PARSE);
        record(whole);
        assert.deepEqual(scanLine(line, STREAM), whole, `line ${i + 1}`);
        assert.deepEqual(scanInChunks(line, 7, 0), whole, `line ${i + 1}, 7-byte chunks`);
        assert.deepEqual(scanInChunks(line, 1000, 100), whole, `line ${i + 1}, switches path mid-line`);
      }
    });

    const probed = fs.existsSync(path.join(dir, 'probe.log'));
    if (probed) it(`${name}: the line probe.log saw each call on holds its tool_use, and no earlier line does`, () => {
      const seen = probeOf(dir).filter((e) => e.ev === 'seen');
      assert.ok(seen.length > 0);
      for (const ev of seen) {
        const at = record(scanLine(lines[(ev.line as number) - 1]!, STREAM));
        assert.ok(at.toolUses.some((t) => t.id === ev.id), `${ev.id} at line ${ev.line}`);
        assert.equal(at.type, 'assistant');
        for (const earlier of lines.slice(0, (ev.line as number) - 1)) {
          assert.ok(!record(scanLine(earlier)).toolUses.some((t) => t.id === ev.id));
        }
      }
    });

    it(`${name}: fields match the records as JSON.parse reads them`, () => {
      const sessionId = path.basename(transcript, '.jsonl');
      for (const line of lines) {
        const parsed = JSON.parse(line.toString('utf8'));
        const r = record(scanLine(line, STREAM));
        assert.equal(r.type, parsed.type);
        assert.equal(r.cwd, parsed.cwd);
        assert.equal(r.gitBranch, parsed.gitBranch);
        if (parsed.sessionId !== undefined) assert.equal(r.sessionId, sessionId);
        const content = Array.isArray(parsed.message?.content) ? parsed.message.content : [];
        const uses = content.filter((b: { type: string }) => b.type === 'tool_use').map((b: { id: string; name: string }) => ({ id: b.id, name: b.name }));
        assert.deepEqual(r.toolUses, uses);
        const results = content.filter((b: { type: string }) => b.type === 'tool_result').map((b: { tool_use_id: string }) => b.tool_use_id);
        assert.deepEqual(r.toolResults, results);
        // Every record's uuid is kept (the mod's record events name rows by it), and with it its timestamp.
        assert.equal(r.uuid, parsed.uuid);
        // A call's context is kept on the records with tool uses, and only there.
        const calls = uses.length > 0;
        assert.equal(r.timestamp, calls || typeof parsed.uuid === 'string' ? parsed.timestamp : undefined);
        assert.equal(r.messageId, calls ? parsed.message?.id : undefined);
        assert.equal(r.apiBlockIndex, calls ? parsed.apiBlockIndex : undefined);
        assert.equal(r.requestSessionId, calls ? parsed.requestSessionId : undefined);
        assert.equal(r.version, calls ? parsed.version : undefined);
        if (parsed.type === 'assistant') assert.equal(r.stopReason, calls ? parsed.message.stop_reason : undefined);
        if (parsed.type === 'last-prompt') assert.equal(r.prompt, parsed.lastPrompt);
      }
    });
  }
});

describe('record scanner: public samples (older formats, spaces after colons)', () => {
  const dir = path.join(fixturesDir, 'public');
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    it(`${file}: records exactly where JSON.parse finds an object; both paths agree`, () => {
      for (const [i, line] of fileLines(path.join(dir, file)).entries()) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line.toString('utf8'));
        } catch {
          parsed = undefined;
        }
        const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
        const r = scanLine(line, PARSE);
        assert.equal(r.kind, isObject ? 'record' : 'malformed', `line ${i + 1}`);
        assert.deepEqual(scanLine(line, STREAM), r, `line ${i + 1}`);
        if (isObject) {
          const p = parsed as { type?: unknown; message?: { content?: unknown } };
          assert.equal(record(r).type, typeof p.type === 'string' ? p.type : undefined);
          const content = p.message?.content;
          const uses = Array.isArray(content) ? content.filter((b) => b?.type === 'tool_use').map((b) => b.id) : [];
          assert.deepEqual(record(r).toolUses.map((t) => t.id), uses);
        }
      }
    });
  }

  it('reads tool calls, results, prompts and the summary type from the representative sample', () => {
    // This file ends without a newline; here every line counts, the last one included.
    const text = fs.readFileSync(path.join(dir, 'claude-code-log-representative_messages.jsonl'), 'utf8');
    const lines = text.split('\n').map((l) => record(scanLine(l)));
    const uses = lines.flatMap((r) => r.toolUses.map((t) => t.name));
    const results = lines.flatMap((r) => r.toolResults);
    assert.ok(uses.length >= 2);
    assert.deepEqual(results, lines.flatMap((r) => r.toolUses.map((t) => t.id)));
    assert.ok(lines[0]!.prompt && lines[0]!.prompt.length > 0);
    assert.ok(lines.some((r) => r.type === 'summary' && r.isMetadata));
  });
});

describe('record scanner: named cases', () => {
  const rec = (o: unknown) => JSON.stringify(o);
  const assistant = rec({
    type: 'assistant',
    uuid: 'u1',
    sessionId: 's1',
    apiBlockIndex: 2,
    isSidechain: true,
    agentId: 'a7',
    requestSessionId: 's0',
    message: { id: 'msg_1', stop_reason: null, content: [{ type: 'tool_use', id: 'toolu_1', name: 'Edit', input: { x: 1 } }] },
  });

  for (const [label, opts] of [['JSON.parse path', PARSE], ['streaming path', STREAM]] as const) {
    describe(label, () => {
      it('extracts the listed fields', () => {
        const r = record(scanLine(assistant, opts));
        assert.deepEqual(r.toolUses, [{ id: 'toolu_1', name: 'Edit' }]);
        assert.equal(r.messageId, 'msg_1');
        assert.equal(r.stopReason, null);
        assert.equal(r.apiBlockIndex, 2);
        assert.equal(r.isSidechain, true);
        assert.equal(r.agentId, 'a7');
        assert.equal(r.requestSessionId, 's0');
        assert.equal(r.isMetadata, false);
      });

      it('accepts a trailing \\r (CRLF files)', () => {
        assert.deepEqual(scanLine(assistant + '\r', opts), scanLine(assistant, opts));
      });

      it('counts garbage, half-written, empty and non-object lines as malformed', () => {
        assert.deepEqual(scanLine(assistant.slice(0, 40), opts), { kind: 'malformed', reason: 'truncated' });
        assert.deepEqual(scanLine('', opts), { kind: 'malformed', reason: 'empty' });
        assert.deepEqual(scanLine(' \r', opts), { kind: 'malformed', reason: 'empty' });
        assert.deepEqual(scanLine('[1,2]', opts), { kind: 'malformed', reason: 'not an object' });
        assert.deepEqual(scanLine('42', opts), { kind: 'malformed', reason: 'not an object' });
        assert.deepEqual(scanLine(assistant + '}', opts), { kind: 'malformed', reason: 'not JSON' });
        assert.deepEqual(scanLine('{"type":"user",}', opts), { kind: 'malformed', reason: 'not JSON' });
        assert.deepEqual(scanLine('{"type":"us\ter"}', opts), { kind: 'malformed', reason: 'not JSON' });
        assert.deepEqual(scanLine('\u{feff}{"type":"user"}', opts), { kind: 'malformed', reason: 'not JSON' });
      });

      it('takes titles and prompts, and skips meta user records and tool results as prompts', () => {
        assert.equal(record(scanLine(rec({ type: 'ai-title', aiTitle: 'Fix the tail' }), opts)).title, 'Fix the tail');
        assert.equal(record(scanLine(rec({ type: 'custom-title', customTitle: 'Mine' }), opts)).title, 'Mine');
        assert.equal(record(scanLine(rec({ type: 'user', message: { content: 'go' } }), opts)).prompt, 'go');
        assert.equal(record(scanLine(rec({ type: 'user', isMeta: true, message: { content: 'x' } }), opts)).prompt, undefined);
        const result = rec({ type: 'user', message: { content: [{ type: 'text', text: 't' }, { type: 'tool_result', tool_use_id: 'toolu_1' }] } });
        assert.equal(record(scanLine(result, opts)).prompt, undefined);
        assert.equal(record(scanLine('x'.repeat(0) + rec({ type: 'user', message: { content: 'p'.repeat(500) } }), opts)).prompt, 'p'.repeat(TEXT_CAP));
      });

      it('a repeated key: the last one wins, as in JSON.parse', () => {
        const r = record(scanLine('{"type":"user","type":"assistant","message":{"id":"m1"},"message":5,"cwd":"a","cwd":1}', opts));
        assert.equal(r.type, 'assistant');
        assert.equal(r.messageId, undefined);
        assert.equal(r.cwd, undefined);
      });

      it('decodes escapes in keys and values', () => {
        const r = record(scanLine('{"ty\\u0070e":"a\\"b\\\\c\\u00e9\\ud83d\\ude00","message":{"content":[{"type":"tool_use","id":"t\\/1","name":"N"}]}}', opts));
        assert.equal(r.type, 'a"b\\cé😀');
        // Its owner (the type) is no assistant: by the record-line rule its tool_use names no call.
        assert.deepEqual(r.toolUses, []);
        const own = record(scanLine('{"ty\\u0070e":"\\u0061ssistant","message":{"content":[{"type":"tool_use","id":"t\\/1","name":"N"}]}}', opts));
        assert.deepEqual(own.toolUses, [{ id: 't/1', name: 'N' }]);
      });

      it('invalid UTF-8 inside a string decodes to U+FFFD and is not malformed; outside a string it is', () => {
        const bad = Buffer.concat([Buffer.from('{"type":"user","cwd":"a'), Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]), Buffer.from('z"}')]);
        assert.equal(record(scanLine(bad, opts)).cwd, 'a\ufffd\ufffd(\ufffdz');
        const outside = Buffer.concat([Buffer.from('{"type":"user"'), Buffer.from([0xc3, 0xa9]), Buffer.from('}')]);
        assert.deepEqual(scanLine(outside, opts), { kind: 'malformed', reason: 'not JSON' });
      });

      it('caps captured strings', () => {
        const r = record(scanLine(rec({ sessionId: 's'.repeat(ID_CAP * 3), type: 'user' }), opts));
        assert.equal(r.sessionId, 's'.repeat(ID_CAP));
      });
    });
  }

  it('a line of several MB goes through the streaming path, in tail-sized chunks, and keeps only the fields', () => {
    const huge = 'x'.repeat(6 * 1024 * 1024);
    const line = Buffer.from(
      rec({
        type: 'user',
        sessionId: 's-big',
        // The message first, as Claude Code writes it: a line past HEAD_BYTES is the result its head names.
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_big', content: huge }] },
        toolUseResult: { stdout: huge, nested: [[{ deep: huge.slice(0, 1000) }]] },
        timestamp: '2026-01-01T00:00:00.000Z',
      }),
    );
    const expected = scanLine(line, { streamThreshold: line.length + 1 });
    const r = record(scanInChunks(line, 1024 * 1024));
    assert.deepEqual(r, expected);
    assert.deepEqual(r.toolResults, ['toolu_big']);
    assert.equal(r.sessionId, 's-big');
    // Cut within its first HEAD_BYTES, the same line is half-written: malformed, never a record.
    assert.deepEqual(scanInChunks(line.subarray(0, HEAD_BYTES - 3), 64 * 1024), { kind: 'malformed', reason: 'truncated' });
    // Cut past them, it is the result its head names, as every reader of the record-line rule judges it (src/rules/recordLine.ts).
    const cut = record(scanInChunks(line.subarray(0, line.length - 3), 1024 * 1024));
    assert.deepEqual([cut.toolResults, cut.sessionId], [['toolu_big'], 's-big']);
  });

  it('reset() drops a partial line on both paths', () => {
    for (const threshold of [0, undefined]) {
      const scanner = createRecordScanner({ streamThreshold: threshold });
      scanner.push(Buffer.from('{"type":"half'));
      scanner.reset();
      scanner.push(Buffer.from(assistant));
      assert.deepEqual(scanner.finish(), scanLine(assistant));
    }
  });
});
