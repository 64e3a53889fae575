import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeTranscript } from '../../../../src/core/analyze';
import type { FileAccess } from '../../../../src/core/fileAccess';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { toolResultRecord, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

const S = 'a0000000-0000-4000-8000-0000000000a1';
const jsonl = (records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

describe('analyze: a transcript that changes while it is read', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-analyze-changes-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('truncated and rewritten mid-read: the report is of the file as it now is, its counts agreeing with its lines', async () => {
    const file = path.join(dir, 's.jsonl');
    const before = [userPrompt(S, dir)];
    for (let i = 0; i < 300; i++) before.push(toolUseRecord(S, dir, `toolu_old_${i}`), toolResultRecord(S, dir, `toolu_old_${i}`));
    fs.writeFileSync(file, jsonl(before));
    const after = jsonl([userPrompt(S, dir, 'again'), toolUseRecord(S, dir, 'toolu_new'), toolResultRecord(S, dir, 'toolu_new')]);
    // After the first chunk is read, the file is cut and three new lines are written in its place.
    let reads = 0;
    const files: FileAccess = {
      ...nodeFileAccess,
      open: async (p) => {
        const f = await nodeFileAccess.open(p);
        return {
          ...f,
          read: async (b, o, l, pos) => {
            const n = await f.read(b, o, l, pos);
            if (++reads === 1) fs.writeFileSync(file, after);
            return n;
          },
        };
      },
    };
    const a = await analyzeTranscript({ path: file, files, clock: { now: () => 0 }, chunkSize: 4096 });
    assert.ok(a.changes.some((c) => c.kind === 'truncated'), JSON.stringify(a.changes));
    assert.equal(a.lines, 3);
    assert.equal(a.counts.calls, 1);
    assert.deepEqual(a.calls.map((c) => c.tool_use_id), ['toolu_new']);
    assert.equal(a.counts.results, 1);
    assert.equal(a.first_prompt, 'again');
  });

  it('cut to nothing mid-read: no lines and no calls, the change reported', async () => {
    const file = path.join(dir, 's.jsonl');
    const before = [userPrompt(S, dir)];
    for (let i = 0; i < 300; i++) before.push(toolUseRecord(S, dir, `toolu_old_${i}`), toolResultRecord(S, dir, `toolu_old_${i}`));
    fs.writeFileSync(file, jsonl(before));
    let reads = 0;
    const files: FileAccess = {
      ...nodeFileAccess,
      open: async (p) => {
        const f = await nodeFileAccess.open(p);
        return { ...f, read: async (b, o, l, pos) => ((await f.read(b, o, l, pos)) + (++reads === 1 ? (fs.truncateSync(file, 0), 0) : 0)) };
      },
    };
    const a = await analyzeTranscript({ path: file, files, clock: { now: () => 0 }, chunkSize: 4096 });
    assert.ok(a.changes.some((c) => c.kind === 'truncated'), JSON.stringify(a.changes));
    assert.deepEqual([a.lines, a.counts.calls, a.records], [0, 0, 0]);
  });
});

describe('analyze: a UTF-8 byte order mark before the first line', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-analyze-bom-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is skipped, whatever the read size: the first line is a record, not malformed', async () => {
    const file = path.join(dir, 's.jsonl');
    const records = [userPrompt(S, dir, 'first')];
    for (let i = 0; i < 50; i++) records.push(toolUseRecord(S, dir, `toolu_${i}`), toolResultRecord(S, dir, `toolu_${i}`));
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(jsonl(records))]));
    const one = await analyzeTranscript({ path: file, files: nodeFileAccess, clock: { now: () => 0 }, chunkSize: 1000 });
    const two = await analyzeTranscript({ path: file, files: nodeFileAccess, clock: { now: () => 0 } });
    for (const a of [one, two]) {
      assert.deepEqual([a.lines, a.malformed, a.records, a.counts.calls], [101, 0, 101, 50]);
      assert.equal(a.first_prompt, 'first');
    }
  });

  it('is a malformed line anywhere else', async () => {
    const file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, `${jsonl([userPrompt(S, dir)])}\ufeff${jsonl([userPrompt(S, dir)])}`);
    const a = await analyzeTranscript({ path: file, files: nodeFileAccess, clock: { now: () => 0 } });
    assert.deepEqual([a.lines, a.malformed], [2, 1]);
  });
});
