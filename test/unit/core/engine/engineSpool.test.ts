import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangeSource } from '../../../../src/core/changeSource';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import type { FileAccess } from '../../../../src/core/fileAccess';
import { TranscriptLagEngine, type EngineOptions } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { nodeSpoolFolding } from '../../../../src/platform/spoolFolding';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

const S = 'a1b2c3d4-0000-4000-8000-00000000005a';

describe('TranscriptLagEngine: the mod spool', () => {
  let fx: ClaudeDirFixture;
  let clock: ManualClock;
  let engine: TranscriptLagEngine;
  let events: EngineEvent[];

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    clock = new ManualClock(Date.now());
    events = [];
  });
  afterEach(async () => {
    await engine?.dispose();
    await fx.remove();
  });

  const spoolDir = () => path.join(fx.claudeDir, 'transcript-lag', 'spool');
  async function spool(instance: string, seq: number, event: object): Promise<string> {
    await fsp.mkdir(spoolDir(), { recursive: true });
    const p = path.join(spoolDir(), `${S}.${instance}.${String(seq).padStart(8, '0')}.json`);
    await fsp.writeFile(p, JSON.stringify(event));
    return p;
  }
  const modPre = (t: string, id: string, at: number) => ({ ...preLine(S, t, id, at), transport: 'mod', source: 'transcript-lag-mod' });

  async function startEngine(extra: Partial<EngineOptions> = {}): Promise<string> {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock, spool: nodeSpoolFolding, ...extra });
    engine.onEvent((e) => events.push(e));
    await engine.start();
    await engine.indexed();
    return t;
  }

  it('a tick folds the spool into the channel before reading it: the mod\'s pre wins over the command hook\'s, one call', async () => {
    const t = await startEngine();
    const fired = clock.now();
    // The command hook's line is in the channel first; the mod's pre (fired earlier) waits in the spool.
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_1', fired + 90)]);
    await spool('0000000a', 1, modPre(t, 'toolu_1', fired));
    clock.advance(100);
    await engine.tick();
    assert.deepEqual(fs.readdirSync(spoolDir()), []);
    const channel = fs.readFileSync(fx.channelPath(S), 'utf8').trimEnd().split('\n');
    assert.equal(channel.length, 2);
    assert.equal(JSON.parse(channel[1]).transport, 'mod');
    const held = engine.session(S)!.held;
    assert.equal(held.length, 1);
    assert.equal(held[0].fired_at, fired);
    assert.equal(held[0].transport, 'mod');
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_1')]);
    clock.advance(400);
    await engine.tick();
    const written = events.filter((e) => e.event === 'written');
    assert.equal(written.length, 1);
    assert.ok(written[0].event === 'written' && written[0].transport === 'mod' && written[0].lag_ms === 500);
    assert.equal(events.filter((e) => e.event === 'held').length, 1);
  });

  it('at start, what the mod spooled while nobody watched is folded and known (a held call)', async () => {
    const t = fx.transcriptPath(S);
    const fired = clock.now() - 2000;
    await spool('0000000b', 1, modPre(t, 'toolu_2', fired));
    await startEngine();
    assert.deepEqual(fs.readdirSync(spoolDir()), []);
    const held = engine.session(S)!.held;
    assert.deepEqual(held.map((h) => [h.tool_use_id, h.fired_at, h.transport]), [['toolu_2', fired, 'mod']]);
  });

  it('without spool folding the engine leaves the spool alone', async () => {
    const t = await startEngine({ spool: undefined });
    await spool('0000000c', 1, modPre(t, 'toolu_3', clock.now()));
    await engine.tick();
    assert.equal(fs.readdirSync(spoolDir()).length, 1);
    assert.equal(engine.session(S)?.held.length ?? 0, 0);
  });

  it('a change notification for a spool file folds and reads at once, without a tick', async () => {
    let notify: ((p: string) => void) | undefined;
    const changes: ChangeSource = { watch: (_folders, onChange) => ((notify = onChange), { dispose: () => undefined }) };
    let spoolListings = 0;
    const files: FileAccess = { ...nodeFileAccess, readdir: (dir) => (dir === spoolDir() && spoolListings++, nodeFileAccess.readdir(dir)) };
    const t = await startEngine({ changes, files });
    const p = await spool('0000000d', 1, modPre(t, 'toolu_4', clock.now()));
    const held = new Promise<void>((resolve) => engine.onEvent((e) => e.event === 'held' && resolve()));
    // A claim's name (another folder renaming a file) folds nothing: only a spool file's own name does.
    // (A fold lists the spool at once, before its first wait: the count says whether one started.)
    const listed = spoolListings;
    notify!(`${p}.claimed-1-abcdef12`);
    assert.equal(spoolListings, listed);
    notify!(p);
    assert.equal(spoolListings, listed + 1);
    await held;
    assert.deepEqual(events.filter((e) => e.event === 'held').map((e) => e.event === 'held' && e.transport), ['mod']);
  });
});
