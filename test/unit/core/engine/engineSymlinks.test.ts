import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import type { FileAccess } from '../../../../src/core/fileAccess';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

const S = 'a1b2c3d4-0000-4000-8000-0000000000e1';

describe('TranscriptLagEngine and symlinks', () => {
  let fx: ClaudeDirFixture;
  let clock: ManualClock;
  let engine: TranscriptLagEngine | undefined;
  let events: EngineEvent[];
  let opened: string[];

  /** The real file system, noting every path opened. */
  const recording: FileAccess = {
    ...nodeFileAccess,
    open: (p) => {
      opened.push(p);
      return nodeFileAccess.open(p);
    },
  };

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    clock = new ManualClock(Date.now());
    events = [];
    opened = [];
  });
  afterEach(async () => {
    await engine?.dispose();
    engine = undefined;
    await fx.remove();
  });

  async function start(claudeDir: string): Promise<void> {
    engine = new TranscriptLagEngine({ claudeDir, workspaceFolders: [fx.workspace], scope: 'all', files: recording, clock });
    engine.onEvent((e) => events.push(e));
    await engine.start();
    await engine.indexed();
  }

  it('never opens a file outside projects/ that a symlinked project folder leads to, whether listed or named by a hook event', async () => {
    const outside = path.join(fx.root, 'outside');
    const secret = path.join(outside, `${S}.jsonl`);
    await fx.append(secret, [userPrompt(S, fx.workspace)]);
    await fsp.symlink(outside, path.join(fx.claudeDir, 'projects', 'evil'));
    await start(fx.claudeDir);

    await fx.append(fx.channelPath(S), [preLine(S, path.join(fx.claudeDir, 'projects', 'evil', `${S}.jsonl`), 'toolu_1', clock.now())]);
    clock.advance(50);
    await engine!.tick();
    await fx.append(secret, [toolUseRecord(S, fx.workspace, 'toolu_1')]);
    clock.advance(50);
    await engine!.tick();

    const openedOutside = opened.filter((p) => p.includes(`${path.sep}evil${path.sep}`) || p.startsWith(outside));
    assert.deepEqual(openedOutside, []);
    assert.deepEqual(events.filter((e) => e.event === 'written'), []);
  });

  for (const [what, configured, named] of [
    ['the Claude dir is configured through a symlink, hook events name its real path', 'link', 'real'],
    ['the Claude dir is configured by its real path, hook events name a symlink to it', 'real', 'link'],
  ] as const) {
    it(`joins hook events to transcripts when ${what}`, async () => {
      const link = path.join(fx.root, 'claude-link');
      await fsp.symlink(fx.claudeDir, link);
      const dirOf = (which: 'link' | 'real') => (which === 'link' ? link : fx.claudeDir);
      const transcriptIn = (dir: string) => path.join(dir, path.relative(fx.claudeDir, fx.transcriptPath(S)));
      await fx.append(fx.transcriptPath(S), [userPrompt(S, fx.workspace)]);
      await start(dirOf(configured));

      const fired = clock.now();
      await fx.append(fx.channelPath(S), [preLine(S, transcriptIn(dirOf(named)), 'toolu_1', fired)]);
      clock.advance(40);
      await engine!.tick();
      await fx.append(fx.transcriptPath(S), [toolUseRecord(S, fx.workspace, 'toolu_1')]);
      clock.advance(60);
      await engine!.tick();

      const seq = events.filter((e) => 'tool_use_id' in e && e.tool_use_id === 'toolu_1');
      assert.deepEqual(seq.map((e) => e.event), ['held', 'written']);
      const written = seq[1];
      assert.ok(written.event === 'written');
      assert.equal(written.lag_ms, 100);
      // Named as the engine names the file: under the Claude dir as configured.
      assert.equal(written.transcript_path, transcriptIn(dirOf(configured)));
      assert.equal(engine!.sessions().length, 1);
      assert.equal(engine!.sessions()[0].stats.held_now, 0);
    });
  }
});
