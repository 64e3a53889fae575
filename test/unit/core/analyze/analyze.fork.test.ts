import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { analyzeTranscript } from '../../../../src/core/analyze';
import { renderTable } from '../../../../src/cli/analyze';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { fixturesDir } from '../../helpers/fixtures';

/**
 * `analyze` of a fork (test/fixtures/real/print-fork, Claude Code 2.1.332): the fork's file starts
 * with a copy of its parent's conversation, the parent's call among it. That call is the parent's
 * history: left out of the fork's calls and counted apart, with the session it came from.
 */
const dir = path.join(fixturesDir, 'real', 'print-fork');
const PARENT = 'b4e672aa-3347-44eb-a27c-535072cbd17a';
const FORK = 'c2b98376-5e55-4834-8ae1-0f3255e10ec3';
const clock = { now: () => 1_800_000_000_000 };
const analyze = (id: string, extra: { channel?: boolean } = {}) =>
  analyzeTranscript({
    path: path.join(dir, `${id}.jsonl`),
    files: nodeFileAccess,
    clock,
    ...(extra.channel ? { channelPath: path.join(dir, 'transcript-lag', `${id}.jsonl`) } : {}),
  });

describe('analyze: a forked session (real fork)', () => {
  it("lists only the fork's own call; the copied one is counted apart, with its parent", async () => {
    const a = await analyze(FORK);
    assert.deepEqual(
      a.calls.map((c) => [c.tool_use_id, c.line, c.result_line]),
      [['toolu_field002b', 33, 34]],
    );
    assert.equal(a.counts.calls, 1);
    assert.equal(a.counts.copied_calls, 1);
    assert.deepEqual(a.copied_from, [PARENT]);
    // The copied result goes with its copied call: neither a result of the fork nor an orphan.
    assert.equal(a.counts.results, 1);
    assert.equal(a.counts.orphan_results, 0);
    assert.equal(a.counts.duplicate_tool_uses, 0);
    assert.equal(a.counts.with_result + a.counts.before_result + a.counts.unknown_shape + a.counts.no_result, a.counts.calls);
    assert.equal(a.session_id, FORK);
  });

  it('the parent itself has no copies: its call is its own', async () => {
    const a = await analyze(PARENT);
    assert.deepEqual(a.calls.map((c) => c.tool_use_id), ['toolu_field001b']);
    assert.equal(a.counts.copied_calls, 0);
    assert.deepEqual(a.copied_from, []);
  });

  it("with --channel the fork's call gets its hook's shape and bounds", async () => {
    const a = await analyze(FORK, { channel: true });
    const [call] = a.calls;
    assert.equal(call!.shape, 'before_result');
    assert.ok(call!.held_ms);
    assert.equal(a.counts.before_result, 1);
  });

  it('the table says the copies are the parent’s history', async () => {
    const table = renderTable(await analyze(FORK));
    assert.match(table, new RegExp(`forked +1 call copied from ${PARENT}`));
    assert.doesNotMatch(table, /toolu_field001b/);
  });
});
