import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FollowedFile } from '../../../../src/core/engine/followedFile';
import type { ScanResult } from '../../../../src/core/records';
import { createRecordScanner } from '../../../../src/core/scanner';
import type { TailRead } from '../../../../src/core/tailTypes';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ManualClock } from '../../helpers/manualClock';

describe('engine: FollowedFile', () => {
  let dir: string;
  let file: string;
  const lines = Array.from({ length: 6 }, (_, i) => `${JSON.stringify({ type: 'user', uuid: `u${i}`, pad: 'x'.repeat(40) })}\n`).join('');
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-followed-'));
    file = path.join(dir, 't.jsonl');
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  async function readOnce(f: FollowedFile<ScanResult>): Promise<{ read: TailRead<ScanResult>; catchUp: boolean }[]> {
    const got: { read: TailRead<ScanResult>; catchUp: boolean }[] = [];
    await f.read((read, catchUp) => got.push({ read, catchUp }));
    return got;
  }

  it('hands live lines over as one batch even when the tail needed several bounded reads', async () => {
    const f = new FollowedFile(file, nodeFileAccess, new ManualClock(), createRecordScanner(), 0, 100);
    await fsp.writeFile(file, lines);
    const got = await readOnce(f);
    assert.equal(got.length, 1);
    assert.equal(got[0].catchUp, false);
    assert.deepEqual(got[0].read.lines.map((l) => l.line), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual([got[0].read.batch?.firstLine, got[0].read.batch?.lastLine, got[0].read.batch?.byteEnd], [1, 6, Buffer.byteLength(lines)]);
    await f.close();
  });

  it('hands history over in bounded steps, all marked catch-up, then reads live', async () => {
    const f = new FollowedFile(file, nodeFileAccess, new ManualClock(), createRecordScanner(), Buffer.byteLength(lines), 100);
    await fsp.writeFile(file, lines);
    const got = await readOnce(f);
    assert.ok(got.length > 1);
    assert.ok(got.every((g) => g.catchUp));
    assert.deepEqual(got.flatMap((g) => g.read.lines.map((l) => l.line)), [1, 2, 3, 4, 5, 6]);
    await fsp.appendFile(file, '{"type":"user"}\n');
    const live = await readOnce(f);
    assert.deepEqual(live.map((g) => [g.catchUp, g.read.batch?.firstLine]), [[false, 7]]);
    await f.close();
  });

  it('history ends at a byte fixed before reading: what was appended since is live, a line half-written then too', async () => {
    const half = '{"type":"user","uuid":"half"';
    await fsp.writeFile(file, lines + half);
    const historyEnd = Buffer.byteLength(lines + half);
    const f = new FollowedFile(file, nodeFileAccess, new ManualClock(), createRecordScanner(), historyEnd, 100);
    await fsp.appendFile(file, '}\n{"type":"user","uuid":"after"}\n');
    const history = await readOnce(f);
    assert.ok(history.every((g) => g.catchUp));
    assert.deepEqual(history.flatMap((g) => g.read.lines.map((l) => l.line)), [1, 2, 3, 4, 5, 6], 'a read that starts in history stops where it ends');
    assert.equal(f.inHistory, false);
    const live = await readOnce(f);
    assert.deepEqual(live.map((g) => [g.catchUp, g.read.lines.map((l) => l.line)]), [[false, [7, 8]]]);
    await f.close();
  });
});
