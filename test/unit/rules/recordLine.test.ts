import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { callsOfLine, HEAD_BYTES, LineHeadScanner, lineFactsOf, lineKindOf } from '../../../src/rules/recordLine';
import { checkOnDisk } from '../../../src/rules/onDiskCheck';
import { ToolUseFinder } from '../../../src/hook/toolUseFinder';
import { createRecordScanner, scanLine } from '../../../src/core/scanner';
import { createCaptureScanner } from '../../../src/core/analyze/capture/captureScanner';
import { factsOf, FactsScanner } from '../../../src/core/replay/transcriptIndex';
import type { ScanResult } from '../../../src/core/records';

const bytes = (s: string) => Buffer.from(s, 'utf8');

/** A call's id by the rule: a string, not empty, at most 512 code units. */
const callId = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= 512;

/** What JSON.parse says a whole line is: the rule's own words, on a parsed object. */
function oracle(line: string): { records: string[]; results: string[] } {
  const out = { records: [] as string[], results: [] as string[] };
  let rec: any;
  try {
    rec = JSON.parse(line);
  } catch {
    return out;
  }
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return out;
  const role = rec.message && typeof rec.message === 'object' && !Array.isArray(rec.message) && typeof rec.message.role === 'string' ? rec.message.role : undefined;
  const owner = typeof rec.type === 'string' ? rec.type : role;
  const content = rec.message && typeof rec.message === 'object' ? rec.message.content : undefined;
  if (!Array.isArray(content)) return out;
  for (const b of content) {
    if (!b || typeof b !== 'object' || Array.isArray(b)) continue;
    if (owner === 'assistant' && b.type === 'tool_use' && callId(b.id)) out.records.push(b.id);
    if (owner === 'user' && b.type === 'tool_result' && callId(b.tool_use_id)) out.results.push(b.tool_use_id);
  }
  return out;
}

/** The calls a scan result names (none for a line that is no JSON object). */
function callsOfScan(r: ScanResult): { records: string[]; results: string[] } {
  if (r.kind !== 'record') return { records: [], results: [] };
  return { records: r.toolUses.map((u) => u.id), results: [...r.toolResults] };
}

const captureScanner = createCaptureScanner({}, true);
const factsScanner = new FactsScanner();

/** Every reader of the engine's side, each with its answer for `b`, a whole line (no newline). */
function readers(b: Buffer): Array<[string, { records: string[]; results: string[] }]> {
  const inPieces = (size: number, threshold?: number) => {
    const s = createRecordScanner({ streamThreshold: threshold });
    for (let i = 0; i < b.length; i += size) s.push(b.subarray(i, i + size));
    return callsOfScan(s.finish());
  };
  const replay = (): { records: string[]; results: string[] } => {
    const scan = factsScanner.finishLine(b, 0, b.length);
    if ((scan as { kind?: string }).kind !== undefined) return { records: [], results: [] };
    const facts = factsOf(scan as Parameters<typeof factsOf>[0]);
    return { records: facts.toolUses.map((u) => u.id), results: [...facts.toolResults] };
  };
  return [
    ['the engine, JSON.parse path', callsOfScan(scanLine(b))],
    ['the engine, streaming path', callsOfScan(scanLine(b, { streamThreshold: 0 }))],
    ['the engine, in 4 KiB pieces, switching path mid-line', inPieces(4096, 1000)],
    ["analyze's capture (wasm)", callsOfScan(captureScanner.finishLine(b, 0, b.length))],
    ["replay's index", replay()],
  ];
}

/** An object with its keys in the order given by `order` (a permutation seed). */
function ordered(entries: Array<[string, unknown]>, order: number[]): Record<string, unknown> {
  const idx = entries.map((_, i) => i).sort((a, b) => (order[a] ?? 0) - (order[b] ?? 0) || a - b);
  return Object.fromEntries(idx.map((i) => entries[i]));
}

