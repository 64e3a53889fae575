import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ReplayCall } from '../../../../src/core/replay/calls';
import { batchStart, completeCut, landedEnd, liveTimelineOf, mainCutForSubagentCall, type CallEvidence } from '../../../../src/core/replay/liveCut';
import { placeOf, type LandingRow, type LandingTable } from '../../../../src/core/replay/landingModel';
import { indexTranscript, type TranscriptIndex } from '../../../../src/core/replay/transcriptIndex';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { readChannelEvidence } from '../../../../src/core/replay/channelEvidence';
import { fixturesDir } from '../../helpers/fixtures';

const clock = { now: () => 0 };
const interactive = path.join(fixturesDir, 'real/interactive-parallel-2000/31fe55b3-cdf5-46f4-87b6-e09ef369569a.jsonl');
const print = path.join(fixturesDir, 'real/print-single-0/c94aa0db-5ed1-4c10-836d-4ea712608109.jsonl');
const forkParent = path.join(fixturesDir, 'real/print-fork/b4e672aa-3347-44eb-a27c-535072cbd17a.jsonl');
const fork = path.join(fixturesDir, 'real/print-fork/c2b98376-5e55-4834-8ae1-0f3255e10ec3.jsonl');

/** Byte ranges of a file's lines, 1-based: lineAt(n).start / .end (the newline included). */
function lineAt(file: string, n: number): { start: number; end: number } {
  const bytes = fs.readFileSync(file);
  let start = 0;
  for (let line = 1; ; line++) {
    const end = bytes.indexOf(0x0a, start) + 1;
    if (line === n) return { start, end };
    start = end;
  }
}

async function callsIn(file: string, births?: ReadonlyMap<string, number>): Promise<{ index: TranscriptIndex; calls: ReplayCall[] }> {
  const index = await indexTranscript(file, nodeFileAccess, clock, { births });
  return { index, calls: index.calls };
}

/** The uuid of a file's line, 1-based. */
function uuidAt(file: string, n: number): string {
  return (JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[n - 1]!) as { uuid: string }).uuid;
}

const byId = (calls: ReplayCall[], id: string) => calls.find((c) => c.toolUseId === id)!;
const none = new Map<string, number>();

const row = (version: string, mode: 'interactive' | 'print', place: LandingRow['place'], ways: { atFire?: number; after?: number; landed?: number[] }): LandingRow => {
  const d = [...(ways.landed ?? [])].sort((a, b) => a - b);
  return {
    version,
    mode,
    place,
    calls: (ways.atFire ?? 0) + (ways.after ?? 0) + d.length,
    on_disk_at_fire: ways.atFire ?? 0,
    not_while_hooks_run: ways.after ?? 0,
    landed_while_hooks_run: d.length ? { calls: d.length, min_ms: d[0]!, p10_ms: d[0]!, p50_ms: d[Math.floor(d.length / 2)]!, p90_ms: d.at(-1)!, max_ms: d.at(-1)! } : null,
  };
};

/** A table of its own, so the rules are tested whatever the field measured last. */
const table: LandingTable = {
  v: 1,
  measured: { at: '2026-12-07T00:00:00Z', how: 'test' },
  hook_start_skew_ms: 100,
  rows: [
    row('2.1.280', 'interactive', 'opening', { landed: [380, 400, 420] }),
    row('2.1.280', 'interactive', 'later', { landed: [390, 410] }),
    row('2.1.332', 'interactive', 'opening', { after: 5 }),
    row('2.1.332', 'interactive', 'later', { atFire: 2, after: 3, landed: [2029] }),
    row('2.1.332', 'print', 'opening', { landed: [220, 250, 300, 400] }),
  ],
};

