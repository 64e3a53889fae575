import { parentPort, workerData } from 'node:worker_threads';
import { startHookReceiver, type HookReceiver, type HookReceiverOptions } from './hookReceiver';

/**
 * The http hooks' receiver on a thread of its own (dist/hookReceiverWorker.js):
 * Claude Code waits for each request's answer, and on the thread of `watch` or
 * the extension an answer waits behind the engine's own work (BENCHMARKS.md,
 * `transports`). Same receiver, same channel file; only the event loop is its own.
 */
type Options = Omit<HookReceiverOptions, 'now'>;

let receiver: HookReceiver | undefined;
const port = parentPort;
if (port) {
  startHookReceiver({ ...(workerData as Options), now: Date.now }).then(
    (r) => {
      receiver = r;
      port.postMessage({ type: 'listening', port: r.port });
    },
    (err: NodeJS.ErrnoException) => port.postMessage({ type: 'error', code: err.code, message: err.message }),
  );
  port.on('message', (m: { type?: string }) => {
    if (m?.type === 'close') void (receiver?.close() ?? Promise.resolve()).finally(() => port.postMessage({ type: 'closed' }));
  });
}
