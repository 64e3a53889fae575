import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { ToolUseFinder } from '../../../src/hook/toolUseFinder';
import { fixturesDir } from '../helpers/fixtures';

function feed(finder: ToolUseFinder, bytes: Buffer, cuts: number[]): number | undefined {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const at of [...points, bytes.length]) {
    const found = finder.push(bytes.subarray(from, at));
    if (found !== undefined) return found;
    from = at;
  }
  return finder.foundLine;
}

interface Seen {
  id: string;
  line: number;
}

/** Every real transcript that has a probe.log with, from it, each call and the line its record landed on. */
function realCases(): { transcript: Buffer; seen: Seen[] }[] {
  const root = path.join(fixturesDir, 'real');
  return fs.readdirSync(root).filter((name) => fs.existsSync(path.join(root, name, 'probe.log'))).map((name) => {
    const dir = path.join(root, name);
    const file = fs.readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
    const seen = fs
      .readFileSync(path.join(dir, 'probe.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { ev: string; id: string; line: number })
      .filter((e) => e.ev === 'seen');
    return { transcript: fs.readFileSync(path.join(dir, file)), seen };
  });
}

const record = (id: string, extra = '') =>
  JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: extra } }] } });
const result = (id: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });

describe('hook: ToolUseFinder', () => {
  it('finds every call of the real transcripts at the line probe.log measured', () => {
    for (const { transcript, seen } of realCases()) {
      assert.ok(seen.length > 0);
      for (const s of seen) assert.equal(feed(new ToolUseFinder(s.id), transcript, []), s.line, s.id);
    }
  });

  it('finds the same line whatever bytes the reads are split at (property)', () => {
    const [{ transcript, seen }] = realCases();
    fc.assert(
      fc.property(fc.constantFrom(...seen), fc.array(fc.nat(), { maxLength: 40 }), (s, cuts) => {
        assert.equal(feed(new ToolUseFinder(s.id), transcript, cuts), s.line);
      }),
      { numRuns: 60 },
    );
  });

  it('finds the id even when every byte is its own read', () => {
    const bytes = Buffer.from(result('toolu_A') + '\n' + record('toolu_A') + '\n');
    const finder = new ToolUseFinder('toolu_A');
    let found: number | undefined;
    for (let i = 0; i < bytes.length && found === undefined; i++) found = finder.push(bytes.subarray(i, i + 1));
    assert.equal(found, 2);
  });

  it('counts a record only once its newline is on disk', () => {
    const finder = new ToolUseFinder('toolu_A');
    assert.equal(finder.push(Buffer.from(record('toolu_A'))), undefined);
    assert.equal(finder.push(Buffer.from('\n')), 1);
  });

  it('ignores results, quotes of the id in text, other ids with the id as prefix, and malformed lines', () => {
    const lines = [
      result('toolu_A'),
      JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: '{"id":"toolu_A","type":"tool_use"}' }] } }),
      record('toolu_AB'),
      record('toolu_A').slice(0, -5) + ',,,}',
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_use', id: 'toolu_A' }] } }),
    ];
    assert.equal(feed(new ToolUseFinder('toolu_A'), Buffer.from(lines.join('\n') + '\n'), []), undefined);
    assert.equal(feed(new ToolUseFinder('toolu_A'), Buffer.from([...lines, record('toolu_A')].join('\n') + '\n'), [7, 300]), lines.length + 1);
  });

  it('judges a record over the buffering limit by its markers, in chunks, without holding it', () => {
    const big = record('toolu_BIG', 'x'.repeat(3 * 1024 * 1024));
    const bytes = Buffer.from(result('toolu_BIG') + '\n' + big + '\n');
    const finder = new ToolUseFinder('toolu_BIG');
    let found: number | undefined;
    for (let i = 0; i < bytes.length && found === undefined; i += 65536) found = finder.push(bytes.subarray(i, i + 65536));
    assert.equal(found, 2);
  });

  it('starts over after reset (truncated transcript)', () => {
    const finder = new ToolUseFinder('toolu_A');
    finder.push(Buffer.from(result('x') + '\n' + result('y') + '\n' + '{"partial'));
    finder.reset();
    assert.equal(finder.push(Buffer.from(record('toolu_A') + '\n')), 1);
  });
});
