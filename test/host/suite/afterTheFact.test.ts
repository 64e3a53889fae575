// A window opened after a session, or reloaded in the middle of one: the calls
// were written while nothing watched, so only what the hook left in the channel
// tells how. A fresh engine on a Claude dir (what a reload or a late window
// starts) must label them from that evidence and never claim more.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, runHook, useClaudeDir } from './support';

/** The channel's landed event for the call, once the hook's detached watcher has written it. */
async function landed(dir: string, s: FakeSession, id: string): Promise<void> {
  const file = path.join(dir, 'transcript-lag', `${s.sessionId}.jsonl`);
  const until = Date.now() + 10_000;
  while (!(fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(`"event":"landed","at"`) && fs.readFileSync(file, 'utf8').includes(`"tool_use_id":"${id}","tool_name":"Bash","with_result"`))) {
    if (Date.now() > until) throw new Error(`no landed event for ${id}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('after the fact: calls labelled from what the hook saw', () => {
  after(closeAllEditors);

  it('a window opened after the session: "before result" and "with result" as the hook saw them, never "no hook"', async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('after-the-fact');
    const s = new FakeSession(dir).title('Finished earlier').prompt('go');
    // Held, then written before its result: the record is on disk at PostToolUse.
    assert.equal((await runHook(dir, s.preToolUse('toolu_atf_before', 'Bash'))).code, 0);
    s.toolUse('toolu_atf_before', 'Bash');
    assert.equal((await runHook(dir, s.postToolUse('toolu_atf_before', 'Bash'))).code, 0);
    s.toolResult('toolu_atf_before');
    // Held until its result: not on disk at PostToolUse, then record and result in one write.
    assert.equal((await runHook(dir, s.preToolUse('toolu_atf_with', 'Bash'))).code, 0);
    assert.equal((await runHook(dir, s.postToolUse('toolu_atf_with', 'Bash'))).code, 0);
    s.toolUseWithResult('toolu_atf_with', 'Bash');
    await landed(dir, s, 'toolu_atf_with');
    // Written with no hook at all.
    s.toolUse('toolu_atf_nohook', 'Read').toolResult('toolu_atf_nohook');

    await useClaudeDir(api, dir);
    const node = await eventually(api, 'the finished session', () => api.treeItems().find((n) => n.session_id === s.sessionId));
    const row = (id: string) => node.children.find((c) => c.tool_use_id === id)!.description;
    assert.match(row('toolu_atf_before'), /^held .*· before result$/);
    assert.match(row('toolu_atf_with'), /^held .*· with result$/);
    assert.doesNotMatch(row('toolu_atf_before') + row('toolu_atf_with'), /no hook/);
    assert.equal(row('toolu_atf_nohook'), 'no hook · shape unknown');
    assert.match(api.statusView()?.tooltip ?? '', /1 before result · 1 with result · 1 unknown/);
  });

  it('reloaded mid-session: history from evidence, the held call live, then measured when it lands', async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('reload-mid');
    const s = new FakeSession(dir).title('Mid-turn reload').prompt('go');
    assert.equal((await runHook(dir, s.preToolUse('toolu_rl_done', 'Bash'))).code, 0);
    s.toolUse('toolu_rl_done', 'Bash');
    assert.equal((await runHook(dir, s.postToolUse('toolu_rl_done', 'Bash'))).code, 0);
    s.toolResult('toolu_rl_done');
    assert.equal((await runHook(dir, s.preToolUse('toolu_rl_held', 'Bash'))).code, 0);

    await useClaudeDir(api, dir);
    const node = await eventually(api, 'the held call', () => api.treeItems().find((n) => n.session_id === s.sessionId && n.children.some((c) => c.kind === 'held')));
    assert.match(node.children.find((c) => c.tool_use_id === 'toolu_rl_done')!.description, /· before result$/);

    s.toolUse('toolu_rl_held', 'Bash');
    const live = await eventually(api, 'the held call written', () =>
      api.treeItems().find((n) => n.session_id === s.sessionId)?.children.find((c) => c.tool_use_id === 'toolu_rl_held' && c.kind === 'written'),
    );
    assert.match(live.description, /^lag [\d.]+ ?m?s · before result$/);
  });
});

describe('a forked session (claude --resume ID --fork-session)', () => {
  after(closeAllEditors);

  it("shows the parent's copied calls as the parent's history, and the fork's own call as usual", async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('fork');
    const parent = new FakeSession(dir).title('Parent').prompt('go');
    assert.equal((await runHook(dir, parent.preToolUse('toolu_fk_parent', 'Bash'))).code, 0);
    parent.toolUse('toolu_fk_parent', 'Bash').toolResult('toolu_fk_parent');
    await useClaudeDir(api, dir);
    await eventually(api, 'the parent', () => api.treeItems().some((n) => n.session_id === parent.sessionId));

    // The fork's first write copies the parent's conversation: sessionId rewritten, and the copied
    // assistant records marked with the parent's id in requestSessionId, as Claude Code 2.1.332 writes it.
    const fork = new FakeSession(dir).title('Fork');
    const copied = fs
      .readFileSync(parent.transcriptPath, 'utf8')
      .split('\n')
      .filter((l) => l && !l.includes('"ai-title"'))
      .map((l) => {
        const rec = JSON.parse(l) as Record<string, unknown>;
        rec.sessionId = fork.sessionId;
        if (rec.type === 'assistant') rec.requestSessionId = parent.sessionId;
        return JSON.stringify(rec);
      });
    fs.appendFileSync(fork.transcriptPath, copied.map((l) => `${l}\n`).join(''));
    fork.prompt('go on');
    assert.equal((await runHook(dir, fork.preToolUse('toolu_fk_own', 'Bash'))).code, 0);
    await eventually(api, "the fork's own call held", () => api.treeItems().find((n) => n.session_id === fork.sessionId)?.children.some((c) => c.tool_use_id === 'toolu_fk_own' && c.kind === 'held'));
    fork.toolUse('toolu_fk_own', 'Bash');
    const node = await eventually(api, "the fork's own call written", () => {
      const n = api.treeItems().find((x) => x.session_id === fork.sessionId);
      return n?.children.some((c) => c.tool_use_id === 'toolu_fk_own' && c.kind === 'written') && n;
    });
    const copy = node.children.find((c) => c.tool_use_id === 'toolu_fk_parent')!;
    assert.equal(copy.description, `copied from ${parent.sessionId.slice(0, 8)}`);
    assert.match(node.children.find((c) => c.tool_use_id === 'toolu_fk_own')!.description, /^lag [\d.]+ ?m?s · before result$/);
  });
});
