import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { callsOf, type ReplayCall } from '../../../../src/core/replay/calls';
import { completeCut, liveCutOf, mainCutForSubagentCall, modelCut, modelRuleOf, type CallEvidence } from '../../../../src/core/replay/liveCut';
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

async function callsIn(file: string): Promise<{ index: TranscriptIndex; calls: ReplayCall[] }> {
  const index = await indexTranscript(file, nodeFileAccess, clock);
  return { index, calls: callsOf(index) };
}

const byId = (calls: ReplayCall[], id: string) => calls.find((c) => c.toolUseId === id)!;
const none = new Map<string, number>();

describe('replay: where the transcript ended when a hook fired', () => {
  it('interactive 2.1.332: the model holds the whole message (lines 24-26) while the hooks run; complete ends at each record', async () => {
    const { calls } = await callsIn(interactive);
    assert.deepEqual(calls.map((c) => [c.toolUseId, c.toolName]), [['toolu_field001r', 'Read'], ['toolu_field001b', 'Bash']]);
    for (const [id, recordLine] of [['toolu_field001r', 25], ['toolu_field001b', 26]] as const) {
      const call = byId(calls, id);
      assert.equal(modelRuleOf(call), 'held-while-hooks-run');
      assert.deepEqual(call.message.map((l) => l.start), [24, 25, 26].map((n) => lineAt(interactive, n).start));
      assert.equal(modelCut(call), lineAt(interactive, 24).start);
      assert.equal(completeCut(call), lineAt(interactive, recordLine).end);
      assert.deepEqual(liveCutOf(call, undefined, none, fs.statSync(interactive).size), { bytes: lineAt(interactive, 24).start, basis: 'model' });
      assert.equal(call.context.entrypoint, 'cli');
      assert.equal(call.context.permissionMode, 'acceptEdits');
    }
    assert.equal(byId(calls, 'toolu_field001r').result?.start, lineAt(interactive, 27).start);
  });

  it('print mode: the message is on disk when the hook fires, its result is not', async () => {
    const { calls } = await callsIn(print);
    const call = calls[0]!;
    assert.equal(modelRuleOf(call), 'message-end');
    assert.equal(modelCut(call), lineAt(print, 22).end);
    assert.ok(modelCut(call) <= call.result!.start);
  });

  it('interactive on 2.1.280 and earlier: written at message end, as in print mode', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-cut-'));
    const old = path.join(dir, 's.jsonl');
    fs.writeFileSync(old, fs.readFileSync(interactive, 'utf8').replace(/"version":"2\.1\.332"/g, '"version":"2.1.280"'));
    const { calls } = await callsIn(old);
    for (const call of calls) {
      assert.equal(modelRuleOf(call), 'message-end');
      // Both calls' records and the text before them; not the results (line 27 on).
      assert.equal(modelCut(call), lineAt(old, 26).end);
    }
    fs.writeFileSync(old, fs.readFileSync(interactive, 'utf8').replace(/"version":"2\.1\.332"/g, '"version":"2.1.281"'));
    assert.equal(modelRuleOf((await callsIn(old)).calls[0]!), 'held-while-hooks-run');
  });

  it("a fork's copies of its parent's calls are not its calls", async () => {
    const { calls } = await callsIn(fork);
    assert.deepEqual(calls.map((c) => c.toolUseId), ['toolu_field002b']);
  });

  it("a pre event's bytes_on_disk is what the hook saw, when it agrees with the file", async () => {
    const { calls } = await callsIn(forkParent);
    const call = calls[0]!;
    const size = fs.statSync(forkParent).size;
    const at20 = lineAt(forkParent, 20).end;
    const saw = (onDisk: CallEvidence['onDisk']) => liveCutOf(call, { onDisk }, none, size);
    assert.deepEqual(saw({ bytes: at20, recordOnDisk: false }), { bytes: at20, basis: 'channel' });
    // A partial line is what a hook saw too.
    assert.deepEqual(saw({ bytes: at20 + 100 }), { bytes: at20 + 100, basis: 'channel' });
    const model = { bytes: modelCut(call), basis: 'model' };
    // Of another copy of the file: it says the record was there, and these bytes do not hold it; or past the end.
    assert.deepEqual(saw({ bytes: at20, recordOnDisk: true }), model);
    assert.deepEqual(saw({ bytes: size + 1 }), model);
    // Looked for in a subagent's file: not this call's.
    assert.deepEqual(saw({ bytes: at20, recordPath: '/x/s/subagents/agent-a1.jsonl' }), model);
  });

  it("births: a record born after the fire keeps it out; the mod's landing, found or missed, decides nothing", async () => {
    const { index, calls } = await callsIn(print);
    const call = calls[0]!;
    const size = fs.statSync(print).size;
    const record = lineAt(print, 22);
    // The text record (line 21) born before the fire, the call's record after it: only the text was there.
    const uuidOf = (n: number) => index.lines.find((l) => l.start === lineAt(print, n).start)!.uuid!;
    const births = new Map([[uuidOf(21), 900], [uuidOf(22), 1001]]);
    assert.deepEqual(liveCutOf(call, { firedAt: 1000 }, births, size), { bytes: record.start, basis: 'channel' });
    // Births that change nothing leave the model's cut, and its basis.
    assert.deepEqual(liveCutOf(call, { firedAt: 2000 }, births, size), { bytes: modelCut(call), basis: 'model' });
    assert.notEqual(modelCut(call), record.start, 'the model keeps the record in, for print mode');
  });

  it("a channel whose only word on the call is the mod's pre and landing (a miss, then a find) leaves the model's cut", async () => {
    const { calls } = await callsIn(print);
    const call = calls[0]!;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-landed-'));
    const channel = path.join(dir, 'channel.jsonl');
    const base = { v: 1, session_id: 's', transcript_path: print, tool_use_id: call.toolUseId, tool_name: call.toolName, source: 'transcript-lag-mod' };
    fs.writeFileSync(channel, [
      { ...base, event: 'pre', at: 1000, transport: 'mod' },
      { ...base, event: 'landed', at: 1400, with_result: false, watched_from: 'pre', missed_at: 1300, fired_at: 1000 },
    ].map((e) => `${JSON.stringify(e)}\n`).join(''));
    const evidence = await readChannelEvidence(channel, 's', nodeFileAccess, clock);
    assert.equal(evidence.events, 2, 'both lines were read');
    assert.deepEqual(evidence.calls.get(call.toolUseId), { firedAt: 1000 });
    assert.deepEqual(liveCutOf(call, evidence.calls.get(call.toolUseId), evidence.births, fs.statSync(print).size), { bytes: modelCut(call), basis: 'model' });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a subagent's call sees the session's file up to the records made before its own", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-replay-cut-'));
    const main = path.join(dir, 'main.jsonl');
    const sub = path.join(dir, 'agent-a1.jsonl');
    const rec = (ts: string, extra: object) => `${JSON.stringify({ type: 'user', timestamp: ts, message: { role: 'user', content: 'x' }, ...extra })}\n`;
    fs.writeFileSync(main, rec('2026-12-03T10:00:00.000Z', {}) + rec('2026-12-03T10:00:02.000Z', {}) + rec('2026-12-03T10:00:05.000Z', {}));
    fs.writeFileSync(sub, `${JSON.stringify({ type: 'assistant', timestamp: '2026-12-03T10:00:03.000Z', message: { id: 'm', content: [{ type: 'tool_use', id: 'toolu_s', name: 'Read', input: {} }] } })}\n`);
    const mainIndex = await indexTranscript(main, nodeFileAccess, clock);
    const call = callsOf(await indexTranscript(sub, nodeFileAccess, clock), 'a1')[0]!;
    assert.equal(call.agentId, 'a1');
    assert.equal(mainCutForSubagentCall(mainIndex, call), lineAt(main, 3).start);
  });
});
