import * as assert from 'node:assert/strict';
import { parse } from 'jsonc-parser';
import fc from 'fast-check';
import { buildHookCommand, buildHookExec, hookTimeoutSeconds, shellQuote } from '../../../../src/core/settings/hookCommand';
import { EXEC_FORM_SINCE, supportsExecForm } from '../../../../src/core/compat/claudeCode';
import { SettingsError, installHookEntries, installedHookCommands, uninstallHookEntries } from '../../../../src/core/settings/hookEntries';
import { execFileSync } from 'node:child_process';

const ours = (extra = '') => ({
  command: `'/usr/bin/node' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/.claude/transcript-lag'${extra}`,
  timeoutSec: 5,
});

const othersSettings = `{
    // my settings: comments stay
    "model": "opus", /* inline comment */
    "permissions": { "allow": ["Bash(git log:*)"] },
    "hooks": {
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "/usr/local/bin/review.sh", "timeout": 30 } ] }
        ],
        "Stop": [
            { "hooks": [ { "type": "command", "command": "notify-send done" } ] }
        ]
    }
}
`;

type Group = { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] };
const hooksOf = (text: string) => (parse(text) as { hooks?: Record<string, Group[]> }).hooks ?? {};

describe('settings.json hook entries', () => {
  it('adds one PreToolUse and one PostToolUse entry running our hook, matching every tool', () => {
    const out = installHookEntries('{}', ours());
    const hooks = hooksOf(out);
    assert.deepEqual(Object.keys(hooks), ['PreToolUse', 'PostToolUse']);
    for (const event of ['PreToolUse', 'PostToolUse']) {
      assert.deepEqual(hooks[event], [{ matcher: '*', hooks: [{ type: 'command', command: ours().command, timeout: 5 }] }]);
    }
  });

  it("keeps others' hooks, keys and comments, and their lines byte for byte", () => {
    const out = installHookEntries(othersSettings, ours());
    for (const line of othersSettings.split('\n').filter((l) => l.trim() && !/^\s*[\]}]/.test(l))) {
      assert.ok(out.includes(line), `kept: ${line}`);
    }
    const hooks = hooksOf(out);
    assert.equal(hooks.PreToolUse.length, 2);
    assert.equal(hooks.PreToolUse[0].hooks[0].command, '/usr/local/bin/review.sh');
    assert.equal(hooks.Stop[0].hooks[0].command, 'notify-send done');
    assert.equal(hooks.PostToolUse.length, 1);
    assert.equal((parse(out) as { model: string }).model, 'opus');
  });

  it("lays our entries out in the file's own indentation and line ends", () => {
    const tabs = '{\r\n\t"model": "opus"\r\n}\r\n';
    const out = installHookEntries(tabs, ours());
    assert.ok(!/[^\r]\n/.test(out), 'CRLF only');
    assert.ok(out.includes('\r\n\t"hooks": {\r\n\t\t"PreToolUse": [\r\n\t\t\t{'), JSON.stringify(out));
  });

  it('is idempotent: installing again changes nothing', () => {
    for (const start of ['', '{}', othersSettings, '{"a":1}']) {
      const once = installHookEntries(start, ours());
      assert.equal(installHookEntries(once, ours()), once);
    }
  });

  it('re-installing with other options replaces our entries in place, never duplicates', () => {
    const first = installHookEntries(othersSettings, ours());
    const second = installHookEntries(first, { ...ours(' --probe --polls 50 --poll-ms 100'), timeoutSec: 10 });
    const hooks = hooksOf(second);
    assert.equal(hooks.PreToolUse.length, 2);
    assert.equal(hooks.PostToolUse.length, 1);
    assert.ok(hooks.PreToolUse[1].hooks[0].command.endsWith('--poll-ms 100'));
    assert.equal(hooks.PreToolUse[1].hooks[0].timeout, 10);
    assert.deepEqual(installedHookCommands(second).PreToolUse.length, 1);
  });

  it('collapses duplicates of ours (e.g. copied by hand) into one, and takes ours out of a mixed group', () => {
    const mixed = JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: '*', hooks: [{ type: 'command', command: ours().command }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'review.sh' }, { type: 'command', command: ours().command + ' --old' }] },
          { matcher: '*', hooks: [{ type: 'command', command: ours().command + ' --older' }] },
        ],
      },
    });
    const hooks = hooksOf(installHookEntries(mixed, ours()));
    assert.deepEqual(hooks.PreToolUse, [
      { matcher: '*', hooks: [{ type: 'command', command: ours().command, timeout: 5 }] },
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'review.sh' }] },
    ]);
  });

  it('uninstall removes only ours, and gives back the original content', () => {
    const installed = installHookEntries(othersSettings, ours());
    const removed = uninstallHookEntries(installed);
    assert.deepEqual(parse(removed), parse(othersSettings));
    assert.equal(removed, othersSettings);
    assert.deepEqual(installedHookCommands(removed), { PreToolUse: [], PostToolUse: [] });
  });

  it('install then uninstall gives back one-line and empty files byte for byte', () => {
    for (const start of ['{}', '{"a":1}', '{ "a": 1 }', '{\n  "a": 1\n}\n', '{"hooks":{"Stop":[]}}', othersSettings]) {
      assert.equal(uninstallHookEntries(installHookEntries(start, ours())), start, start);
    }
  });

  it('uninstall leaves a file without our entries exactly as it was (empty lists included)', () => {
    const text = '{\n  "hooks": { "PreToolUse": [] },\n  // note\n  "x": 1\n}\n';
    assert.equal(uninstallHookEntries(text), text);
    assert.equal(uninstallHookEntries(''), '');
  });

  it('any order of installs and uninstalls keeps others intact and ours at most once per event (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('install', 'probe', 'uninstall'), { maxLength: 6 }), (steps) => {
        let text = othersSettings;
        for (const s of steps) {
          text = s === 'uninstall' ? uninstallHookEntries(text) : installHookEntries(text, s === 'probe' ? { ...ours(' --probe'), timeoutSec: 10 } : ours());
        }
        const installed = installedHookCommands(text);
        const last = steps[steps.length - 1];
        const expected = last === undefined || last === 'uninstall' ? 0 : 1;
        assert.equal(installed.PreToolUse.length, expected);
        assert.equal(installed.PostToolUse.length, expected);
        assert.equal(hooksOf(text).PreToolUse[0].hooks[0].command, '/usr/local/bin/review.sh');
        assert.equal(hooksOf(text).Stop.length, 1);
        if (expected === 0) assert.equal(text, othersSettings);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses invalid JSON, a non-object, and hooks of the wrong shape, saying where', () => {
    const cases: [string, RegExp][] = [
      ['{"a": 1,,}', /not valid JSON: .* at line 1, column/],
      ['{\n  "a": 1,\n}', /not valid JSON: .* at line 3/],
      ['[1]', /top level must be a JSON object/],
      ['{"hooks": []}', /"hooks" must be an object/],
      ['{"hooks": {"PreToolUse": {}}}', /"hooks.PreToolUse" must be an array/],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => installHookEntries(text, ours()), (e: unknown) => e instanceof SettingsError && message.test(e.message), text);
      assert.throws(() => uninstallHookEntries(text), SettingsError, text);
    }
  });
});

