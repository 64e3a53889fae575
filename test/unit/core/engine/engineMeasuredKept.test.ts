import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { TranscriptLagEngine, type EngineOptions, type MeasuredKeeping } from '../../../../src/core/engine';
import { parseChannelLine } from '../../../../src/core/channel/reader';
import type { MeasuredEvent } from '../../../../src/core/channel/schema';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { appendChannelLines } from '../../../../src/rules/channelWriter';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolResultRecord, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

const S = 'a1b2c3d4-0000-4000-8000-00000000m3a5';

/** The production write: the hook's own append (src/rules/channelWriter.ts). */
const keeping: MeasuredKeeping = { append: async (dir, sessionId, events) => appendChannelLines(dir, sessionId, events) };

/**
 * What an engine measured outlives it (issue 43): a call whose record it read live gets, in a later
 * engine on the same files (a reload, a new window), the same lag and shape, read back from the
 * session's channel file, where that engine alone could measure nothing.
 */
describe('engine: measured lags kept in the channel and read back', () => {
  let fx: ClaudeDirFixture;
  let clock: ManualClock;
  const engines: TranscriptLagEngine[] = [];

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    clock = new ManualClock(Date.now());
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.dispose();
    await fx.remove();
  });

  async function startEngine(extra: Partial<EngineOptions> = {}, events: EngineEvent[] = []): Promise<TranscriptLagEngine> {
    const engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock, ...extra });
    engines.push(engine);
    engine.onEvent((e) => events.push(e));
    await engine.start();
    await engine.indexed();
    return engine;
  }

  /** The channel's `measured` lines, parsed by the engine's own reader (so each is a valid event). */
  function measuredLines(): MeasuredEvent[] {
    const file = fx.channelPath(S);
    if (!fs.existsSync(file)) return [];
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"event":"measured"'))
      .map((l) => {
        const parsed = parseChannelLine(l);
        assert.ok(parsed.kind === 'event' && parsed.event.event === 'measured', `a valid channel event: ${l}`);
        return parsed.event;
      });
  }

  /** A session whose transcript exists, a call fired at `firedAt`, its record appended `lagMs` later and read then. */
  async function measureLive(engine: TranscriptLagEngine, id: string, lagMs: number, withResult = false): Promise<void> {
    const t = fx.transcriptPath(S);
    await fx.append(fx.channelPath(S), [preLine(S, t, id, clock.now())]);
    await engine.tick();
    clock.advance(lagMs);
    await fx.append(t, withResult ? [toolUseRecord(S, fx.workspace, id), toolResultRecord(S, fx.workspace, id)] : [toolUseRecord(S, fx.workspace, id)]);
    await engine.tick();
    clock.advance(50);
    if (!withResult) await fx.append(t, [toolResultRecord(S, fx.workspace, id)]);
    await engine.tick();
  }

  it('a new engine on the same files gives the measured lag and shape, marked read back; the first engine kept one line per call', async () => {
    await fx.append(fx.transcriptPath(S), [userPrompt(S, fx.workspace)]);
    const first = await startEngine({ measured: keeping });
    await measureLive(first, 'toolu_before', 700);
    await measureLive(first, 'toolu_with', 1200, true);
    const live = first.session(S)!;
    const liveCall = (id: string) => live.recent.find((c) => c.tool_use_id === id)!;
    assert.equal(liveCall('toolu_before').lag_ms, 700);
    assert.equal(liveCall('toolu_before').shape, 'before_result');
    assert.equal(liveCall('toolu_with').lag_ms, 1200);
    assert.equal(liveCall('toolu_with').shape, 'with_result');
    assert.equal(liveCall('toolu_before').read_back, undefined, 'measured by this engine');
    const kept = measuredLines();
    assert.deepEqual(
      kept.map((m) => [m.tool_use_id, m.lag_ms, m.shape, m.line, m.source]),
      [
        ['toolu_before', 700, 'before_result', 2, 'transcript-lag-engine'],
        ['toolu_with', 1200, 'with_result', 4, 'transcript-lag-engine'],
      ],
    );
    await first.dispose();

    // A reload: a new engine, later, without a writer even (reading back needs none).
    clock.advance(60_000);
    const events: EngineEvent[] = [];
    const second = await startEngine({}, events);
    const snap = second.session(S)!;
    const call = (id: string) => snap.recent.find((c) => c.tool_use_id === id)!;
    assert.equal(call('toolu_before').lag_ms, 700);
    assert.equal(call('toolu_before').shape, 'before_result');
    assert.equal(call('toolu_before').read_back, true);
    assert.equal(call('toolu_before').observed_at, liveCall('toolu_before').observed_at, 'on disk when the kept read found it, not when history was indexed');
    assert.equal(call('toolu_with').lag_ms, 1200);
    assert.equal(call('toolu_with').shape, 'with_result');
    assert.equal(call('toolu_with').read_back, true);
    assert.deepEqual([snap.stats.lag_p50_ms, snap.stats.lag_max_ms], [live.stats.lag_p50_ms, live.stats.lag_max_ms]);
    assert.deepEqual([snap.stats.shape_before_result, snap.stats.shape_with_result, snap.stats.shape_unknown], [1, 1, 0]);
    assert.equal(events.filter((e) => e.event === 'written').length, 0, 'history brings no call events');
  });

  it('a reloaded engine with a writer keeps nothing again for history, and keeps its own live reads', async () => {
    await fx.append(fx.transcriptPath(S), [userPrompt(S, fx.workspace)]);
    const first = await startEngine({ measured: keeping });
    await measureLive(first, 'toolu_1', 300);
    await first.dispose();
    const second = await startEngine({ measured: keeping });
    await second.tick();
    assert.equal(measuredLines().length, 1, 'history is not measured again');
    await measureLive(second, 'toolu_2', 450);
    assert.deepEqual(
      measuredLines().map((m) => [m.tool_use_id, m.lag_ms]),
      [
        ['toolu_1', 300],
        ['toolu_2', 450],
      ],
    );
    // Its own line read back changes nothing: the call stays this engine's measurement.
    await second.tick();
    const own = second.session(S)!.recent.find((c) => c.tool_use_id === 'toolu_2')!;
    assert.equal(own.lag_ms, 450);
    assert.equal(own.read_back, undefined);
    assert.equal(second.session(S)!.recent.find((c) => c.tool_use_id === 'toolu_1')!.read_back, true);
  });

  it('a transcript rewritten since: the record is elsewhere, the measurement is dropped (lag unknown, shape unknown)', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const first = await startEngine({ measured: keeping });
    await measureLive(first, 'toolu_r', 800);
    assert.equal(measuredLines().length, 1);
    await first.dispose();
    // Truncated and written again: the same call, one line later than when it was measured.
    await fsp.truncate(t, 0);
    await fx.append(t, [userPrompt(S, fx.workspace), userPrompt(S, fx.workspace, 'and again'), toolUseRecord(S, fx.workspace, 'toolu_r'), toolResultRecord(S, fx.workspace, 'toolu_r')]);
    const second = await startEngine();
    const call = second.session(S)!.recent.find((c) => c.tool_use_id === 'toolu_r')!;
    assert.equal(call.lag_ms, null);
    assert.equal(call.shape, 'unknown');
    assert.equal(call.read_back, undefined);
  });

  it('the same line but other bytes (a record rewritten longer): dropped too', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const first = await startEngine({ measured: keeping });
    await measureLive(first, 'toolu_b', 800);
    await first.dispose();
    await fsp.truncate(t, 0);
    await fx.append(t, [userPrompt(S, fx.workspace, 'a longer prompt than the first one was'), toolUseRecord(S, fx.workspace, 'toolu_b'), toolResultRecord(S, fx.workspace, 'toolu_b')]);
    const second = await startEngine();
    const call = second.session(S)!.recent.find((c) => c.tool_use_id === 'toolu_b')!;
    assert.equal(call.line, 2, 'the record on the line it was measured on');
    assert.equal(call.lag_ms, null);
    assert.equal(call.read_back, undefined);
  });

  it('two engines on one session: one that reads the other\'s line first keeps none; two that race both keep, and every reader takes the earliest', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const clockB = new ManualClock(clock.now());
    const a = await startEngine({ measured: keeping });
    const b = await startEngine({ measured: keeping, clock: clockB });

    // A reads the record first and keeps it; B polls after: its channel read comes first, so it takes A's.
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_seq', clock.now())]);
    await a.tick();
    await b.tick();
    clock.advance(500);
    clockB.advance(520);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_seq'), toolResultRecord(S, fx.workspace, 'toolu_seq')]);
    await a.tick();
    await b.tick();
    assert.deepEqual(measuredLines().map((m) => m.tool_use_id), ['toolu_seq'], 'one line: B found A\'s before it would keep its own');
    const bSeq = b.session(S)!.recent.find((c) => c.tool_use_id === 'toolu_seq')!;
    assert.equal(bSeq.lag_ms, 500, "B says A's earlier read");
    assert.equal(bSeq.read_back, true);

    // A race: both read the record before either's line is read (B's read 30 ms later than A's).
    const fired = clock.now();
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_race', fired)]);
    await a.tick();
    await b.tick();
    clock.advance(600);
    clockB.advance(630);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_race')]);
    // Each reads its transcripts without the other's line (the channel is read before the transcripts).
    await Promise.all([a.tick(), b.tick()]);
    const raced = measuredLines().filter((m) => m.tool_use_id === 'toolu_race');
    assert.equal(raced.length, 2, 'both kept their read');
    const bEvents: EngineEvent[] = [];
    b.onEvent((e) => bEvents.push(e));
    await a.tick();
    await b.tick();
    const lagOf = (e: TranscriptLagEngine) => e.session(S)!.recent.find((c) => c.tool_use_id === 'toolu_race')!.lag_ms;
    assert.equal(lagOf(a), 600);
    assert.equal(lagOf(b), 600, "B takes A's earlier read once it reads it");
    assert.ok(bEvents.some((e) => e.event === 'joined' && e.tool_use_id === 'toolu_race' && e.lag_ms === 600), 'and says so');
    await a.dispose();
    await b.dispose();
    const later = await startEngine();
    const call = later.session(S)!.recent.find((c) => c.tool_use_id === 'toolu_race')!;
    assert.equal(call.lag_ms, 600, 'the earliest of the two, whatever their order in the file');
    assert.equal(call.read_back, true);
  });

  it('a call no hook reported is not kept: no channel file is made for a session without hooks', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const engine = await startEngine({ measured: keeping });
    clock.advance(100);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_nohook')]);
    await engine.tick();
    assert.equal(engine.session(S)!.recent[0].shape, 'before_result');
    assert.equal(fs.existsSync(fx.channelPath(S)), false);
  });

  it('a hook report that comes after the record (joined): the read is kept then, with its lag', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const engine = await startEngine({ measured: keeping });
    const fired = clock.now();
    clock.advance(900);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_late')]);
    await engine.tick();
    clock.advance(100);
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_late', fired)]);
    await engine.tick();
    assert.deepEqual(measuredLines().map((m) => [m.tool_use_id, m.lag_ms]), [['toolu_late', 900]]);
    await engine.dispose();
    const later = await startEngine();
    assert.equal(later.session(S)!.recent[0].lag_ms, 900);
  });
});
