import { Worker } from 'node:worker_threads';
import type { RangeScan, RangeScanner } from '../core/analyze/rangeScan';

export type RangeRequest = { id: number; path: string; from: number; to: number; limit: number } | { recycle: ArrayBuffer };
export type RangeResponse = { id: number; scan: RangeScan } | { id: number; error: string };

interface Waiter {
  resolve(scan: RangeScan): void;
  reject(err: Error): void;
}

/**
 * A RangeScanner on one worker thread running `script` (dist/rangeScanWorker.js),
 * started on the first request, so a small transcript never pays for a thread.
 * close() ends it; a request still waiting then fails, as it does if the thread dies.
 */
export class WorkerRangeScanner implements RangeScanner {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, Waiter>();

  constructor(private readonly script: string) {}

  scanRange(path: string, from: number, to: number, limit: number): Promise<RangeScan> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise<RangeScan>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      const request: RangeRequest = { id, path, from, to, limit };
      worker.postMessage(request);
    });
  }

  recycle(range: RangeScan): void {
    const buffer = range.scans.buffer as ArrayBuffer;
    // Back to the thread that wrote it, without a copy.
    this.worker?.postMessage({ recycle: buffer } satisfies RangeRequest, [buffer]);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
    this.failAll(new Error('range scanner closed'));
  }

  private start(): Worker {
    // A small heap: the thread keeps one segment's scans at a time (see
    // ../core/analyze/parallelRead.ts), and V8 would otherwise let its garbage
    // grow the process by tens of MB over a gigabyte. Running out ends the thread,
    // and analyze then reads in one thread.
    const worker = new Worker(this.script, { resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 24 } });
    worker.on('message', (response: RangeResponse) => {
      const waiter = this.waiting.get(response.id);
      if (!waiter) return;
      this.waiting.delete(response.id);
      if ('scan' in response) waiter.resolve(response.scan);
      else waiter.reject(new Error(response.error));
    });
    worker.on('error', (err) => this.failAll(err));
    worker.on('exit', (code) => {
      this.worker = undefined;
      this.failAll(new Error(`range scan worker exited with code ${code}`));
    });
    return worker;
  }

  private failAll(err: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(err);
    this.waiting.clear();
  }
}
