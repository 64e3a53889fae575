import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { ModHarness } from './modHarness';
import { WHOLE_READ_MAX } from '../../../src/mod/looks';

const record = (id: string, input: object = {}) => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Write', input }] } });
const result = (id: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });

// The mod's looks at a held call's file (its LineCursor, src/rules/lineCursor.ts): only new bytes, the line in progress carried.
describe('mod: looking for a held call\'s record', () => {
  let h: ModHarness;
  afterEach(() => h?.dispose());

  const file = () => h.real(h.transcript);
  const landed = () => h.spooled().filter((e) => e.event === 'landed') as unknown as { tool_use_id: string; with_result: boolean }[];

  it('a record written in two parts, cut inside a UTF-8 character, lands once its newline is on disk, with the result of the same look', async () => {
    h = new ModHarness();
    await h.start();
    const call = await h.call('toolu_01U');
    await call.finish();
    const line = Buffer.from(`${record('toolu_01U', { content: 'héllo ✓ 日本' })}\n${result('toolu_01U')}\n`, 'utf8');
    const cut = line.indexOf(Buffer.from('✓')) + 1;
    fs.appendFileSync(file(), line.subarray(0, cut));
    await h.tick(50);
    assert.deepEqual(landed(), []);
    fs.appendFileSync(file(), line.subarray(cut));
    await h.tick(50);
    assert.deepEqual(landed().map((e) => [e.tool_use_id, e.with_result]), [['toolu_01U', true]]);
  });

  it("a record is found by reading, whatever size $.fs.stat gives (2.1.332's was seen ~100 ms stale): at the first look after its write", async () => {
    h = new ModHarness();
    h.append({ type: 'system', content: 'before' });
    await h.start();
    await h.call('toolu_01V');
    // The stat's view stays at the size before the record: a look driven by it would not find the record.
    h.staleSizes.set(file(), fs.statSync(file()).size);
    await h.tick(100);
    h.appendRecord('toolu_01V');
    await h.tick(100);
    assert.deepEqual(landed().map((e) => e.tool_use_id), ['toolu_01V']);
  });

  it("a build whose $.fs.read gives the whole file (before 2.1.326): what is past the cursor taken as new, each record found at its own look", async () => {
    h = new ModHarness({ before326: true });
    h.append({ type: 'system', content: 'before' });
    await h.start();
    const first = await h.call('toolu_01W');
    await h.tick(100);
    assert.deepEqual(landed(), [], 'the whole file read again is not taken as new lines');
    h.appendRecord('toolu_01W');
    await h.tick(100);
    await first.finish();
    await h.call('toolu_01X');
    await h.tick(300);
    assert.deepEqual(landed().map((e) => e.tool_use_id), ['toolu_01W'], "the second call's record is not there yet");
    fs.appendFileSync(file(), `${result('toolu_01W')}\n`);
    h.appendRecord('toolu_01X');
    await h.tick(100);
    assert.deepEqual(landed().map((e) => e.tool_use_id), ['toolu_01W', 'toolu_01X']);
  });

  it('a build that gives the whole file, past WHOLE_READ_MAX: not looked at (no landing said), nothing read past the bound', async () => {
    h = new ModHarness({ before326: true });
    h.append({ type: 'system', content: 'x'.repeat(WHOLE_READ_MAX) });
    await h.start();
    await h.call('toolu_01Y');
    h.appendRecord('toolu_01Y');
    await h.tick(100);
    const reads = h.byteReads;
    await h.tick(300);
    assert.deepEqual(landed(), []);
    assert.equal(h.byteReads, reads, 'no read once it is known too large');
  });

  it('a transcript truncated under its cursor is read again from its start', async () => {
    h = new ModHarness();
    h.append({ type: 'system', content: 'x'.repeat(5000) });
    await h.start();
    await h.call('toolu_01T');
    await h.tick(100);
    fs.writeFileSync(file(), `${record('toolu_01T')}\n`);
    await h.tick(100);
    assert.deepEqual(landed().map((e) => e.tool_use_id), ['toolu_01T']);
  });

  it('a record line over a MiB is judged by its head, the rest never held', async () => {
    h = new ModHarness();
    await h.start();
    await h.call('toolu_01L');
    h.append(JSON.parse(record('toolu_01L', { content: 'z'.repeat(2 * 1024 * 1024) })));
    await h.tick(100);
    assert.deepEqual(landed().map((e) => e.tool_use_id), ['toolu_01L']);
  });

  it('more than 4 MiB new at once: read 4 MiB a look from where the last stopped, so every record is found, the later one a look later', async () => {
    h = new ModHarness();
    await h.start();
    await h.call('toolu_01S');
    await h.call('toolu_01N');
    h.appendRecord('toolu_01S');
    for (let i = 0; i < 5; i++) h.append({ type: 'system', content: 'f'.repeat(1024 * 1024) });
    h.appendRecord('toolu_01N');
    await h.tick(100);
    assert.deepEqual(landed().map((e) => e.tool_use_id), ['toolu_01S']);
    await h.tick(100);
    assert.deepEqual(landed().map((e) => e.tool_use_id), ['toolu_01S', 'toolu_01N']);
  });
});
