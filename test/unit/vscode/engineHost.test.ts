import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { TranscriptLagEngine, type EngineOptions } from '../../../src/core/engine';
import type { EngineEvent } from '../../../src/core/engineEvents';
import type { FileAccess } from '../../../src/core/fileAccess';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { CLAUDE_DIR_POLL_MS, EngineHost, TICK_INTERVAL_MS, type HostLog } from '../../../src/vscode/engineHost';
import type { ExtensionSettings } from '../../../src/vscode/settings';
import { ClaudeDirFixture, preLine, toolUseRecord, userPrompt } from '../helpers/engineFixture';
import { FaultyFileAccess } from '../helpers/faultyFileAccess';
import { GatedFileAccess } from '../helpers/gatedFileAccess';
import { ManualClock } from '../helpers/manualClock';

// The extension's engine lifecycle without VS Code: real engine, real temp
// files, a manual clock for its timers (no sleeping).
describe('vscode: engine host', () => {
  let fx: ClaudeDirFixture;
  let stats: string[];
  let engines: TranscriptLagEngine[];
  let ticks: number;
  let disposed: number;
  const log: HostLog & { lines: string[] } = {
    lines: [],
    info(m) { this.lines.push(m); },
    warn(m) { this.lines.push(m); },
    error(m) { this.lines.push(m); },
  };
  const settings = (over: Partial<ExtensionSettings> = {}): ExtensionSettings => ({
    claudeDir: fx.claudeDir, sessions: 'workspace', warnAfterMs: 2000, probePolls: 50, probePollMs: 100, recentCalls: 20, channelRetentionDays: 7, metricsPort: 0, metricsHost: '127.0.0.1', ...over,
  });
  /** Counts stats: the whole cost of a window without Claude Code. */
  const countingFiles = (): FileAccess => ({
    ...nodeFileAccess,
    stat: (p) => {
      stats.push(p);
      return nodeFileAccess.stat(p);
    },
  });

  function makeHost(s: ExtensionSettings, clock: ManualClock, files = countingFiles(), onEvent: (e: EngineEvent) => void = () => undefined) {
    return new EngineHost(
      {
        log,
        files,
        clock,
        createEngine: async (opts: EngineOptions) => {
          const e = new TranscriptLagEngine(opts);
          const tick = e.tick.bind(e);
          e.tick = () => {
            ticks++;
            return tick();
          };
          const dispose = e.dispose.bind(e);
          e.dispose = () => {
            disposed++;
            return dispose();
          };
          engines.push(e);
          return e;
        },
        claudeDirOfSetting: (setting) => setting,
        workspaceFolders: () => [fx.workspace],
        onEvent,
        onChanged: () => undefined,
      },
      s,
    );
  }

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    stats = [];
    engines = [];
    ticks = 0;
    disposed = 0;
    log.lines = [];
  });
  afterEach(() => fx.remove());

  it('without a Claude dir costs one stat per poll and builds no engine until the dir appears', async () => {
    const missing = path.join(fx.root, 'not-yet');
    const clock = new ManualClock(1_000_000);
    const host = makeHost(settings({ claudeDir: missing }), clock);
    await host.start();
    assert.deepEqual(stats, [missing]);
    assert.equal(engines.length, 0);
    assert.equal(host.current(), undefined);
    assert.equal(clock.pending(), 1, 'one poll timer, nothing else');

    clock.advance(CLAUDE_DIR_POLL_MS);
    await host.tick(); // settles the poll's queued start
    assert.deepEqual(stats, [missing, missing]);
    assert.equal(engines.length, 0);
    assert.equal(log.lines.filter((l) => l.startsWith('No Claude dir')).length, 1, 'said once, not every poll');

    // An explicit start while waiting replaces the pending poll instead of adding one.
    await host.start();
    assert.deepEqual(stats, [missing, missing, missing]);
    assert.equal(clock.pending(), 1);

    await fsp.mkdir(path.join(missing, 'projects'), { recursive: true });
    const transcript = path.join(missing, 'projects', path.basename(path.dirname(fx.transcriptPath('s'))), 's.jsonl');
    await fx.append(transcript, [userPrompt('s', fx.workspace)]);
    clock.advance(CLAUDE_DIR_POLL_MS);
    await host.tick();
    assert.equal(engines.length, 1);
    assert.equal(host.currentClaudeDir(), missing);
    // A session is listed once its history is indexed, which goes on after ready.
    await host.current()!.indexed();
    assert.deepEqual(host.sessions().map((s) => s.session_id), ['s']);
    await host.stop();
  });

  it('says the history is indexed only once the running engine indexed it, or when there is no Claude dir to follow', async () => {
    const clock = new ManualClock(1_000_000);
    const waiting = makeHost(settings({ claudeDir: path.join(fx.root, 'not-yet') }), clock);
    assert.equal(waiting.historyIndexed(), false, 'not started: sessions may still come');
    await waiting.start();
    assert.equal(waiting.historyIndexed(), true, 'no Claude dir: no session will come');
    await waiting.stop();

    await fx.append(fx.transcriptPath('s-hist'), [userPrompt('s-hist', fx.workspace)]);
    const host = makeHost(settings(), clock);
    await host.start();
    await engines[0]!.indexed();
    await host.tick();
    assert.equal(host.historyIndexed(), true);
    // A new Claude dir: a new engine, whose history is not indexed until it says so.
    const other = await ClaudeDirFixture.create();
    try {
      await host.applySettings(settings({ claudeDir: other.claudeDir }));
      assert.notEqual(host.current(), engines[0]);
      await engines[1]!.indexed();
      await host.tick();
      assert.equal(host.historyIndexed(), true);
    } finally {
      await host.stop();
      await other.remove();
    }
  });

  it('logs a warning when the limit on open files stops the engine reading', async () => {
    const t = fx.transcriptPath('s');
    await fx.append(t, [userPrompt('s', fx.workspace)]);
    await fx.append(fx.channelPath('s'), [preLine('s', t, 'toolu_fd', Date.now())]);
    const files = new FaultyFileAccess();
    files.limitOpenHandles(0, 'ENFILE');
    const host = makeHost(settings(), new ManualClock(Date.now()), files);
    await host.start();
    assert.ok(log.lines.some((l) => /^too many open files \(ENFILE\): could not open /.test(l)), log.lines.join('\n'));
    await host.stop();
  });

  it('polls on a timer, one tick at a time, and reads new sessions', async () => {
    const clock = new ManualClock(1_000_000);
    const host = makeHost(settings(), clock);
    await host.start();
    assert.equal(engines.length, 1);
    assert.equal(clock.pending(), 1);
    await fx.append(fx.transcriptPath('s2'), [userPrompt('s2', fx.workspace)]);
    clock.advance(TICK_INTERVAL_MS);
    assert.equal(ticks, 1);
    await host.tick(); // waits for the timer's tick, then one more
    assert.equal(ticks, 2);
    assert.equal(clock.pending(), 1, 'the loop rescheduled itself exactly once');
    assert.deepEqual(host.sessions().map((s) => s.session_id), ['s2']);
    await host.stop();
    assert.equal(clock.pending(), 0);
    assert.equal(disposed, 1);
  });

  it('starts without waiting for the history to be indexed; records appended after reach the views', async () => {
    const t = fx.transcriptPath('s4');
    await fx.append(t, [userPrompt('s4', fx.workspace)]);
    const gate = new GatedFileAccess((p) => p === t, 0);
    const events: EngineEvent[] = [];
    const host = makeHost(settings(), new ManualClock(Date.now()), gate, (e) => events.push(e));
    try {
      // Were the host to wait for the history, start() would wait at the gate for ever (the test times out).
      await host.start();
      assert.equal(gate.readEnds.get(t) ?? 0, 0, 'no byte of the history read yet');
      assert.match(log.lines.join('\n'), /1 transcripts, [0-9.]+ MiB of history to index/);
      await fx.append(t, [toolUseRecord('s4', fx.workspace, 'toolu_after_start')]);
      gate.release();
      await host.current()?.indexed();
      assert.deepEqual(events.filter((e) => e.event === 'written').map((e) => e.event === 'written' && e.tool_use_id), ['toolu_after_start']);
      assert.deepEqual(host.sessions().map((x) => x.session_id), ['s4']);
    } finally {
      gate.release();
      await host.stop();
    }
  });

  it('rebuilds the engine when the Claude dir setting changes, and only reconfigures for other settings', async () => {
    const clock = new ManualClock(1_000_000);
    const host = makeHost(settings(), clock);
    await host.start();
    await host.applySettings(settings({ recentCalls: 5 }));
    assert.equal(engines.length, 1);

    const other = await ClaudeDirFixture.create();
    try {
      await other.append(other.transcriptPath('s3', fx.workspace), [userPrompt('s3', fx.workspace)]);
      await host.applySettings(settings({ claudeDir: other.claudeDir }));
      assert.equal(engines.length, 2);
      assert.equal(disposed, 1);
      assert.equal(host.currentClaudeDir(), other.claudeDir);
      await host.current()?.indexed();
      assert.deepEqual(host.sessions().map((s) => s.session_id), ['s3']);
      assert.equal(clock.pending(), 1, 'one tick loop, the new engine\'s');
      await host.stop();
    } finally {
      await other.remove();
    }
  });

  it('applies a shorter channel retention at the next tick, without restarting the engine', async () => {
    const clock = new ManualClock(10 * 3600 * 1000);
    const removed: string[] = [];
    const channel = path.join(fx.claudeDir, 'transcript-lag', 'd0000000-0000-4000-8000-00000000000a.jsonl');
    await fx.append(channel, [{ v: 1 }]);
    await fsp.utimes(channel, new Date(0), new Date(0)); // 10 h old by the scheduler's clock: idle, not followed
    const host = makeHost(settings(), clock);
    const create = (host as unknown as { deps: { createEngine: (o: EngineOptions) => Promise<TranscriptLagEngine> } }).deps;
    const plain = create.createEngine;
    create.createEngine = (o) => plain({ ...o, removeFile: async (p) => void removed.push(p) });
    await host.start();
    assert.deepEqual(removed, [], 'a week of retention keeps it');
    await host.applySettings(settings({ channelRetentionDays: 1 / 24 })); // an hour
    await host.tick();
    assert.deepEqual(removed, [channel]);
    assert.equal(engines.length, 1, 'reconfigured, not rebuilt');
    await host.stop();
  });
});
