import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Disposable } from '../../../src/core/changeSource';
import { chokidarChangeSource, isWatchedFile } from '../../../src/platform/chokidarChangeSource';

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

describe('engine: chokidar change source over many files', () => {
  let root: string;
  let watch: Disposable | undefined;
  const realWatch = fs.watch;
  beforeEach(async () => {
    root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-chokidar-many-')));
  });
  afterEach(async () => {
    (fs as { watch: typeof fs.watch }).watch = realWatch;
    await watch?.dispose();
    watch = undefined;
    await fsp.rm(root, { recursive: true, force: true });
  });

  /** Watches `folders`, resolves once ready; `seen` gets every path reported. */
  async function watchReady(folders: string[], seen: string[]): Promise<void> {
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    watch = chokidarChangeSource({ onReady: () => ready() }).watch(folders, (p) => seen.push(p));
    await isReady;
  }

  async function until(test: () => boolean): Promise<void> {
    while (!test()) await new Promise((r) => setTimeout(r, 5));
  }

  it('reports a write to a transcript while the channel folder does not exist yet, and files in that folder once made', async () => {
    const projects = path.join(root, 'projects');
    const channel = path.join(root, 'transcript-lag');
    const transcript = path.join(projects, '-w', 's1.jsonl');
    await fsp.mkdir(path.dirname(transcript), { recursive: true });
    await fsp.writeFile(transcript, '{}\n');
    const seen: string[] = [];
    await watchReady([projects, channel], seen);
    await fsp.appendFile(transcript, '{}\n');
    await until(() => seen.includes(transcript));
    const channelFile = path.join(channel, 's1.jsonl');
    await fsp.mkdir(channel);
    await fsp.writeFile(channelFile, '{}\n');
    await until(() => seen.includes(channelFile));
  });

  it('holds a watch per folder, not one per transcript, and still reports each transcript written', async () => {
    const projects = path.join(root, 'projects');
    const folder = path.join(projects, '-w');
    await fsp.mkdir(folder, { recursive: true });
    const files = Array.from({ length: 60 }, (_, i) => path.join(folder, `s${i}.jsonl`));
    for (const f of files) await fsp.writeFile(f, '{}\n');
    const watched: string[] = [];
    (fs as { watch: unknown }).watch = (p: fs.PathLike, ...rest: unknown[]) => {
      watched.push(String(p));
      return (realWatch as (...a: unknown[]) => fs.FSWatcher)(p, ...rest);
    };
    const seen: string[] = [];
    await watchReady([projects], seen);
    assert.ok(watched.length <= 3, `fs.watch called for ${watched.length} paths: ${watched.slice(0, 5).join(', ')}…`);
    for (const f of [files[0], files[59]]) {
      await fsp.appendFile(f, '{}\n');
      await until(() => seen.includes(f));
    }
  });
});