describe('replay: how the transcript moved while a hook ran', () => {
  it('interactive 2.1.332: the session\'s first message, not while its hooks run; a later call of a message, each way it was seen (at the fire, while, after)', async () => {
    const { calls } = await callsIn(interactive);
    assert.deepEqual(calls.map((c) => [c.toolUseId, c.toolName, placeOf(c)]), [['toolu_field001r', 'Read', 'opening'], ['toolu_field001b', 'Bash', 'opening']]);
    const size = fs.statSync(interactive).size;
    const read = liveTimelineOf(byId(calls, 'toolu_field001r'), undefined, none, size, table);
    // The batch that brings the message starts at the tools-used line written with it (line 23), not at its first record.
    assert.equal(batchStart(byId(calls, 'toolu_field001r')), lineAt(interactive, 23).start);
    // Held in every measured first message; a later call's landings (at the fire, while the hooks ran) are possible too, never likely.
    assert.deepEqual(read, { bytes: lineAt(interactive, 23).start, landedBytes: lineAt(interactive, 26).end, basis: 'model', timings: [0, 1929, 2029, null], likely: null, model: ['2.1.332 interactive opening'] });
    // Without them measured anywhere for the build and mode: held only.
    const heldOnly = { ...table, rows: table.rows.filter((r) => r.place !== 'later') };
    assert.deepEqual(liveTimelineOf(byId(calls, 'toolu_field001r'), undefined, none, size, heldOnly).timings, [null]);
    // The same call as a later call of a message that is not the session's first.
    const later = liveTimelineOf({ ...byId(calls, 'toolu_field001b'), opening: false }, undefined, none, size, table);
    assert.deepEqual(later.timings, [0, 1929, 2029, null]);
    assert.equal(later.likely, null, 'the most seen: after the hooks');
    for (const [id, recordLine] of [['toolu_field001r', 25], ['toolu_field001b', 26]] as const) {
      const call = byId(calls, id);
      assert.deepEqual(call.message.map((l) => l.start), [24, 25, 26].map((n) => lineAt(interactive, n).start));
      assert.equal(completeCut(call), lineAt(interactive, recordLine).end);
      assert.equal(landedEnd(call), lineAt(interactive, 26).end);
      assert.equal(call.context.entrypoint, 'cli');
      assert.equal(call.context.permissionMode, 'acceptEdits');
    }
    assert.equal(byId(calls, 'toolu_field001r').result?.start, lineAt(interactive, 27).start);
  });

  it('print mode: the message lands while the hook runs, at the measured earliest (less the hooks\' start skew), median and latest', async () => {
    const { calls } = await callsIn(print);
    const t = liveTimelineOf(calls[0]!, undefined, none, fs.statSync(print).size, table);
    assert.deepEqual(t, { bytes: lineAt(print, 20).start, landedBytes: lineAt(print, 22).end, basis: 'model', timings: [120, 300, 400], likely: 300, model: ['2.1.332 print opening'] });
    assert.ok(t.landedBytes <= calls[0]!.result!.start, 'not its result');
  });

  it('a version not measured: its measured neighbours merged; past the newest, the newest; no version, every row of the mode', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-cut-'));
    const file = path.join(dir, 's.jsonl');
    const timingsAt = async (version: string | null) => {
      const text = fs.readFileSync(interactive, 'utf8');
      fs.writeFileSync(file, version === null ? text.replace(/"version":"2\.1\.332",?/g, '') : text.replace(/"version":"2\.1\.332"/g, `"version":"${version}"`));
      const call = (await callsIn(file)).calls[0]!;
      return liveTimelineOf(call, undefined, none, fs.statSync(file).size, table).timings;
    };
    assert.deepEqual(await timingsAt('2.1.280'), [280, 400, 420]);
    // Between 2.1.280 and 2.1.332: either may be its behaviour.
    assert.deepEqual(await timingsAt('2.1.300'), [0, 280, 400, 420, null]);
    assert.deepEqual(await timingsAt('2.1.400'), [0, 1929, 2029, null]);
    assert.deepEqual(await timingsAt('2.1.100'), [280, 400, 420]);
    assert.deepEqual(await timingsAt(null), [0, 280, 400, 420, null]);
    // Nothing measured for the mode at all: unknown, so both ends.
    assert.deepEqual(liveTimelineOf((await callsIn(print)).calls[0]!, undefined, none, fs.statSync(print).size, { ...table, rows: [] }).timings, [0, null]);
  });

  it('the place of a call: the session\'s first message, else first in its message (after text or not), later, a subagent\'s', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-place-'));
    const file = path.join(dir, 's.jsonl');
    const a = (id: string, block: object) => JSON.stringify({ type: 'assistant', uuid: `u-${JSON.stringify(block).length}-${id}`, message: { id, content: [block] } });
    const use = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: {} });
    fs.writeFileSync(file, [a('m1', use('t1')), a('m2', use('t2')), a('m3', { type: 'text', text: 'why' }), a('m3', use('t3')), a('m3', use('t4'))].join('\n') + '\n');
    const { calls } = await callsIn(file);
    assert.deepEqual(calls.map((c) => [c.toolUseId, placeOf(c)]), [['t1', 'opening'], ['t2', 'first'], ['t3', 'first-after-text'], ['t4', 'later']]);
    assert.equal(placeOf((await indexTranscript(file, nodeFileAccess, clock, { agentId: 'a1' })).calls[1]!), 'subagent');
  });

  it("a fork's copies of its parent's calls are not its calls", async () => {
    const { calls } = await callsIn(fork);
    assert.deepEqual(calls.map((c) => c.toolUseId), ['toolu_field002b']);
  });

  it("a pre event's bytes_on_disk is what the hook saw, when it agrees with the file: with the record, there at the fire; without, never at the fire", async () => {
    const { calls } = await callsIn(forkParent);
    const call = calls[0]!;
    const size = fs.statSync(forkParent).size;
    const at20 = lineAt(forkParent, 20).end;
    const saw = (onDisk: CallEvidence['onDisk']) => liveTimelineOf(call, { onDisk }, none, size, table);
    assert.deepEqual([saw({ bytes: at20, recordOnDisk: false }).bytes, saw({ bytes: at20, recordOnDisk: false }).basis], [at20, 'channel']);
    assert.ok(!saw({ bytes: at20, recordOnDisk: false }).timings.includes(0));
    // A partial line is what a hook saw too.
    assert.equal(saw({ bytes: at20 + 100 }).bytes, at20 + 100);
    const model = liveTimelineOf(call, undefined, none, size, table);
    // The record there when our hook looked: not a copy at the fire (its look came after it), the model's cut;
    // when it landed is the looks' bound, which the channel's fold gives (below).
    const end = completeCut(call);
    assert.deepEqual(saw({ bytes: end, recordOnDisk: true }), model);
    // Of another copy of the file: it says the record was there, and these bytes do not hold it; or past the end.
    assert.deepEqual(saw({ bytes: at20, recordOnDisk: true }), model);
    assert.deepEqual(saw({ bytes: size + 1 }), model);
    // Looked for in a subagent's file: not this call's.
    assert.deepEqual(saw({ bytes: at20, recordPath: '/x/s/subagents/agent-a1.jsonl' }), model);
  });

  it('births: a record born after the fire was not on disk at it, nor what was born after it', async () => {
    const size = fs.statSync(print).size;
    // The index keeps what it needs of the lines with births as it reads them: indexed with the births the timeline is given.
    const callWith = async (births: ReadonlyMap<string, number>) => (await callsIn(print, births)).calls[0]!;
    // A table in which print records were seen on disk at the fire too.
    const seenAtFire = { ...table, rows: [row('2.1.332', 'print', 'opening', { atFire: 1, landed: [220, 400] })] };
    assert.deepEqual(liveTimelineOf(await callWith(none), undefined, none, size, seenAtFire).timings, [0, 120, 400]);
    // The text record (line 21) born before the fire, the call's record after it.
    const births = new Map([[uuidAt(print, 21), 900], [uuidAt(print, 22), 1001]]);
    const t = liveTimelineOf(await callWith(births), { firedAt: 1000 }, births, size, seenAtFire);
    assert.deepEqual([t.bytes, t.basis, t.timings], [lineAt(print, 20).start, 'channel', [120, 400]]);
    // A line born after the fire keeps the copy at the fire before it.
    const bornEarly = new Map([[uuidAt(print, 13), 801]]);
    const early = liveTimelineOf(await callWith(bornEarly), { firedAt: 800 }, bornEarly, size, seenAtFire);
    assert.deepEqual([early.bytes, early.basis], [lineAt(print, 13).start, 'channel']);
    // Births that change nothing leave the model's cut, and its basis.
    const later = liveTimelineOf(await callWith(births), { firedAt: 2000 }, births, size, seenAtFire);
    assert.deepEqual([later.bytes, later.basis, later.timings], [lineAt(print, 20).start, 'model', [0, 120, 400]]);
  });

  it("the looks of the call's own hooks narrow the measured landing to this call's (the mod's: a find bounds it, a miss proves nothing)", async () => {
    const { calls } = await callsIn(print);
    const call = calls[0]!;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-landed-'));
    const channel = path.join(dir, 'channel.jsonl');
    const base = { v: 1, session_id: 's', transcript_path: print, tool_use_id: call.toolUseId, tool_name: call.toolName, source: 'transcript-lag-mod' };
    fs.writeFileSync(channel, [
      { ...base, event: 'pre', at: 1000, transport: 'mod' },
      { ...base, event: 'landed', at: 1260, with_result: false, watched_from: 'pre', missed_at: 1200, fired_at: 1000 },
    ].map((e) => `${JSON.stringify(e)}\n`).join(''));
    const evidence = await readChannelEvidence(channel, 's', nodeFileAccess, clock);
    assert.equal(evidence.events, 2, 'both lines were read');
    assert.deepEqual(evidence.calls.get(call.toolUseId), { firedAt: 1000, landed: { minMs: 0, maxMs: 260, fromToolCall: true } });
    const t = liveTimelineOf(call, evidence.calls.get(call.toolUseId), evidence.births, fs.statSync(print).size, table);
    // The measure said 220–400 ms; this call's record was found 260 ms after the mod's fire, before
    // which no hook starts: at most 260 ms into a hook. A hook may start up to the hooks' start skew
    // (100 ms here) after the fire, so the measured floor comes that much sooner: 120–260 ms.
    assert.deepEqual([t.timings, t.basis], [[120, 260], 'channel']);
    // Counted from our command hook's own start instead (no mod), the fire may be the skew earlier: 120–360 ms.
    const byHook = liveTimelineOf(call, { firedAt: 1000, landed: { minMs: 0, maxMs: 260 } }, none, fs.statSync(print).size, table);
    assert.deepEqual(byHook.timings, [120, 300, 360]);
    // A find after the measured range: this call's own bounds, the earliest less the hooks' start skew.
    const late = liveTimelineOf(call, { firedAt: 1000, landed: { minMs: 900, maxMs: 950 } }, none, fs.statSync(print).size, table);
    assert.deepEqual(late.timings, [800, 900, 1050]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the mod's post says whether it kept a call's held message: kept if any of its posts said so; an older mod's post, null; a command hook's post says nothing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-held-'));
    const channel = path.join(dir, 's.jsonl');
    const ev = (id: string, source: string, extra: object) => ({ v: 1, session_id: 's', transcript_path: print, tool_use_id: id, tool_name: 'Bash', event: 'post', at: 1000, source, ...extra });
    fs.writeFileSync(channel, [
      ev('toolu_kept', 'transcript-lag-mod', { transport: 'mod', held_message: true }),
      ev('toolu_kept', 'transcript-lag-mod', { transport: 'mod', held_message: false }),
      ev('toolu_none', 'transcript-lag-mod', { transport: 'mod', held_message: false }),
      ev('toolu_old', 'transcript-lag-mod', { transport: 'mod' }),
      ev('toolu_cmd', 'transcript-lag-hook', { held_message: true }),
    ].map((e) => `${JSON.stringify(e)}\n`).join(''));
    const evidence = await readChannelEvidence(channel, 's', nodeFileAccess, clock);
    assert.deepEqual(['toolu_kept', 'toolu_none', 'toolu_old', 'toolu_cmd'].map((id) => evidence.calls.get(id)?.heldMessage), [true, false, null, undefined]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a subagent's call sees the session's file up to the records made before its own", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-cut-'));
    const main = path.join(dir, 'main.jsonl');
    const sub = path.join(dir, 'agent-a1.jsonl');
    const rec = (ts: string, extra: object) => `${JSON.stringify({ type: 'user', timestamp: ts, message: { role: 'user', content: 'x' }, ...extra })}\n`;
    fs.writeFileSync(main, rec('2026-12-03T10:00:00.000Z', {}) + rec('2026-12-03T10:00:02.000Z', {}) + rec('2026-12-03T10:00:05.000Z', {}));
    fs.writeFileSync(sub, `${JSON.stringify({ type: 'assistant', timestamp: '2026-12-03T10:00:03.000Z', message: { id: 'm', content: [{ type: 'tool_use', id: 'toolu_s', name: 'Read', input: {} }] } })}\n`);
    const call = (await indexTranscript(sub, nodeFileAccess, clock, { agentId: 'a1' })).calls[0]!;
    assert.equal(call.agentId, 'a1');
    assert.equal(placeOf(call), 'subagent');
    // The session's file is read knowing the times asked of it.
    const mainIndex = await indexTranscript(main, nodeFileAccess, clock, { createdAfter: [call.record.timestampMs!, Date.parse('2026-12-03T10:00:06.000Z')] });
    assert.equal(mainCutForSubagentCall(mainIndex, call), lineAt(main, 3).start);
    assert.equal(mainIndex.firstCreatedAfter(Date.parse('2026-12-03T10:00:06.000Z')), undefined, 'none later: the whole file');
    assert.throws(() => mainIndex.firstCreatedAfter(0), /not asked/);
  });
});

