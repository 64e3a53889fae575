import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { forEachScan, LocalRangeScanner, type RangeScan } from '../../src/core/analyze';
import type { ScanResult } from '../../src/core/records';
import { nodeFileAccess } from '../../src/platform/nodeFileAccess';
import { WorkerRangeScanner } from '../../src/platform/workerRangeScanner';
import { fixturesDir } from './fixtures';

const repoRoot = path.resolve(__dirname, '../..');

describe('WorkerRangeScanner: analyze’s second thread', () => {
  let tmp: string;
  let script: string;
  let transcript: string;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-range-worker-'));
    script = path.join(tmp, 'rangeScanWorker.js');
    // The same entry and options as scripts/build.mjs gives dist/rangeScanWorker.js.
    await esbuild.build({ entryPoints: [path.join(repoRoot, 'src/platform/rangeScanWorker.ts')], outfile: script, bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'silent' });
    const dir = path.join(fixturesDir, 'real', 'interactive-parallel-2000');
    transcript = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))!);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('scans ranges asked for at once like this thread does, in order', async () => {
    const bytes = fs.readFileSync(transcript);
    const size = bytes.length;
    // Cut anywhere, mid-line included: each line belongs to the range it starts in.
    const ranges = Array.from({ length: Math.ceil(size / 4000) }, (_, i) => [i * 4000, Math.min(size, (i + 1) * 4000)] as const);
    const worker = new WorkerRangeScanner(script);
    try {
      const remote = await Promise.all(ranges.map(([s, e]) => worker.scanRange(transcript, s, e, size)));
      const local = new LocalRangeScanner(nodeFileAccess);
      const scansOf = (r: RangeScan) => {
        const out: ScanResult[] = [];
        forEachScan(r, (scan) => out.push(scan));
        return { ...r, scans: out };
      };
      const expected = [];
      for (const [s, e] of ranges) expected.push(scansOf(await local.scanRange(transcript, s, e, size)));
      assert.deepEqual(remote.map(scansOf), expected);
      assert.equal(remote.reduce((n, r) => n + r.count, 0), bytes.toString('latin1').split('\n').length - 1);
      // Buffers sent back are written over by later ranges: the scans stay the same.
      for (const r of remote) worker.recycle(r);
      const again = await Promise.all(ranges.map(([s, e]) => worker.scanRange(transcript, s, e, size)));
      assert.deepEqual(again.map(scansOf), expected);
    } finally {
      await worker.close();
    }
  });

  it('fails a request it cannot read, and answers the next one', async () => {
    const worker = new WorkerRangeScanner(script);
    try {
      await assert.rejects(worker.scanRange(path.join(tmp, 'missing.jsonl'), 0, 10, 10), /ENOENT/);
      const size = fs.statSync(transcript).size;
      const scan = await worker.scanRange(transcript, 0, size, size);
      assert.ok(scan.count > 0);
    } finally {
      await worker.close();
    }
  });

  it('close() fails what is still waiting', async () => {
    const worker = new WorkerRangeScanner(script);
    const size = fs.statSync(transcript).size;
    const pending = worker.scanRange(transcript, 0, size, size);
    await worker.close();
    await assert.rejects(pending, /closed|exited/);
  });
});
