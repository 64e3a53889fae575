import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { watchLanding, type LandingOptions } from '../../../src/hook/landingWatch';
import { probeTranscript } from '../../../src/hook/probe';

const record = (id: string, input: object = {}) => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Write', input }] } });
const result = (id: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });
const other = (n: number) => JSON.stringify({ type: 'system', content: `line ${n} ${'·'.repeat(40)}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The hook's own readers of a growing transcript, through its LineCursor (src/rules/lineCursor.ts).
describe('hook: the landing watch and the probe read new bytes through the cursor', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-landing-'));
    file = path.join(dir, 'session.jsonl');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const opts = (fromByte: number, extra: Partial<LandingOptions> = {}): LandingOptions => ({ fromByte, deadline: Date.now() + 5000, pollMs: () => 5, ...extra });

  it('landing: a record cut inside a UTF-8 character across looks, read 7 bytes at a time, lands with the result of its look', async () => {
    fs.writeFileSync(file, `${other(1)}\n`);
    const from = fs.statSync(file).size;
    const line = Buffer.from(`${record('toolu_L1', { content: 'héllo ✓ 日本' })}\n${result('toolu_L1')}\n`, 'utf8');
    const cut = line.indexOf(Buffer.from('✓')) + 1;
    fs.appendFileSync(file, line.subarray(0, cut));
    const watching = watchLanding(file, 'toolu_L1', opts(from, { readBytes: 7 }));
    await sleep(30);
    fs.appendFileSync(file, line.subarray(cut));
    const landing = await watching;
    assert.equal(landing?.with_result, true);
  });

  it('landing: a record line longer than the carry is judged by its head', async () => {
    fs.writeFileSync(file, '');
    fs.appendFileSync(file, `${record('toolu_L2', { content: 'z'.repeat(3 * 1024 * 1024) })}\n`);
    assert.equal((await watchLanding(file, 'toolu_L2', opts(0, { readBytes: 64 * 1024 })))?.with_result, false);
  });

  it('landing: a transcript truncated or replaced under the watch gives no evidence', async () => {
    fs.writeFileSync(file, `${other(1)}\n${other(2)}\n`);
    const truncated = watchLanding(file, 'toolu_L3', opts(fs.statSync(file).size));
    await sleep(30);
    fs.writeFileSync(file, `${record('toolu_L3')}\n`);
    assert.equal(await truncated, undefined);

    fs.writeFileSync(file, `${other(1)}\n`);
    const replaced = watchLanding(file, 'toolu_L4', opts(fs.statSync(file).size));
    await sleep(30);
    // A larger file renamed over it: its size alone would not tell.
    fs.writeFileSync(`${file}.new`, `${other(1)}\n${other(2)}\n${record('toolu_L4')}\n`);
    fs.renameSync(`${file}.new`, file);
    assert.equal(await replaced, undefined);
  });

  it('probe: a transcript replaced by a larger file is read from its start, so the line is counted in the new file', async () => {
    fs.writeFileSync(file, `${other(1)}\n${other(2)}\n${other(3)}\n`);
    const probing = probeTranscript(file, 'toolu_P1', { polls: 200, pollMs: 5, deadline: Date.now() + 5000 });
    await sleep(30);
    fs.writeFileSync(`${file}.new`, `${other(1)}\n${record('toolu_P1')}\n${other(3)}\n${other(4)}\n`);
    fs.renameSync(`${file}.new`, file);
    const outcome = await probing;
    assert.deepEqual([outcome.outcome, outcome.line], ['seen', 2]);
  });

  it('probe: a truncated transcript starts the line count over', async () => {
    fs.writeFileSync(file, `${other(1)}\n${other(2)}\n${other(3)}\n`);
    const probing = probeTranscript(file, 'toolu_P2', { polls: 200, pollMs: 5, deadline: Date.now() + 5000 });
    await sleep(30);
    fs.writeFileSync(file, `${record('toolu_P2')}\n`);
    const outcome = await probing;
    assert.deepEqual([outcome.outcome, outcome.line], ['seen', 1]);
  });
});
