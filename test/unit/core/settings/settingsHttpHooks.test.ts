import { strict as assert } from 'node:assert';
import { installedHookCommands, installHookEntries, isOurHttpHook, uninstallHookEntries } from '../../../../src/core/settings/hookEntries';

const command = `'/usr/bin/node' '/home/me/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/home/me/.claude/transcript-lag'`;
const http = { url: 'http://127.0.0.1:41877/hook', secret: 'S'.repeat(43), timeoutSec: 1 };
const userSettings = `{
  // my hooks
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "http", "url": "http://127.0.0.1:41877/hook", "timeout": 3 }] }
    ]
  },
  "model": "opus"
}
`;

describe('settings: our http hook entries', () => {
  it('install --http adds one http entry per event, fail open with a 1 s timeout and our secret header; uninstall gives back the bytes', () => {
    const installed = installHookEntries(userSettings, http);
    const value = JSON.parse(installed.replace(/^\s*\/\/.*$/m, ''));
    const ours = value.hooks.PreToolUse[1].hooks[0];
    assert.deepEqual(ours, { type: 'http', url: http.url, timeout: 1, headers: { 'X-Transcript-Lag-Secret': http.secret }, onFailure: 'continue' });
    assert.equal(value.hooks.PostToolUse[0].hooks[0].type, 'http');
    assert.deepEqual(installedHookCommands(installed), { PreToolUse: [http.url], PostToolUse: [http.url] });
    assert.equal(uninstallHookEntries(installed), userSettings);
  });

  it("the user's own http hook on the same URL is theirs: without our header it is never replaced or removed", () => {
    assert.equal(isOurHttpHook({ type: 'http', url: http.url, timeout: 3 }), false);
    assert.equal(isOurHttpHook({ type: 'http', url: 'http://example.com:41877/hook', headers: { 'X-Transcript-Lag-Secret': 'x' } }), false);
    assert.equal(isOurHttpHook({ type: 'http', url: http.url, headers: { 'X-Transcript-Lag-Secret': 'x' } }), true);
    assert.equal(uninstallHookEntries(userSettings), userSettings);
  });

  it('one transport at a time: installing either kind replaces the other, and again is a no-op', () => {
    const asCommand = installHookEntries(userSettings, { command, timeoutSec: 5 });
    const asHttp = installHookEntries(asCommand, http);
    assert.deepEqual(installedHookCommands(asHttp), { PreToolUse: [http.url], PostToolUse: [http.url] });
    assert.equal(installHookEntries(asHttp, http), asHttp);
    const back = installHookEntries(asHttp, { command, timeoutSec: 5 });
    assert.deepEqual(installedHookCommands(back), { PreToolUse: [command], PostToolUse: [command] });
    assert.equal(uninstallHookEntries(back), userSettings);
  });
});
