import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { fixturesDir } from '../../helpers/fixtures';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, toolResultRecord, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

/**
 * `claude -p --resume <parent> --fork-session` (Claude Code 2.1.332, test/fixtures/real/print-fork):
 * the fork's first write copies the parent's conversation, with the parent's tool_use ids, and the
 * copied assistant records carry `requestSessionId: <parent>`. Replayed write by write as the
 * recorder saw them reach disk (writes.log), with the hook's channel files: the copies are the
 * parent's history, the fork's own call is reported as usual.
 */
const dir = path.join(fixturesDir, 'real', 'print-fork');
const PARENT = 'b4e672aa-3347-44eb-a27c-535072cbd17a';
const FORK = 'c2b98376-5e55-4834-8ae1-0f3255e10ec3';
const COPIED = 'toolu_field001b';
const OWN = 'toolu_field002b';
/** Where the fixture's paths point: its sandbox, rewritten to /home/dev/... */
const RECORDED_PROJECT_DIR = '/home/dev/demo-print-fork/home/.claude/projects/-home-dev-demo-print-fork-work';

interface Write {
  at: number;
  first_line: number;
  last_line: number;
}
interface ChannelLine {
  at: number;
  transcript_path: string;
  [k: string]: unknown;
}

const jsonl = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
const linesOf = (sessionId: string) => readFileSync(path.join(dir, `${sessionId}.jsonl`), 'utf8').split('\n').filter(Boolean);

describe('engine: a forked session (real fork, replayed as written)', () => {
  let fx: ClaudeDirFixture;
  let engine: TranscriptLagEngine | undefined;
  let events: EngineEvent[];

  afterEach(async () => {
    await engine?.dispose();
    engine = undefined;
    await fx.remove();
  });

  async function replay(): Promise<void> {
    fx = await ClaudeDirFixture.create();
    events = [];
    const parentLines = linesOf(PARENT);
    const forkLines = linesOf(FORK);
    const cwd = (JSON.parse(forkLines.find((l) => l.includes('"cwd"'))!) as { cwd: string }).cwd;
    const writes = jsonl<Write>(path.join(dir, 'writes.log'));
    // The recording's own times, moved to now: the engine judges activity by the files' mtimes too.
    const clock = new ManualClock(Date.now());
    const shift = clock.now() - writes[0]!.at;
    const pathOf = (id: string) => fx.transcriptPath(id, cwd);
    const channelOf = (id: string) =>
      jsonl<ChannelLine>(path.join(dir, 'transcript-lag', `${id}.jsonl`)).map((e) => ({
        ...e,
        at: e.at + shift,
        ...(typeof e.checked_at === 'number' ? { checked_at: e.checked_at + shift } : {}),
        transcript_path: e.transcript_path.replace(RECORDED_PROJECT_DIR, path.dirname(pathOf(id))),
      }));

    // The parent finished before the fork began: on disk, with its hook's events, when watching starts.
    await fx.appendRaw(pathOf(PARENT), parentLines.map((l) => `${l}\n`).join(''));
    await fx.append(fx.channelPath(PARENT), channelOf(PARENT));
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [cwd], scope: 'workspace', files: nodeFileAccess, clock });
    engine.onEvent((e) => events.push(e));
    await engine.start();

    const forkChannel = channelOf(FORK);
    let sent = 0;
    for (const w of writes) {
      const at = w.at + shift;
      // The hook's events that reached the channel before this write did.
      const due = forkChannel.slice(sent).filter((e) => e.at <= at);
      if (due.length) await fx.append(fx.channelPath(FORK), due);
      sent += due.length;
      await fx.appendRaw(pathOf(FORK), forkLines.slice(w.first_line - 1, w.last_line).map((l) => `${l}\n`).join(''));
      clock.advance(at - clock.now());
      await engine.tick();
    }
    if (sent < forkChannel.length) await fx.append(fx.channelPath(FORK), forkChannel.slice(sent));
    clock.advance(1000);
    await engine.tick();
  }

  const forkEventsOf = (id: string) => events.filter((e) => e.session_id === FORK && 'tool_use_id' in e && e.tool_use_id === id);

  it('the copied call is history: no written, result or lag of the fork, no shape counted', async () => {
    await replay();
    const copied = forkEventsOf(COPIED);
    assert.deepEqual(
      copied.filter((e) => e.event === 'written' || e.event === 'result' || e.event === 'joined' || e.event === 'held'),
      [],
    );
    const call = engine!.session(FORK)!.recent.find((c) => c.tool_use_id === COPIED)!;
    assert.ok(call, 'indexed, as history');
    assert.equal(call.shape, 'unknown');
    assert.equal(call.lag_ms, null);
    assert.equal(call.lag_bounds, undefined);
    assert.equal(call.with_result, false);
  });

  it("the fork's own call is reported as usual: held, written with its lag, before its result", async () => {
    await replay();
    const own = forkEventsOf(OWN);
    assert.deepEqual(
      own.map((e) => e.event).filter((e) => e === 'held' || e === 'written' || e === 'result'),
      ['held', 'written', 'result'],
    );
    const written = own.find((e) => e.event === 'written')!;
    assert.ok(written.event === 'written');
    const writes = jsonl<Write>(path.join(dir, 'writes.log'));
    const pre = jsonl<ChannelLine>(path.join(dir, 'transcript-lag', `${FORK}.jsonl`)).find((e) => e.event === 'pre')!;
    const landed = writes.find((w) => w.first_line <= written.line && written.line <= w.last_line)!;
    assert.equal(written.line, 33);
    assert.equal(written.lag_ms, landed.at - pre.at);
    assert.equal(written.with_result, false);
    const stats = engine!.session(FORK)!.stats;
    assert.equal(stats.shape_before_result, 1);
    assert.equal(stats.shape_with_result, 0);
    assert.equal(stats.shape_unknown, 1, 'the copy: written, shape unknown');
    assert.equal(stats.lag_max_ms, written.lag_ms);
  });

  it("the parent keeps its own hook evidence; the fork's copy never picks it up", async () => {
    await replay();
    const parentCall = engine!.session(PARENT)!.recent.find((c) => c.tool_use_id === COPIED)!;
    assert.equal(parentCall.shape, 'before_result');
    assert.equal(engine!.session(PARENT)!.stats.shape_before_result, 1);
    const copy = engine!.session(FORK)!.recent.find((c) => c.tool_use_id === COPIED)!;
    assert.equal(copy.fired_at, undefined);
    assert.equal(copy.post_at, undefined);
  });
});

describe('engine: requestSessionId naming the record’s own session', () => {
  it('is no copy: the call is written as usual', async () => {
    const fx = await ClaudeDirFixture.create();
    const clock = new ManualClock(Date.now());
    const S = 'a1b2c3d4-0000-4000-8000-0000000000f0';
    const engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock });
    const events: EngineEvent[] = [];
    engine.onEvent((e) => events.push(e));
    try {
      await engine.start();
      const t = fx.transcriptPath(S);
      await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_own', { requestSessionId: S })]);
      clock.advance(100);
      await engine.tick();
      await fx.append(t, [toolResultRecord(S, fx.workspace, 'toolu_own')]);
      clock.advance(100);
      await engine.tick();
      assert.deepEqual(
        events.filter((e) => 'tool_use_id' in e).map((e) => e.event),
        ['written', 'result'],
      );
      assert.equal(engine.session(S)!.stats.shape_before_result, 1);
    } finally {
      await engine.dispose();
      await fx.remove();
    }
  });
});
