import * as assert from 'node:assert/strict';
import { nodeIo } from '../../../src/cli/io';

describe('CLI: process io', () => {
  it('installs SIGINT/SIGTERM handlers only for a command that asks for the stop signal, so Ctrl-C still ends analyze', () => {
    const before = { int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') };
    const io = nodeIo();
    assert.equal(process.listenerCount('SIGINT'), before.int);
    assert.equal(process.listenerCount('SIGTERM'), before.term);
    const signal = io.stopSignal;
    assert.equal(io.stopSignal, signal, 'one promise, however often it is read');
    assert.equal(process.listenerCount('SIGINT'), before.int + 1);
    assert.equal(process.listenerCount('SIGTERM'), before.term + 1);
    // Leave the process as we found it.
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      const added = process.listeners(sig).at(-1) as (...args: unknown[]) => void;
      process.off(sig, added);
    }
  });

  it('ioThreads sets UV_THREADPOOL_SIZE for the pool to come, unless the user has set it', () => {
    const before = process.env.UV_THREADPOOL_SIZE;
    try {
      delete process.env.UV_THREADPOOL_SIZE;
      nodeIo().ioThreads!(1);
      assert.equal(process.env.UV_THREADPOOL_SIZE, '1');
      process.env.UV_THREADPOOL_SIZE = '6';
      nodeIo().ioThreads!(1);
      assert.equal(process.env.UV_THREADPOOL_SIZE, '6');
    } finally {
      if (before === undefined) delete process.env.UV_THREADPOOL_SIZE;
      else process.env.UV_THREADPOOL_SIZE = before;
    }
  });
});
