import * as assert from 'node:assert/strict';
import { buildHookCommand, buildHookExec } from '../../../../src/core/settings/hookCommand';
import { addSettingsHooks, hooksFor, SettingsError, type SettingsHooks } from '../../../../src/core/replay/replayHooks';

const ours = { nodePath: '/usr/bin/node', hookPath: '/home/me/.claude/transcript-lag/bin/transcript-lag-hook.js', channelDir: '/home/me/.claude/transcript-lag', probe: false };

function found(): SettingsHooks {
  return { hooks: [], notes: [], disabled: false };
}

describe('replay --settings: the PreToolUse command hooks of the settings files', () => {
  it('takes shell and exec forms with their matcher and timeout; leaves http hooks, other types and our own entries', () => {
    const f = found();
    const user = {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/bin/python3', args: ['/home/me/review.py', '--strict'], timeout: 5 }] },
          { matcher: '*', hooks: [{ type: 'http', url: 'http://127.0.0.1:9/hook' }, { type: 'prompt', prompt: 'is it ok?' }] },
          { matcher: '*', hooks: [{ type: 'command', command: buildHookCommand(ours) }] },
          { matcher: '*', hooks: [{ type: 'command', ...buildHookExec(ours)! }] },
        ],
        PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'echo post' }] }],
      },
    };
    // Comments, as Claude Code's settings files may hold them.
    addSettingsHooks(f, `// mine\n${JSON.stringify(user, null, 2)}`, 'user');
    addSettingsHooks(f, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Read|Glob', hooks: [{ type: 'command', command: 'sh ./check.sh' }] }] } }), 'project');
    assert.deepEqual(f.hooks, [
      { command: '/usr/bin/python3', args: ['/home/me/review.py', '--strict'], matcher: 'Bash', timeoutSec: 5, source: 'user' },
      { command: 'sh ./check.sh', matcher: 'Read|Glob', source: 'project' },
    ]);
    assert.equal(f.notes.length, 4, f.notes.join('\n'));
    assert.ok(f.notes.some((n) => n.includes('"http"')));
    assert.equal(f.notes.filter((n) => n.includes("transcript-lag's own")).length, 2);
  });

  it('runs for a tool each hook whose matcher takes it, an identical command once', () => {
    const f = found();
    addSettingsHooks(f, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command: 'a' }] }, { matcher: 'Bash', hooks: [{ type: 'command', command: 'a' }, { type: 'command', command: 'b' }] }] } }), 'user');
    addSettingsHooks(f, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '^Ba', hooks: [{ type: 'command', command: 'b' }, { type: 'command', command: 'b', args: [] }] }] } }), 'local');
    assert.deepEqual(
      hooksFor(f.hooks, 'Bash').map((h) => [h.command, h.args, h.source]),
      [
        ['a', undefined, 'user'],
        ['b', undefined, 'user'],
        ['b', [], 'local'],
      ],
    );
    assert.deepEqual(
      hooksFor(f.hooks, 'Read').map((h) => h.command),
      ['a'],
    );
  });

  it('says disableAllHooks, and refuses a file that is not valid settings', () => {
    const f = found();
    addSettingsHooks(f, '\ufeff{"disableAllHooks": true}', 'local');
    assert.equal(f.disabled, true);
    assert.throws(() => addSettingsHooks(found(), '{"hooks": ', 'user'), SettingsError);
    assert.throws(() => addSettingsHooks(found(), '{"hooks": {"PreToolUse": {}}}', 'user'), SettingsError);
  });
});
