import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangeSource } from '../../../../src/core/changeSource';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import type { FileAccess } from '../../../../src/core/fileAccess';
import { TranscriptLagEngine, type EngineOptions } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { nodeSpoolFolding } from '../../../../src/rules/nodeSpoolFolding';
import type { SpoolFolding } from '../../../../src/rules/spoolFold';
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

  describe('an append refused (issue 30: a group-writable or hard-linked channel file, a full disk)', () => {
    const S2 = 'a1b2c3d4-0000-4000-8000-00000000005b';
    async function spoolOf(session: string, instance: string, seq: number, event: object): Promise<string> {
      await fsp.mkdir(spoolDir(), { recursive: true });
      const p = path.join(spoolDir(), `${session}.${instance}.${String(seq).padStart(8, '0')}.json`);
      await fsp.writeFile(p, JSON.stringify(event));
      return p;
    }
    /** The real folding, counting its calls, and telling the engine of every rename as a file watcher does (the name a claim frees, the name a put-back makes). */
    function watchedFolding(notify: () => ((p: string) => void) | undefined) {
      const counts = { claims: 0, appends: 0, unclaims: 0 };
      const ops: SpoolFolding = {
        claim: async (p, at) => {
          counts.claims++;
          const claimed = await nodeSpoolFolding.claim(p, at);
          notify()?.(p);
          return claimed;
        },
        unclaim: async (claimed, p) => {
          counts.unclaims++;
          await nodeSpoolFolding.unclaim(claimed, p);
          notify()?.(p);
        },
        append: async (dir, id, events) => (counts.appends++, nodeSpoolFolding.append(dir, id, events)),
        remove: (p) => nodeSpoolFolding.remove(p),
      };
      return { ops, counts };
    }

    it('puts the files back and is not tried again on the change that causes: no loop; the next poll tries one file; once fixed, every event folds once, in order', async () => {
      let notify: ((p: string) => void) | undefined;
      const changes: ChangeSource = { watch: (_folders, onChange) => ((notify = onChange), { dispose: () => undefined }) };
      const { ops, counts } = watchedFolding(() => notify);
      const t = await startEngine({ changes, spool: ops });
      // A channel file others may write: the append is refused (the hook's own rule, isOwnChannelFile).
      await fsp.writeFile(fx.channelPath(S), '');
      await fsp.chmod(fx.channelPath(S), 0o664);
      for (let i = 1; i <= 5; i++) await spoolOf(S, '0000000e', i, modPre(t, `toolu_r${i}`, clock.now() + i));
      const held = new Promise<void>((resolve) => engine.onEvent((e) => e.event === 'held' && e.tool_use_id === 'toolu_r5' && resolve()));
      await engine.tick();
      // Every put-back notified the engine: before the fix each one folded again, for ever.
      for (let i = 0; i < 20 && counts.unclaims < 5; i++) await new Promise((r) => setImmediate(r));
      const settle = async () => {
        for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      };
      await settle();
      assert.equal(counts.appends, 1, 'one append for the session\'s five events, refused');
      assert.equal(counts.claims, 5);
      assert.equal(fs.readdirSync(spoolDir()).length, 5);
      // The next poll tries the refused session again, with one file.
      clock.advance(1000);
      await engine.tick();
      await settle();
      assert.equal(counts.appends, 2);
      assert.equal(counts.claims, 6);
      assert.equal(fs.readFileSync(fx.channelPath(S), 'utf8'), '');
      // Fixed: the next poll's file goes through, and the drain folds the rest at once.
      await fsp.chmod(fx.channelPath(S), 0o600);
      clock.advance(1000);
      await engine.tick();
      await held;
      await settle();
      const ids = fs.readFileSync(fx.channelPath(S), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).tool_use_id);
      assert.deepEqual(ids, ['toolu_r1', 'toolu_r2', 'toolu_r3', 'toolu_r4', 'toolu_r5']);
      assert.deepEqual(fs.readdirSync(spoolDir()), []);
    });

    it('a session whose appends are refused does not hold up another\'s events: the budget goes round the sessions', async () => {
      const t = await startEngine();
      const t2 = fx.transcriptPath(S2);
      await fx.append(t2, [userPrompt(S2, fx.workspace)]);
      // S sorts first and has more files than one fold reads; its channel file is a hard link (a backup tool's).
      await fsp.writeFile(fx.channelPath(S), '');
      await fsp.link(fx.channelPath(S), path.join(fx.root, 'backup.jsonl'));
      for (let i = 1; i <= 2100; i++) await spoolOf(S, '0000000f', i, modPre(t, `toolu_s${i}`, clock.now()));
      await spoolOf(S2, '00000010', 1, { ...preLine(S2, t2, 'toolu_other', clock.now()), transport: 'mod', source: 'transcript-lag-mod' });
      clock.advance(100);
      await engine.tick();
      // Folded by the first poll (before: the budget went to S's files, each pass, until they expired).
      assert.equal(JSON.parse(fs.readFileSync(fx.channelPath(S2), 'utf8')).tool_use_id, 'toolu_other');
      clock.advance(100);
      await engine.tick();
      assert.deepEqual(engine.session(S2)?.held.map((h) => h.tool_use_id), ['toolu_other']);
      assert.equal(fs.readFileSync(fx.channelPath(S), 'utf8'), '');
      assert.equal(fs.readdirSync(spoolDir()).length, 2100);
    });

    it('a stop never waits on a fold: dispose() ends while an append has not returned', async () => {
      let appendStarted!: () => void;
      const started = new Promise<void>((resolve) => (appendStarted = resolve));
      const hung: SpoolFolding = { ...nodeSpoolFolding, append: () => (appendStarted(), new Promise<boolean>(() => undefined)) };
      const t = await startEngine({ spool: hung });
      await spoolOf(S, '00000011', 1, modPre(t, 'toolu_h', clock.now()));
      const ticking = engine.tick();
      await started;
      await engine.dispose();
      await ticking;
    });
  });
});
