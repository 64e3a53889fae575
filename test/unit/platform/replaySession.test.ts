import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { liveHeldMessage, replaySession, ReplayError, type ReplayedCall, type ReplayRequest } from '../../../src/platform/replaySession';
import { projectHooksRefusal } from '../../../src/platform/replaySettings';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import type { BehaviourTable, MeasuredVersion } from '../../../src/core/compat/claudeCode';
import { fixturesDir } from '../helpers/fixtures';

// The replay as VS Code's command calls it (the CLI's path is test/unit/cli/replay.test.ts): what the
// listener hears, in order, where each call's record lies, and the hooks chosen for it.

const interactiveFixture = path.join(fixturesDir, 'real/interactive-parallel-2000/31fe55b3-cdf5-46f4-87b6-e09ef369569a.jsonl');

function request(over: Partial<ReplayRequest>): ReplayRequest {
  return {
    transcript: interactiveFixture,
    hooks: { command: 'true' },
    timeoutMs: 20_000,
    mod: true,
    env: process.env,
    fallbackCwd: os.tmpdir(),
    files: nodeFileAccess,
    clock: { now: () => 1_800_000_000_000 },
    ...over,
  };
}

/** What the listener heard, in order. */
async function heard(req: ReplayRequest, stop = new AbortController().signal) {
  const events: string[] = [];
  const calls: ReplayedCall[] = [];
  const result = await replaySession(
    req,
    {
      note: (text, topic) => events.push(`note${topic ? `(${topic})` : ''}: ${text}`),
      planned: (p) => events.push(`planned ${p.calls} ${p.byMatcher}`),
      calling: (i, call) => events.push(`calling ${i} ${call.toolUseId}`),
      replayed: (c) => {
        events.push(`replayed ${c.report.tool_use_id}`);
        calls.push(c);
      },
    },
    stop,
  );
  return { events, calls, result };
}

/** The 1-based line of the assistant record carrying the call, found here by plain text search. */
function lineOf(file: string, id: string): number {
  return fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('"type":"assistant"') && l.includes(`"id":"${id}"`)) + 1;
}

