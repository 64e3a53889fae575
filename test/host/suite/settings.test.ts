// Settings apply without a reload: the Claude dir, which sessions are shown, and
// how many recent calls each keeps (warnAfterMs is covered with the status bar).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { scratchRoot } from './hostEnv';
import { eventually, extensionApi, FakeSession, newClaudeDir, runHook, setSetting, useClaudeDir, sessionFollowed } from './support';

describe('settings applied without reload', () => {
  after(async () => {
    await setSetting('sessions', undefined);
    await setSetting('recentCalls', undefined);
  });

  it('transcriptLag.claudeDir switches to another Claude dir', async () => {
    const api = await extensionApi();
    const a = newClaudeDir('settings-a');
    const b = newClaudeDir('settings-b');
    const inA = new FakeSession(a).title('Session in A').prompt('a');
    const inB = new FakeSession(b).title('Session in B').prompt('b');
    await useClaudeDir(api, a);
    await eventually(api, 'A listed', () => api.treeItems().some((n) => n.session_id === inA.sessionId));
    await useClaudeDir(api, b);
    const ids = await eventually(api, 'B listed instead of A', () => {
      const now = api.treeItems().map((n) => n.session_id);
      return now.includes(inB.sessionId) && !now.includes(inA.sessionId) && now;
    });
    assert.deepEqual(ids, [inB.sessionId]);
  });

  it('transcriptLag.sessions = all shows sessions of other folders too', async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('settings-scope');
    const here = new FakeSession(dir).prompt('here');
    const elsewhere = new FakeSession(dir, path.join(scratchRoot(), 'some-other-project')).prompt('elsewhere');
    await setSetting('sessions', 'workspace');
    await useClaudeDir(api, dir);
    await eventually(api, 'this workspace only', () => {
      const ids = api.treeItems().map((n) => n.session_id);
      return ids.includes(here.sessionId) && !ids.includes(elsewhere.sessionId);
    });
    await setSetting('sessions', 'all');
    await eventually(api, 'both sessions', () => {
      const ids = api.treeItems().map((n) => n.session_id);
      return ids.includes(here.sessionId) && ids.includes(elsewhere.sessionId);
    });
    await setSetting('sessions', 'workspace');
    await eventually(api, 'back to this workspace only', () => !api.treeItems().some((n) => n.session_id === elsewhere.sessionId));
  });

  it('transcriptLag.recentCalls bounds the written calls kept per session', async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('settings-recent');
    const s = new FakeSession(dir).prompt('many calls');
    await useClaudeDir(api, dir);
    await setSetting('recentCalls', 2);
    await sessionFollowed(api, s);
    for (const id of ['toolu_rc_1', 'toolu_rc_2', 'toolu_rc_3', 'toolu_rc_4']) {
      await runHook(dir, s.preToolUse(id, 'Read'));
      s.toolUse(id, 'Read').toolResult(id);
    }
    const written = await eventually(api, 'two recent calls', () => {
      const node = api.treeItems().find((n) => n.session_id === s.sessionId);
      const w = node?.children.filter((c) => c.kind === 'written').map((c) => c.tool_use_id);
      return w && w.length === 2 && w;
    });
    assert.deepEqual(written, ['toolu_rc_4', 'toolu_rc_3'], 'newest first');
    await setSetting('recentCalls', 3);
    await s.prompt('one more').toolUse('toolu_rc_5', 'Read');
    await eventually(api, 'three recent calls', () => {
      const node = api.treeItems().find((n) => n.session_id === s.sessionId);
      return node?.children.filter((c) => c.kind === 'written').length === 3;
    });
  });
});
