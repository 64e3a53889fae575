import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HookReceiver, HookReceiverOptions } from './hookReceiver';
import { startHookReceiver } from './hookReceiver';

/**
 * Starts the http hooks' receiver on its own thread when its bundle is there
 * (dist/hookReceiverWorker.js, beside the bundle that requires this), else in
 * this thread (run from the sources: tests, tsx). Both are the same receiver
 * (./hookReceiver.ts); a unit test holds the thread's to the same answers.
 */
/** How long a stop waits for the thread's own close before ending the thread. */
const CLOSE_WAIT_MS = 500;

export function startHookReceiverThread(opts: HookReceiverOptions, workerFile = path.join(__dirname, 'hookReceiverWorker.js')): Promise<HookReceiver> {
  if (!fs.existsSync(workerFile)) return startHookReceiver(opts);
  // Required here: only a process that serves http hooks loads worker_threads.
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  const { now: _now, ...data } = opts;
  const worker = new Worker(workerFile, { workerData: data });
  return new Promise((resolve, reject) => {
    const onStart = (m: { type: string; port?: number; code?: string; message?: string }) => {
      if (m.type === 'listening') {
        // Listening: from now on the receiver must never keep `watch` or the extension host alive on its
        // own (before it, the wait for this message is what keeps a starting process alive).
        worker.unref();
        resolve({
          port: m.port as number,
          close: () =>
            new Promise<void>((done) => {
              // The receiver drops its connections and answers at once; a thread that does not is ended all the same.
              const end = () => {
                clearTimeout(timer);
                void worker.terminate().then(() => done(), () => done());
              };
              const timer = setTimeout(end, CLOSE_WAIT_MS);
              worker.once('message', end);
              worker.postMessage({ type: 'close' });
            }),
        });
      } else if (m.type === 'error') {
        void worker.terminate();
        reject(Object.assign(new Error(m.message ?? 'the receiver did not start'), { code: m.code }));
      }
    };
    worker.once('message', onStart);
    worker.once('error', (err) => reject(err));
  });
}