const id = fc.constantFrom('toolu_a', 'toolu_b', 'toolu_01XyZ', 'toolu_"q"', 'toolu_\\x', 'toolu_é', '', 'toolu_\u0001', 'i'.repeat(512), 'i'.repeat(513), 'é'.repeat(600));
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('"id":"toolu_a"', '{"type":"tool_use","id":"toolu_a"}', '"tool_use_id":"toolu_b"', 'ünï “q” \\ \n', '"role":"assistant"'),
);
const order = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 6, maxLength: 6 });
const block = fc.oneof(
  fc.record({ t: text, o: order }).map(({ t, o }) => ordered([['type', 'text'], ['text', t]], o)),
  fc.record({ i: id, n: fc.constantFrom('Bash', 'Read'), input: fc.dictionary(fc.constantFrom('command', 'file_path', 'id', 'type'), text), o: order }).map(({ i, n, input, o }) =>
    ordered([['type', 'tool_use'], ['id', i], ['name', n], ['input', input]], o),
  ),
  fc.record({ i: id, c: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })), o: order }).map(({ i, c, o }) =>
    ordered([['type', 'tool_result'], ['tool_use_id', i], ['content', c]], o),
  ),
  fc.constantFrom('a string block', 7, null, ['tool_use'], { type: 'tool_use', id: 5 }),
);
const line = fc
  .record({
    type: fc.constantFrom('assistant', 'user', 'system', undefined, 3, 'a'.repeat(600)),
    role: fc.constantFrom('assistant', 'user', undefined),
    content: fc.oneof({ weight: 5, arbitrary: fc.array(block, { maxLength: 4 }) }, { weight: 1, arbitrary: text }),
    extra: fc.dictionary(
      fc.constantFrom('uuid', 'parentUuid', 'cwd', 'toolUseResult', 'version'),
      fc.oneof(text, fc.integer(), fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.array(fc.oneof(fc.integer(), fc.boolean()), { maxLength: 3 })),
    ),
    o: order,
    mo: order,
    messageKind: fc.constantFrom('object', 'object', 'object', 'string', 'array', 'absent'),
  })
  .map(({ type, role, content, extra, o, mo, messageKind }) => {
    const message =
      messageKind === 'object'
        ? ordered([['id', 'msg_1'], ['role', role], ['model', 'm'], ['content', content]].filter(([, v]) => v !== undefined) as Array<[string, unknown]>, mo)
        : messageKind === 'string'
          ? 'a message'
          : messageKind === 'array'
            ? [content]
            : undefined;
    const entries: Array<[string, unknown]> = [['parentUuid', 'p'], ['message', message], ['type', type], ...Object.entries(extra)];
    return JSON.stringify(ordered(entries.filter(([, v]) => v !== undefined), o));
  });

