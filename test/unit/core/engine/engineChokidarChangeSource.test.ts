import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Disposable } from '../../../../src/core/changeSource';
import { chokidarChangeSource } from '../../../../src/platform/chokidarChangeSource';

describe('engine: chokidar change source', () => {
  let root: string;
  let watch: Disposable | undefined;
  beforeEach(async () => {
    root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-chokidar-')));
  });
  // In a hook, so a test that times out still closes its watcher (and mocha can exit).
  afterEach(async () => {
    await watch?.dispose();
    watch = undefined;
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('reports transcripts down to <session>/subagents/, in folders created after the watch began', async () => {
    const projects = path.join(root, 'projects');
    const agent = path.join(projects, '-w', 's1', 'subagents', 'agent-x.jsonl');
    const seen: string[] = [];
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    let arrived!: () => void;
    const agentSeen = new Promise<void>((r) => (arrived = r));
    watch = chokidarChangeSource({ onReady: () => ready() }).watch([projects], (p) => {
      seen.push(p);
      if (p === agent) arrived();
    });
    await isReady;
    await fsp.mkdir(path.dirname(agent), { recursive: true });
    await fsp.writeFile(agent, '{}\n');
    await agentSeen;
    assert.ok(seen.includes(agent));
  });
});
