// Entry of the worker thread behind WorkerRangeScanner (./workerRangeScanner.ts),
// bundled on its own as dist/rangeScanWorker.js: the scanner and nothing else,
// so the thread starts in a few ms. LocalRangeScanner answers one request at a
// time, in order.
import { parentPort } from 'node:worker_threads';
import { LocalRangeScanner } from '../core/analyze/rangeScan';
import { nodeFileAccess } from './nodeFileAccess';
import type { RangeRequest, RangeResponse } from './workerRangeScanner';

const port = parentPort;
if (port) {
  const scanner = new LocalRangeScanner(nodeFileAccess);
  port.on('message', (req: RangeRequest) => {
    if ('recycle' in req) {
      scanner.recycleBuffer(req.recycle);
      return;
    }
    scanner.scanRange(req.path, req.from, req.to, req.limit).then(
      // The scans' bytes move to the other thread without a copy.
      (scan) => port.postMessage({ id: req.id, scan } satisfies RangeResponse, [scan.scans.buffer as ArrayBuffer]),
      (err: unknown) => port.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies RangeResponse),
    );
  });
}