describe('recordLine (src/rules/recordLine.ts): one reading of a transcript line', () => {
  it('a whole line: what JSON.parse says, whatever the keys\' order, for every generated line', () => {
    fc.assert(
      fc.property(line, (l) => {
        assert.deepEqual(callsOfLine(bytes(l)), oracle(l));
        for (const i of ['toolu_a', 'toolu_b']) {
          const o = oracle(l);
          assert.equal(lineKindOf(bytes(l), i), o.records.includes(i) ? 'record' : o.results.includes(i) ? 'result' : 'other');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('fed in any pieces (a hook reading new bytes at each poll): the same facts as in one piece', () => {
    fc.assert(
      fc.property(line, fc.array(fc.nat(), { maxLength: 6 }), (l, cuts) => {
        const b = bytes(l);
        const at = [...new Set(cuts.map((c) => c % (b.length + 1)))].sort((x, y) => x - y);
        const s = new LineHeadScanner();
        let from = 0;
        for (const c of [...at, b.length]) {
          s.feed(b, from, c);
          from = c;
        }
        assert.deepEqual(s.end(true), lineFactsOf(b, true));
      }),
      { numRuns: 2000 },
    );
  });

  it("a line's head (the rest not read) never says more than the whole line: what it names is the whole line's", () => {
    fc.assert(
      fc.property(line, fc.nat(), (l, n) => {
        const b = bytes(l);
        const head = b.subarray(0, n % (b.length + 1));
        const whole = oracle(l);
        // Claude Code writes `type` after `message`: a head may show only the role. Where the two disagree the
        // head may not know whose line it is; the rule takes the type where seen, so compare only agreeing lines.
        const rec = JSON.parse(l);
        const role = rec.message && typeof rec.message === 'object' && !Array.isArray(rec.message) ? rec.message.role : undefined;
        if (typeof rec.type === 'string' && role !== undefined && role !== rec.type) return;
        const part = callsOfLine(head, false);
        for (const r of part.records) assert.ok(whole.records.includes(r), `${r} in ${l.slice(0, 200)}`);
        for (const r of part.results) assert.ok(whole.results.includes(r), `${r} in ${l.slice(0, 200)}`);
      }),
      { numRuns: 2000 },
    );
  });

  // What JSON.parse refuses and a scan following JSON's structure loosely would take: each spliced into a valid line.
  const junk = fc.constantFrom('tru', 'nul', 'fals', 'truex', '01', '1.', '-', '.5', '1e', '+1', '0x1', '[1,]', '[,1]', '{"a":1,}', '"\u0001"', '"\t"', '"\\x"', '"\\u12g4"', 'é', '\u0000', ',,', ':');

  it('a line JSON.parse refuses is no call\'s record nor result: bad literals and numbers, [1,], raw control bytes and bad escapes in strings', () => {
    fc.assert(
      fc.property(line, junk, fc.nat(), (l, j, n) => {
        // Spliced where a value starts (after a colon), or anywhere.
        const colons = [...l.matchAll(/":/g)].map((m) => m.index! + 2);
        const at = n % 2 === 0 && colons.length > 0 ? colons[n % colons.length]! : n % (l.length + 1);
        const bad = n % 2 === 0 && colons.length > 0 ? l.slice(0, at) + j + l.slice(at).replace(/^("([^"\\]|\\.)*"|[^,}\]]*)/, '') : l.slice(0, at) + j + l.slice(at);
        assert.deepEqual(callsOfLine(bytes(bad)), oracle(bad), bad.slice(0, 300));
        for (const [name, answer] of readers(bytes(bad))) assert.deepEqual(answer, oracle(bad), `${name}: ${bad.slice(0, 300)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('every reader, the engine\'s scanner (both paths, in pieces), analyze\'s capture (wasm), replay\'s index: the same calls as the rule, on every generated line', () => {
    fc.assert(
      fc.property(line, (l) => {
        const expected = callsOfLine(bytes(l));
        for (const [name, answer] of readers(bytes(l))) assert.deepEqual(answer, expected, `${name}: ${l.slice(0, 300)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('lines over HEAD_BYTES and lines cut short: every reader judges them by the same head, in any key order', () => {
    const big = fc.constantFrom(HEAD_BYTES - 200, HEAD_BYTES - 20, HEAD_BYTES + 50, 2 * HEAD_BYTES);
    fc.assert(
      fc.property(line, big, fc.constantFrom('toolUseResult', 'input', 'text'), fc.nat(), fc.boolean(), (l, size, where, n, cut) => {
        const pad = 'x'.repeat(size);
        const rec = JSON.parse(l);
        // The padding in a top-level key, or in a block (input or text), placed by `n` among the keys.
        if (where === 'toolUseResult' || !rec.message || !Array.isArray(rec.message.content) || rec.message.content.length === 0) {
          const entries = Object.entries(rec);
          entries.splice(n % (entries.length + 1), 0, ['toolUseResult', { stdout: pad }]);
          l = JSON.stringify(Object.fromEntries(entries));
        } else {
          const blocks = rec.message.content;
          const b = blocks[n % blocks.length];
          if (b && typeof b === 'object' && !Array.isArray(b)) {
            const entries = Object.entries(b);
            entries.splice(n % (entries.length + 1), 0, [where, where === 'input' ? { content: pad } : pad]);
            blocks[n % blocks.length] = Object.fromEntries(entries);
          } else blocks.push({ type: 'text', text: pad });
          l = JSON.stringify(rec);
        }
        let b = bytes(l);
        if (cut) b = b.subarray(0, b.length - 1 - (n % Math.min(b.length - 1, 3 * HEAD_BYTES)));
        const expected = callsOfLine(b);
        for (const [name, answer] of readers(b)) assert.deepEqual(answer, expected, `${name}: ${b.length} bytes, ${l.slice(0, 200)}`);
      }),
      { numRuns: 150 },
    );
  });

  it('a kept key given again with another kind of value: the last one counts, as JSON.parse has it', () => {
    const twice = '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","id":null}]}}';
    assert.equal(lineKindOf(bytes(twice), 'toolu_a'), 'other');
    const typeTwice = '{"type":"assistant","type":3,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a"}]}}';
    assert.deepEqual(callsOfLine(bytes(typeTwice)), oracle(typeTwice));
    assert.equal(lineKindOf(bytes(typeTwice), 'toolu_a'), 'result');
  });

  it('tells the record, its result and a line that only quotes the id apart; a line cut short is no record', () => {
    const record = JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'Bash', input: {} }] } });
    const result = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'ok' }] } });
    const quoting = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: '"id":"toolu_a"' }] } });
    assert.equal(lineKindOf(bytes(record), 'toolu_a'), 'record');
    assert.equal(lineKindOf(bytes(result), 'toolu_a'), 'result');
    assert.equal(lineKindOf(bytes(quoting), 'toolu_a'), 'other');
    assert.equal(lineKindOf(bytes(record), 'toolu_b'), 'other');
    assert.equal(lineKindOf(bytes(record.slice(0, -2)), 'toolu_a'), 'other');
    // White space between tokens, as any JSON writer may put it.
    assert.equal(lineKindOf(bytes(JSON.stringify(JSON.parse(record), null, 1).replace(/\n/g, ' ')), 'toolu_a'), 'record');
    // Not JSON after the object: no record.
    assert.equal(lineKindOf(bytes(`${record} x`), 'toolu_a'), 'other');
  });

  it("a long line is judged by its first HEAD_BYTES, in any key order: a block writing name and input before id is a record while its id is in the head", () => {
    const big = 'z'.repeat(HEAD_BYTES + 1000);
    const nameFirst = `{"parentUuid":"p","message":{"role":"assistant","content":[{"name":"Write","type":"tool_use","id":"toolu_a","input":{"content":"${big}"}}]},"type":"assistant"}`;
    assert.equal(lineKindOf(bytes(nameFirst), 'toolu_a'), 'record');
    assert.deepEqual(callsOfLine(bytes(nameFirst).subarray(0, 300), false), { records: ['toolu_a'], results: [] });
    // Its id past the head: not known to be the record, by every reader alike.
    const idLast = `{"message":{"role":"assistant","content":[{"type":"tool_use","input":{"content":"${big}"},"id":"toolu_a"}]},"type":"assistant"}`;
    assert.equal(lineKindOf(bytes(idLast), 'toolu_a'), 'other');
    // A result whose output is inline and long: the id near the start decides.
    const result = `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_a","type":"tool_result","content":"${big}"}]}}`;
    assert.equal(lineKindOf(bytes(result), 'toolu_a'), 'result');
    // The type after a long message: the role decides, for every reader.
    const typeLast = `{"message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","input":{"content":"${big}"}}]},"type":"user"}`;
    assert.equal(lineKindOf(bytes(typeLast), 'toolu_a'), 'record');
    for (const l of [nameFirst, idLast, result, typeLast]) {
      for (const [name, answer] of readers(bytes(l))) assert.deepEqual(answer, callsOfLine(bytes(l)), name);
    }
  });

  it('every reader gives the same answer: the on-disk check, the finder (in pieces), the mod\'s and message\'s reading', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-recordline-'));
    try {
      fc.assert(
        fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 97 }), (lines, piece) => {
          const file = path.join(dir, 't.jsonl');
          const text = lines.join('\n') + '\n';
          fs.writeFileSync(file, text);
          const whole = lines.map(oracle);
          const recorded = whole.some((o) => o.records.includes('toolu_a'));
          const answered = whole.some((o) => o.results.includes('toolu_a'));
          const check = checkOnDisk(file, 'toolu_a')!;
          assert.equal(check.record_on_disk, recorded);
          assert.equal(check.result_on_disk, answered);
          const finder = new ToolUseFinder('toolu_a');
          const b = Buffer.from(text);
          let found: number | undefined;
          for (let i = 0; i < b.length; i += piece) found = finder.push(b.subarray(i, i + piece)) ?? found;
          const first = whole.findIndex((o) => o.records.includes('toolu_a'));
          assert.equal(found, first === -1 ? undefined : first + 1);
        }),
        { numRuns: 300 },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
