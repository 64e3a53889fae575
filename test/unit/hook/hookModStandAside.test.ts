import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { modCallsPath } from '../../../src/rules/modContract';
import { buildHook, hookInput, readJsonLines, runHook, tempHome } from '../helpers/hookProcess';

const SID = '0b7c5a8e-1111-4222-8333-944455556666';

describe('hook process: the mod reports the call', function () {
  before(async function () {
    this.timeout(60_000);
    await buildHook();
  });

  /** A transcript under the Claude dir's projects/, as Claude Code names it, and the mod's list for its session. */
  function session(calls: string[] | undefined) {
    const { claudeDir, env } = tempHome();
    const transcript = path.join(claudeDir, 'projects', '-work', `${SID}.jsonl`);
    fs.writeFileSync(transcript, '');
    const list = modCallsPath(claudeDir, SID)!;
    if (calls) {
      fs.mkdirSync(path.dirname(list), { recursive: true });
      fs.writeFileSync(list, JSON.stringify({ v: 1, calls }));
    }
    return { claudeDir, env: { ...env, CLAUDE_CONFIG_DIR: claudeDir }, transcript, channel: path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`) };
  }

  it('announce mode stands aside, before and after, for a call the mod lists; reports any other', async () => {
    const s = session(['toolu_01MOD']);
    for (const hook_event_name of ['PreToolUse', 'PostToolUse', 'PostToolUseFailure']) {
      const run = await runHook({ env: s.env, stdin: hookInput({ hook_event_name, transcript_path: s.transcript, tool_use_id: 'toolu_01MOD' }), args: ['--plugin'] });
      assert.equal(run.code, 0);
      assert.equal(run.stdout, '');
    }
    assert.equal(fs.existsSync(s.channel), false);
    await runHook({ env: s.env, stdin: hookInput({ transcript_path: s.transcript, tool_use_id: 'toolu_02OTHER' }) });
    assert.deepEqual(readJsonLines(s.channel).map((e) => (e as { tool_use_id: string }).tool_use_id), ['toolu_02OTHER']);
  });

  it('probe mode still waits and reports: its wait is its own', async () => {
    const s = session(['toolu_01MOD']);
    await runHook({ env: s.env, stdin: hookInput({ transcript_path: s.transcript, tool_use_id: 'toolu_01MOD' }), args: ['--probe', '--polls', '1', '--poll-ms', '1'] });
    assert.deepEqual(readJsonLines(s.channel).map((e) => (e as { event: string }).event), ['pre', 'wait']);
  });

  it('a list that is not the mod\'s (a symlink, garbage, another session) changes nothing', async () => {
    const s = session(undefined);
    const list = modCallsPath(s.claudeDir, SID)!;
    fs.mkdirSync(path.dirname(list), { recursive: true });
    const elsewhere = path.join(s.claudeDir, 'elsewhere.json');
    fs.writeFileSync(elsewhere, JSON.stringify({ v: 1, calls: ['toolu_01MOD'] }));
    fs.symlinkSync(elsewhere, list);
    await runHook({ env: s.env, stdin: hookInput({ transcript_path: s.transcript, tool_use_id: 'toolu_01MOD' }) });
    assert.equal(readJsonLines(s.channel).length, 1);
    fs.rmSync(list);
    fs.writeFileSync(list, '{"v":1,"calls":["toolu_01M');
    await runHook({ env: s.env, stdin: hookInput({ transcript_path: s.transcript, tool_use_id: 'toolu_01MOD' }) });
    assert.equal(readJsonLines(s.channel).length, 2);
  });
});
