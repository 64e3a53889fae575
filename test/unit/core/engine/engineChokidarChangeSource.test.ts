import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Disposable } from '../../../../src/core/changeSource';
import { chokidarChangeSource, isWatchedFile } from '../../../../src/platform/chokidarChangeSource';

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

  it("reports the mod's spool files as they are written (one .json per event), not other .json files", async () => {
    const channel = path.join(root, 'transcript-lag');
    const spooled = path.join(channel, 'spool', 's1.0000000a.00000001.json');
    const held = path.join(channel, 'held', 's1', 'toolu_1.json');
    await fsp.mkdir(path.dirname(held), { recursive: true });
    const seen: string[] = [];
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    let arrived!: () => void;
    const spoolSeen = new Promise<void>((r) => (arrived = r));
    watch = chokidarChangeSource({ onReady: () => ready() }).watch([channel], (p) => {
      seen.push(p);
      if (p === spooled) arrived();
    });
    await isReady;
    await fsp.writeFile(held, '{}');
    await fsp.mkdir(path.dirname(spooled), { recursive: true });
    await fsp.writeFile(spooled, '{}');
    await spoolSeen;
    assert.ok(!seen.includes(held));
  });

  it('isWatchedFile: transcripts and channel files, spool/*.json; nothing else', () => {
    assert.equal(isWatchedFile('/c/projects/-w/s.jsonl'), true);
    assert.equal(isWatchedFile('/c/transcript-lag/spool/s.0000000a.00000001.json'), true);
    assert.equal(isWatchedFile('/c/transcript-lag/held/s/toolu_1.json'), false);
    assert.equal(isWatchedFile('/c/transcript-lag/spool/s.0000000a.00000001.json.claimed-1-ab'), false);
    assert.equal(isWatchedFile('/c/projects/-w/s/tool-results/x.json'), false);
  });
});