describe('replay: a PreToolUse hook of the call that found its record', () => {
  it('proves it was not held until the hooks ended: no run without it, and the find bounds it', async () => {
    const { calls } = await callsIn(interactive);
    const size = fs.statSync(interactive).size;
    // Read: in interactive 2.1.332's first message, measured held while its hooks run (the test table above).
    const read = calls.find((c) => c.toolUseId === 'toolu_field001r')!;
    const heldOnly = { ...table, rows: table.rows.filter((r) => r.place !== 'later') };
    assert.deepEqual(liveTimelineOf(read, undefined, none, size, heldOnly).timings, [null]);
    const found = liveTimelineOf(read, { firedAt: 1000, landed: { minMs: 0, maxMs: 40, duringHooks: true } }, none, size, heldOnly);
    assert.deepEqual([found.timings, found.basis], [[0, 140], 'channel']);
    // A find after the hooks (a post hook's, the mod's after they settled) proves no such thing.
    assert.deepEqual(liveTimelineOf(read, { firedAt: 1000, landed: { minMs: 0, maxMs: 2500 } }, none, size, heldOnly).timings, [null]);
  });
});

describe('replay: evidence outside what was measured', () => {
  it("a find later than any measured landing runs the hook up to it: the measure's largest is no bound on this call (field: a once-reader blocked where replay said allow)", async () => {
    const { calls } = await callsIn(print);
    // Measured 220–400 ms; the mod found this call's record 2 301 ms after its fire and its last look
    // (a miss, no proof through $.fs) was 2 172 ms: anywhere up to 2 301 ms into a hook.
    const t = liveTimelineOf(calls[0]!, { firedAt: 1000, landed: { minMs: 0, maxMs: 2301, duringHooks: true, fromToolCall: true } }, none, fs.statSync(print).size, table);
    assert.deepEqual([t.timings, t.likely, t.basis], [[120, 300, 2301], 300, 'channel']);
  });

  it('a miss later than any measured landing, never found: runs from the miss on, and not while the hook runs; no run with the record at the fire', async () => {
    const { calls } = await callsIn(print);
    const t = liveTimelineOf(calls[0]!, { firedAt: 1000, landed: { minMs: 1500, maxMs: null } }, none, fs.statSync(print).size, table);
    // From the miss on (less the hooks' start skew: a hook under Claude Code may read that much later).
    assert.deepEqual([t.timings, t.likely, t.basis], [[1400, null], null, 'channel']);
  });
});