describe('hook command line', () => {
  it('quotes paths for a POSIX shell, spaces and quotes included', function () {
    if (process.platform === 'win32') this.skip();
    for (const word of ["/a b/it's \"x\" $HOME `id`", '', "''"]) {
      assert.equal(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`]).toString(), word);
    }
  });

  it('announce: quoted absolute runtime and hook, the channel folder, no timeout of its own (it never holds a call)', () => {
    const cmd = buildHookCommand({ nodePath: '/opt/node 20/bin/node', hookPath: '/h/.claude/transcript-lag/bin/transcript-lag-hook.js', channelDir: '/h/.claude/transcript-lag', probe: false });
    assert.equal(cmd, "'/opt/node 20/bin/node' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/.claude/transcript-lag'");
  });

  it('probe with an env prefix for an Electron runtime', () => {
    const cmd = buildHookCommand({
      nodePath: '/usr/share/code/code',
      nodeEnv: { ELECTRON_RUN_AS_NODE: '1' },
      hookPath: '/h/hook/transcript-lag-hook.js',
      channelDir: '/h/ch',
      probe: true,
      polls: 20,
      pollMs: 250,
    });
    assert.equal(cmd, "ELECTRON_RUN_AS_NODE='1' '/usr/share/code/code' '/h/hook/transcript-lag-hook.js' --channel-dir '/h/ch' --probe --polls 20 --poll-ms 250 --timeout-ms 10000");
    assert.throws(() => buildHookCommand({ nodePath: '/n', nodeEnv: { 'A;rm -rf': '1' }, hookPath: '/h', channelDir: '/c', probe: false }), RangeError);
    assert.throws(() => buildHookCommand({ nodePath: '/n', hookPath: '/h', channelDir: '/c', probe: true, polls: 0 }), RangeError);
  });

  it('gives a probe room for its whole wait before Claude Code would cancel it', () => {
    assert.equal(hookTimeoutSeconds({ probe: false }), 5);
    assert.equal(hookTimeoutSeconds({ probe: true }), 10);
    assert.equal(hookTimeoutSeconds({ probe: true, polls: 600, pollMs: 100 }), 65);
  });
});

describe('settings.json hook entries in exec form (no shell: Windows without Git Bash alike)', () => {
  const spec = { nodePath: 'C:\\Program Files\\nodejs\\node.exe', hookPath: 'C:\\Users\\me\\.claude\\transcript-lag\\bin\\transcript-lag-hook.js', channelDir: 'C:\\Users\\me\\.claude\\transcript-lag' };

  it('Claude Code versions: exec form from the first version measured to run it (npm run compat), as `claude --version` prints them', () => {
    assert.ok(EXEC_FORM_SINCE !== undefined, 'a measured version runs the exec form');
    assert.equal(supportsExecForm(`${EXEC_FORM_SINCE.join('.')} (Claude Code)`), true);
    assert.equal(supportsExecForm('2.1.332 (Claude Code)'), true);
    assert.equal(supportsExecForm('2.2.0'), true);
    assert.equal(supportsExecForm('3.0.0'), true);
    const [a, b, c] = EXEC_FORM_SINCE;
    assert.equal(supportsExecForm(`${a}.${b}.${c - 1} (Claude Code)`), false);
    assert.equal(supportsExecForm(`${a}.${b - 1}.999`), false);
    assert.equal(supportsExecForm('1.0.128'), false);
    for (const bad of [undefined, '', 'claude: not found', 'v2.1.332']) assert.equal(supportsExecForm(bad), false);
  });

  it('names the runtime and its arguments unquoted; a runtime needing an environment gets it from env(1), or on Windows no exec form', () => {
    assert.deepEqual(buildHookExec({ ...spec, probe: false }), { command: spec.nodePath, args: [spec.hookPath, '--channel-dir', spec.channelDir] });
    assert.deepEqual(buildHookExec({ ...spec, probe: true, polls: 30, pollMs: 200 })?.args.slice(3), ['--probe', '--polls', '30', '--poll-ms', '200', '--timeout-ms', '11000']);
    assert.deepEqual(buildHookExec({ ...spec, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false }), {
      command: '/usr/bin/env',
      args: ['ELECTRON_RUN_AS_NODE=1', spec.nodePath, spec.hookPath, '--channel-dir', spec.channelDir],
    });
    assert.equal(buildHookExec({ ...spec, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, shells: 'windows' }), undefined);
  });

  it('installs {command, args}; re-installing in either form replaces ours; uninstall recognises both', () => {
    const exec = buildHookExec({ ...spec, probe: false })!;
    const out = installHookEntries(othersSettings, { ...exec, timeoutSec: 5 });
    const pre = (parse(out) as { hooks: Record<string, { hooks: object[] }[]> }).hooks.PreToolUse;
    assert.deepEqual(pre[1], { matcher: '*', hooks: [{ type: 'command', command: exec.command, args: exec.args, timeout: 5 }] });
    assert.deepEqual(installedHookCommands(out).PreToolUse, [[exec.command, ...exec.args].join(' ')]);
    assert.equal(uninstallHookEntries(out), othersSettings);
    // From the shell form to the exec form and back: one entry of ours per event, never two.
    const shell = installHookEntries(othersSettings, ours());
    const toExec = installHookEntries(shell, { ...exec, timeoutSec: 5 });
    assert.equal(toExec, out);
    assert.equal(installHookEntries(toExec, ours()), shell);
  });

  it("leaves a user's exec entries alone: another script, ours with extra arguments, a relative runtime", () => {
    const theirs = [
      { command: 'C:\\node.exe', args: ['C:\\hooks\\review.js', '--channel-dir', 'C:\\x'] },
      { command: 'C:\\node.exe', args: [spec.hookPath, '--channel-dir', spec.channelDir, 'C:\\my log.txt'] },
      { command: 'node', args: [spec.hookPath, '--channel-dir', spec.channelDir] },
      { command: 'C:\\node.exe', args: ['transcript-lag-hook.js', '--channel-dir', spec.channelDir] },
      { command: 'C:\\node.exe', args: [spec.hookPath, '--channel-dir'] },
      { command: 'C:\\node.exe', args: [spec.hookPath, '--channel-dir', spec.channelDir, 7] },
    ];
    const text = `${JSON.stringify({ hooks: { PreToolUse: theirs.map((h) => ({ hooks: [{ type: 'command', ...h }] })) } }, null, 2)}\n`;
    assert.equal(uninstallHookEntries(text), text);
    assert.deepEqual(installedHookCommands(text).PreToolUse, []);
  });
});