describe('replaySession: the replay both the CLI and VS Code run', function () {
  this.timeout(60_000);

  it("hands over each call with its record's file and line, after saying what it planned", async () => {
    const { events, calls, result } = await heard(request({ hooks: { command: 'exit 2' } }));
    assert.deepEqual(events.filter((e) => !e.startsWith('note')), [
      'planned 2 false',
      'calling 0 toolu_field001r',
      'replayed toolu_field001r',
      'calling 1 toolu_field001b',
      'replayed toolu_field001b',
    ]);
    for (const c of calls) {
      assert.equal(c.record.path, interactiveFixture);
      assert.equal(c.record.line, lineOf(interactiveFixture, c.report.tool_use_id));
      assert.equal(c.liveLacksRecord, true);
    }
    assert.deepEqual([result.tally.calls, result.byMatcher, result.interrupted, result.skipped], [2, false, false, 0]);
    // The reports are folded as they go, not kept: the sentence is the one of both calls, each lacking its record live and blocked either way.
    assert.equal(result.tally.verdict(), 'decided the same on all 2 calls, live and complete: your hook does not depend on its call being in the transcript.');
  });

  it("a subagent's call: its record in the subagent's own transcript, at its line there", async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-session-')));
    const session = '5e55a9e0-1111-4222-8333-0123456789ab';
    const main = path.join(root, 'projects', '-w', `${session}.jsonl`);
    const sub = path.join(root, 'projects', '-w', session, 'subagents', 'agent-a1.jsonl');
    fs.mkdirSync(path.dirname(sub), { recursive: true });
    const line = (v: object) => `${JSON.stringify({ sessionId: session, entrypoint: 'cli', version: '2.1.332', ...v })}\n`;
    fs.writeFileSync(main, line({ type: 'user', timestamp: '2026-12-03T10:00:00.000Z', message: { content: 'go' } }) + line({ type: 'assistant', timestamp: '2026-12-03T10:00:01.000Z', message: { id: 'm1', content: [{ type: 'tool_use', id: 'toolu_task', name: 'Task', input: {} }] } }));
    fs.writeFileSync(sub, '\n' + line({ type: 'user', timestamp: '2026-12-03T10:00:02.000Z', message: { content: 'look' } }) + line({ type: 'assistant', timestamp: '2026-12-03T10:00:03.000Z', message: { id: 'm2', content: [{ type: 'tool_use', id: 'toolu_sub', name: 'Bash', input: {} }] } }));
    const { calls } = await heard(request({ transcript: main }));
    assert.deepEqual(
      calls.map((c) => [c.report.tool_use_id, c.record.path, c.record.line]),
      [
        ['toolu_task', main, 2],
        // A blank first line counts: the editor's line numbers.
        ['toolu_sub', sub, 3],
      ],
    );
  });

  it('configured hooks run on the calls their matchers take; the others are said', async () => {
    const { calls, events, result } = await heard(request({ hooks: { configured: [{ command: 'exit 2', matcher: 'Bash', source: 'project', timeoutSec: 5 }] } }));
    assert.deepEqual(calls.map((c) => [c.report.tool_use_id, c.report.hook?.source, c.report.live.decision]), [['toolu_field001b', 'project', 'block']]);
    assert.ok(events.includes('note: 1 call(s) matched no hook'), events.join('\n'));
    assert.equal(result.byMatcher, true);
  });

  it('says which file it could not read: the session or the channel', async () => {
    await assert.rejects(replaySession(request({ transcript: path.join(os.tmpdir(), 'no-such-session.jsonl') }), { note: () => undefined, replayed: () => undefined }, new AbortController().signal), (err: unknown) => err instanceof ReplayError && err.source === 'session');
    await assert.rejects(replaySession(request({ channel: os.tmpdir() }), { note: () => undefined, replayed: () => undefined }, new AbortController().signal), (err: unknown) => err instanceof ReplayError && err.source === 'channel');
  });

  it('stopped before it starts: no hook runs, interrupted', async () => {
    const stop = new AbortController();
    stop.abort();
    const { calls, result } = await heard(request({}), stop.signal);
    assert.deepEqual([calls.length, result.interrupted], [0, true]);
  });
});

describe("replaySession: a project's hooks, only from a folder the user may trust", () => {
  it('VS Code: only within the workspace\'s folders (its trusted ones); the CLI: any folder the user owns alone', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-within-')));
    const inside = path.join(root, 'ws', 'proj');
    const outside = path.join(root, 'elsewhere');
    for (const d of [inside, outside]) fs.mkdirSync(path.join(d, '.claude'), { recursive: true, mode: 0o755 });
    assert.equal(projectHooksRefusal(inside, [path.join(root, 'ws')]), undefined);
    assert.match(projectHooksRefusal(outside, [path.join(root, 'ws')]) ?? '', /is not in a folder of this workspace/);
    assert.equal(projectHooksRefusal(outside), undefined);
    // A folder named beside the workspace that only starts with its name is not in it.
    fs.mkdirSync(path.join(root, 'ws-other'), { mode: 0o755 });
    assert.match(projectHooksRefusal(path.join(root, 'ws-other'), [path.join(root, 'ws')]) ?? '', /is not in a folder/);
  });
});

