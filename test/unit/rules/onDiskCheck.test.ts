import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkOnDisk, recordFileOf } from '../../../src/rules/onDiskCheck';
import { fixturesDir } from '../helpers/fixtures';

/** The real print-mode session: its Bash call's record is line 22 (probe.log), its result a later line. */
const dir = path.join(fixturesDir, 'real', 'print-single-0');
const transcriptName = fs.readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
const lines = fs.readFileSync(path.join(dir, transcriptName), 'utf8').split('\n').filter(Boolean);
const ID = 'toolu_field001b';
const recordLine = lines.findIndex((l) => l.includes(`"id":"${ID}"`)) + 1;
const resultLine = lines.findIndex((l) => l.includes(`"tool_use_id":"${ID}"`)) + 1;

function fileOf(content: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-ondisk-'));
  const f = path.join(d, 't.jsonl');
  fs.writeFileSync(f, content);
  return f;
}

/** What the check says, without where complete lines end (that goes to the landing watcher, not into events). */
function check(f: string, id: string, windowBytes?: number) {
  const found = checkOnDisk(f, id, windowBytes);
  if (!found) return found;
  const { complete_bytes, ...seen } = found;
  const size = fs.statSync(f).size;
  const text = fs.readFileSync(f);
  // Complete lines end at the last newline, when the window reached back to one.
  assert.ok(complete_bytes <= size && (complete_bytes === 0 || text[complete_bytes - 1] === 0x0a), `complete_bytes ${complete_bytes}`);
  return seen;
}

/** The first `n` lines, each with its newline. */
const upTo = (n: number) => lines.slice(0, n).map((l) => `${l}\n`).join('');

describe('hook: what was on disk for its call', () => {
  it('the fixture has the record before its result (the premise of the cases below)', () => {
    assert.equal(recordLine, 22);
    assert.ok(resultLine > recordLine);
  });

  it('before the record: neither record nor result, and the bytes on disk', () => {
    const f = fileOf(upTo(recordLine - 1));
    assert.deepEqual(check(f, ID), { bytes_on_disk: fs.statSync(f).size, record_on_disk: false, result_on_disk: false });
  });

  it('the record on disk without its result', () => {
    const f = fileOf(upTo(recordLine));
    assert.deepEqual(check(f, ID), { bytes_on_disk: fs.statSync(f).size, record_on_disk: true, result_on_disk: false });
  });

  it('record and result on disk', () => {
    const f = fileOf(upTo(resultLine));
    assert.deepEqual(check(f, ID), { bytes_on_disk: fs.statSync(f).size, record_on_disk: true, result_on_disk: true });
  });

  it('a record line without its newline is not on disk yet; its bytes count in bytes_on_disk', () => {
    const partial = upTo(recordLine - 1) + lines[recordLine - 1]!;
    const f = fileOf(partial);
    assert.deepEqual(check(f, ID), { bytes_on_disk: Buffer.byteLength(partial), record_on_disk: false, result_on_disk: false });
  });

  it('a result alone (the record elsewhere) is a result, never the record', () => {
    const f = fileOf(`${lines[resultLine - 1]!}\n`);
    assert.deepEqual(check(f, ID), { bytes_on_disk: fs.statSync(f).size, record_on_disk: false, result_on_disk: true });
  });

  it('text quoting the id (a prompt) is neither', () => {
    const f = fileOf(`${JSON.stringify({ type: 'user', message: { role: 'user', content: `look at ${ID}` } })}\n`);
    assert.deepEqual(check(f, ID), { bytes_on_disk: fs.statSync(f).size, record_on_disk: false, result_on_disk: false });
  });

  it('a file larger than the window: a record inside it is found; absence says nothing (no record_on_disk)', () => {
    const filler = `${JSON.stringify({ type: 'user', message: { content: 'x'.repeat(1000) } })}\n`.repeat(50);
    const withRecord = fileOf(filler + upTo(recordLine));
    assert.deepEqual(check(withRecord, ID, 4096), { bytes_on_disk: fs.statSync(withRecord).size, record_on_disk: true, result_on_disk: false });
    const recordFarBack = fileOf(upTo(recordLine) + filler);
    assert.deepEqual(check(recordFarBack, ID, 4096), { bytes_on_disk: fs.statSync(recordFarBack).size });
  });

  it('no evidence from what is not a readable regular file', () => {
    assert.equal(check('/nonexistent/t.jsonl', ID), undefined);
    assert.equal(checkOnDisk(os.tmpdir(), ID), undefined);
    if (process.platform !== 'win32') assert.equal(checkOnDisk('/dev/zero', ID), undefined);
  });

  it("a subagent's calls are looked for in its own file; an agent id that could name another path is refused", () => {
    const main = '/c/projects/-w/5f0e.jsonl';
    assert.equal(recordFileOf(main, '5f0e', undefined), main);
    assert.equal(recordFileOf(main, '5f0e', 'a1b2'), '/c/projects/-w/5f0e/subagents/agent-a1b2.jsonl');
    assert.equal(recordFileOf(main, '5f0e', '../x'), undefined);
    assert.equal(recordFileOf(main, '..', 'a1b2'), undefined);
  });
});
