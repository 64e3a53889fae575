import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { callsOfLine, HEAD_BYTES, LineHeadScanner, lineFactsOf, lineKindOf } from '../../../src/rules/recordLine';
import { checkOnDisk } from '../../../src/rules/onDiskCheck';
import { ToolUseFinder } from '../../../src/hook/toolUseFinder';

const bytes = (s: string) => Buffer.from(s, 'utf8');

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
    if (owner === 'assistant' && b.type === 'tool_use' && typeof b.id === 'string') out.records.push(b.id);
    if (owner === 'user' && b.type === 'tool_result' && typeof b.tool_use_id === 'string') out.results.push(b.tool_use_id);
  }
  return out;
}

/** An object with its keys in the order given by `order` (a permutation seed). */
function ordered(entries: Array<[string, unknown]>, order: number[]): Record<string, unknown> {
  const idx = entries.map((_, i) => i).sort((a, b) => (order[a] ?? 0) - (order[b] ?? 0) || a - b);
  return Object.fromEntries(idx.map((i) => entries[i]));
}

const id = fc.constantFrom('toolu_a', 'toolu_b', 'toolu_01XyZ', 'toolu_"q"', 'toolu_\\x', 'toolu_é');
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
    type: fc.constantFrom('assistant', 'user', 'system', undefined, 3),
    role: fc.constantFrom('assistant', 'user', undefined),
    content: fc.oneof({ weight: 5, arbitrary: fc.array(block, { maxLength: 4 }) }, { weight: 1, arbitrary: text }),
    extra: fc.dictionary(fc.constantFrom('uuid', 'parentUuid', 'cwd', 'toolUseResult', 'version'), fc.oneof(text, fc.integer(), fc.constant(null))),
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