describe('replaySession: whether live runs get the held message, as the session ran', () => {
  const v = (version: string, mods: boolean, held_text: boolean | null): MeasuredVersion => ({
    version, at: '2026-12-07', holds: true, mods, classic: mods ? true : null, held_text, exec: true, stat_lags: null, first_calls_held: [3, 3], print_p50_ms: 300,
  });
  // The mod loads from 2.1.290, a held message reaches a hook from 2.1.300; nothing between them measured.
  const t: BehaviourTable = {
    v: 1,
    versions: [v('2.1.280', false, null), v('2.1.290', true, false), v('2.1.300', true, true)],
    rules: {
      holds: { since: '2.1.280', last_without: null },
      mods: { since: '2.1.290', last_without: '2.1.280' },
      classic: { since: '2.1.290', last_without: null },
      held_text: { since: '2.1.300', last_without: '2.1.290' },
      exec: { since: '2.1.280', last_without: null },
      stat_lags: { since: null, last_without: null },
    },
    changes: [],
    exceptions: [],
  };

  it('none where the evidence or the measures say none reached a hook, of the version or the ones around it', () => {
    assert.deepEqual(liveHeldMessage('2.1.300', { modRan: false }, t).live, false);
    assert.match(liveHeldMessage('2.1.300', { modRan: false }, t).note ?? '', /evidence shows the transcript-lag mod did not run/);
    assert.deepEqual(liveHeldMessage('2.1.280', { modRan: undefined }, t), { live: false, note: "Claude Code 2.1.280 does not load the plugin's mod (measured: docs/COMPATIBILITY.md): live runs get no held message, as in that session (--mod: as if it had)" });
    assert.match(liveHeldMessage('2.1.270', { modRan: undefined }, t).note ?? '', /2\.1\.270 does not load the plugin's mod \(by the rule/);
    assert.deepEqual(liveHeldMessage('2.1.290', { modRan: true }, t), { live: false, note: "Claude Code 2.1.290 did not hand a hook every call's held message (measured: docs/COMPATIBILITY.md): live runs get none, as a hook there cannot count on it (--mod: as if it had)" });
    // As measured on 2026-12-07: 2.1.241 and 2.1.257 do not load the mod; 2.1.286 on hands hooks every call's held message.
    assert.match(liveHeldMessage('2.1.250', { modRan: undefined }).note ?? '', /2\.1\.250 does not load the plugin's mod \(as 2\.1\.241 and 2\.1\.257 measured/);
    assert.equal(liveHeldMessage('2.1.313', { modRan: true }).live, true);
    assert.equal(liveHeldMessage('2.1.326', { modRan: true }).live, true);
  });

  it("as the session's mod said it kept the call's held message, whatever its build's measure", () => {
    assert.deepEqual(liveHeldMessage('2.1.290', { modRan: true, kept: true }, t), { live: true });
    assert.deepEqual(liveHeldMessage('2.1.295', { modRan: true, kept: true }, t), { live: true });
    const none = liveHeldMessage('2.1.310', { modRan: true, kept: false }, t);
    assert.equal(none.live, false);
    assert.match(none.note ?? '', /the session's mod said it kept no held message for some calls/);
    // A mod whose posts do not say (from before they did): unknown, so none, whatever the build.
    const older = liveHeldMessage('2.1.330', { modRan: true, kept: null }, t);
    assert.equal(older.live, false);
    assert.match(older.note ?? '', /older than its word on the held message/);
  });

  it('between a measured yes and a measured no: unknown for this version, said, and none given (unknown is not yes)', () => {
    const r = liveHeldMessage('2.1.295', { modRan: undefined }, t);
    assert.equal(r.live, false);
    assert.match(r.note ?? '', /whether Claude Code 2\.1\.295 hands a hook the mod's held message is unknown for this version/);
    // The session's evidence that the mod ran does not make an unknown build hand it.
    assert.equal(liveHeldMessage('2.1.295', { modRan: true }, t).live, false);
    // Whether 2.1.285 loads the mod is unknown, but no version up to 2.1.290 handed a hook a held message: none either way.
    assert.match(liveHeldMessage('2.1.285', { modRan: undefined }, t).note ?? '', /2\.1\.285 did not hand a hook every call's held message \(by the rule/);
    // A version where both are known: only the usual note, or none with the evidence that the mod ran.
    assert.match(liveHeldMessage('2.1.310', { modRan: undefined }, t).note ?? '', /^no evidence of whether the transcript-lag mod ran/);
    assert.deepEqual(liveHeldMessage('2.1.310', { modRan: true }, t), { live: true });
  });
});
