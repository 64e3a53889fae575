import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { generateEmptyObjects, generateReplaySession } from '../../../bench/lib/generateReplaySession';
import { cutEscaped, generateTranscript } from '../../../bench/lib/generateTranscript';
import { fixturesDir } from '../helpers/fixtures';

function realRecords(): Record<string, unknown>[] {
  const dir = path.join(fixturesDir, 'real/interactive-parallel-2000');
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'));
  assert.ok(file, 'real fixture transcript');
  return fs
    .readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

type Block = { type?: string; id?: string };
const blocks = (r: Record<string, unknown>): Block[] => {
  const content = (r.message as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? (content as Block[]) : [];
};

describe('bench transcript generator', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gen-test-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes valid JSONL whose counts match what it reports, with most bytes in a few huge lines', () => {
    const size = 4 * 1024 * 1024;
    const gen = generateTranscript({ path: path.join(dir, 't.jsonl'), sizeBytes: size, seed: 9 });
    const text = fs.readFileSync(gen.path);
    assert.equal(gen.bytes, text.length);
    assert.ok(gen.bytes >= size && gen.bytes < size * 1.15, `size ${gen.bytes}`);
    assert.equal(text[text.length - 1], 0x0a);
    const lines = text.toString('utf8').split('\n').slice(0, -1);
    assert.equal(lines.length, gen.lines);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const ids = records.flatMap((r) => blocks(r).filter((b) => b.type === 'tool_use').map((b) => b.id));
    assert.equal(ids.length, gen.toolUses);
    assert.equal(new Set(ids).size, ids.length);
    const sizes = lines.map((l) => Buffer.byteLength(l) + 1).sort((a, b) => b - a);
    assert.equal(sizes[0], gen.largestLine);
    assert.ok(gen.largestLine >= size / 16, 'one giant line');
    // At this small size the huge lines are ~10% of lines; at 1 GiB they are under 0.1%.
    const top = sizes.slice(0, Math.ceil(sizes.length * 0.1)).reduce((a, b) => a + b, 0);
    assert.ok(top / gen.bytes > 0.7, `top 10% of lines hold ${((100 * top) / gen.bytes).toFixed(0)}% of bytes`);
    const types = new Set(records.map((r) => r.type));
    for (const t of ['user', 'assistant', 'attachment', 'last-prompt', 'mode', 'api-request']) assert.ok(types.has(t), t);
  });

  it('shapes tool_use and tool_result records with the keys of the real ones, in their order', () => {
    const real = realRecords();
    const gen = generateTranscript({ path: path.join(dir, 'shape.jsonl'), sizeBytes: 256 * 1024, seed: 3 });
    const mine = fs.readFileSync(gen.path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const isToolUse = (r: Record<string, unknown>) => blocks(r).some((b) => b.type === 'tool_use');
    const isBashResult = (r: Record<string, unknown>) =>
      blocks(r).some((b) => b.type === 'tool_result') && typeof (r.toolUseResult as { stdout?: unknown } | undefined)?.stdout === 'string';
    for (const pick of [isToolUse, isBashResult]) {
      const r = real.find(pick);
      const g = mine.find(pick);
      assert.ok(r && g);
      assert.deepEqual(Object.keys(g), Object.keys(r));
      assert.deepEqual(Object.keys(g.message as object), Object.keys(r.message as object));
    }
  });

  it("replay memory's session: valid JSONL of mostly ordinary lines, its calls spread through it with their results, the counts it reports", () => {
    const size = 4 * 1024 * 1024;
    const gen = generateReplaySession({ path: path.join(dir, 'replay.jsonl'), sizeBytes: size, calls: 60, seed: 5 });
    const text = fs.readFileSync(gen.path);
    assert.equal(gen.bytes, text.length);
    assert.ok(gen.bytes >= size && gen.bytes < size * 1.1, `size ${gen.bytes}`);
    const lines = text.toString('utf8').split('\n').slice(0, -1);
    assert.equal(lines.length, gen.lines);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const at = (pick: (b: Block & { tool_use_id?: string }) => string | undefined) =>
      records.flatMap((r, i) => blocks(r).flatMap((b) => (pick(b) === undefined ? [] : [{ id: pick(b)!, i }])));
    const uses = at((b) => (b.type === 'tool_use' ? b.id : undefined));
    const results = at((b) => (b.type === 'tool_result' ? b.tool_use_id : undefined));
    assert.equal(uses.length, gen.calls);
    assert.equal(gen.calls, 60);
    assert.equal(new Set(uses.map((u) => u.id)).size, uses.length);
    // Every call has its result after it; the calls reach the file's last fifth.
    for (const u of uses) assert.ok(results.some((r) => r.id === u.id && r.i > u.i), u.id);
    assert.ok(uses.at(-1)!.i > lines.length * 0.8, 'spread through the file');
    // Most lines are no call's: a call's record or result is under a tenth of them.
    assert.ok((uses.length + results.length) / lines.length < 0.1);
    assert.ok(records.some((r) => r.type === 'tools-used'));
    assert.equal(gen.longLines, 0, 'lines of 1 MiB only past 128 MiB');
    const empty = generateEmptyObjects(path.join(dir, 'empty.jsonl'), 100_001);
    assert.equal(fs.readFileSync(empty.path, 'utf8'), '{}\n'.repeat(100_001));
  });

  it('cuts escaped JSON text only where it still parses as a string', () => {
    const unit = fc.constantFrom('a', ' ', '\\', '"', 'é', '→', '\t', '\n', '€');
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 60 }), fc.nat(), (s, n) => {
        const escaped = Buffer.from(JSON.stringify(s).slice(1, -1));
        const cut = cutEscaped(escaped, n % (escaped.length + 1));
        assert.doesNotThrow(() => JSON.parse(`"${cut.toString('utf8')}"`));
        assert.ok(cut.length >= Math.min(n % (escaped.length + 1), escaped.length) - 3);
      }),
    );
  });
});
