import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { parse } from 'jsonc-parser';
import { unwrapCommand, unwrapPreToolUseHooks, wrapCommand, wrapPreToolUseHooks } from '../../../../src/core/settings/wrapHooks';
import { main } from '../../../../src/cli/main';
import { capturingIo } from '../../helpers/capturingIo';

const repoRoot = path.resolve(__dirname, '../../../..');
const spec = { nodePath: '/usr/local/bin/node', wrapperPath: "/home/o'brien/.claude/transcript-lag/bin/transcript-lag-complete.js" };

// A hand-kept settings file: comments, odd layout, CRLF in places, other events, an exec-form hook,
// our own reporting hook, commands with quotes, $VARS and newlines.
const SETTINGS = `// my settings
{
  "model": "opus", /* keep */
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "python3 \\"$CLAUDE_PROJECT_DIR\\"/hooks/review.py --strict", "timeout": 30 } ] },
      {
        "matcher": "*",
        "hooks": [
          // the one that reads the transcript
          {"type":"command","command":"sh -c 'echo it'\\"s\\" && cat >/dev/null'"},\r
          { "type": "command", "command": "/usr/bin/node", "args": ["/x/review.js"] },
          { "type": "command", "command": "'/usr/bin/node' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/.claude/transcript-lag'" },
          { "type": "http", "url": "http://127.0.0.1:1/x" },
          { "type": "command", "command": "printf 'a\\nb'" }
        ]
      }
    ],
    "PostToolUse": [ { "hooks": [ { "type": "command", "command": "log-it" } ] } ]
  }
}
`;

const commandsOf = (text: string, event = 'PreToolUse'): string[] =>
  (parse(text).hooks[event] as Array<{ hooks: Array<{ command?: string }> }>).flatMap((g) => g.hooks.map((h) => h.command ?? ''));

describe('wrap-hooks / unwrap-hooks: PreToolUse command hooks behind `transcript-lag complete`', () => {
  it('a command comes back exactly, whatever it holds', () => {
    for (const c of ['ls', "it's", "'''", 'a\nb', '$HOME "x" `y` \\ z', '']) {
      const w = wrapCommand(c, spec);
      assert.equal(unwrapCommand(w), c);
    }
    assert.equal(unwrapCommand("'/n' '/x/other.js' -- sh -c 'ls'"), undefined, 'another program is not ours');
    assert.equal(unwrapCommand("node '/x/transcript-lag-complete.js' -- sh -c 'ls'"), undefined, 'not the form we write');
  });

  it('wraps each shell-form PreToolUse command hook and nothing else; unwrap gives back the file byte for byte', () => {
    const r = wrapPreToolUseHooks(SETTINGS, spec);
    assert.equal(r.changed, 3);
    assert.deepEqual(r.skipped.map((s) => s.why), ['exec form (args): no shell command line to wrap', "transcript-lag's own reporting hook"]);
    const before = commandsOf(SETTINGS);
    const after = commandsOf(r.text);
    assert.deepEqual(after.map((c, i) => (c === before[i] ? c : unwrapCommand(c))), before);
    assert.equal(after.filter((c, i) => c !== before[i]).length, 3);
    assert.deepEqual(commandsOf(r.text, 'PostToolUse'), ['log-it']);
    // Only the command strings changed: with them put back by hand, the rest is the same bytes.
    let restored = r.text;
    for (const c of after) if (unwrapCommand(c) !== undefined) restored = restored.replace(JSON.stringify(c), JSON.stringify(unwrapCommand(c)));
    assert.equal(restored, SETTINGS);
    // Again: nothing more to wrap.
    const again = wrapPreToolUseHooks(r.text, spec);
    assert.equal(again.changed, 0);
    assert.equal(again.text, r.text);
    const back = unwrapPreToolUseHooks(r.text);
    assert.equal(back.changed, 3);
    assert.equal(back.text, SETTINGS);
  });

  it('a wrapped command runs its hook through the wrapper: the same stdin, stdout and exit', async function () {
    this.timeout(60_000);
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-wrap-run-')));
    const wrapperPath = path.join(dir, 'transcript-lag-complete.js');
    await esbuild.build({ entryPoints: [path.join(repoRoot, 'src/cli/complete.ts')], outfile: wrapperPath, bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'silent' });
    const hook = `read -r line; printf '%s|%s' "$line" "$TRANSCRIPT_LAG_COMPLETE"; echo "it's blocked" >&2; exit 2`;
    const r = spawnSync('sh', ['-c', wrapCommand(hook, { nodePath: process.execPath, wrapperPath })], { input: '{"x":"y"}\n', encoding: 'utf8' });
    assert.deepEqual([r.status, r.stdout, r.stderr], [2, '{"x":"y"}|0', "it's blocked\n"]);
  });

  it('the CLI edits the Claude dir\'s or a project\'s settings.json, with a backup, and puts the wrapper in place first', async function () {
    this.timeout(60_000);
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-wrap-cli-')));
    const claudeDir = path.join(home, '.claude');
    const project = path.join(home, 'proj');
    fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
    const settings = path.join(project, '.claude', 'settings.json');
    fs.writeFileSync(settings, SETTINGS);
    // The build beside the sources (npm run build): the wrapper copied from it.
    assert.ok(fs.existsSync(path.join(repoRoot, 'dist', 'cli-complete.js')), 'npm run build first');
    const io = capturingIo(home, { ...process.env, CLAUDE_CONFIG_DIR: claudeDir });
    assert.equal(await main(['wrap-hooks', '--project', project, '--claude-dir', claudeDir], io.io), 0, io.err());
    assert.match(io.out(), /wrapped 3 PreToolUse command hooks/);
    const wrapper = path.join(claudeDir, 'transcript-lag', 'bin', 'transcript-lag-complete.js');
    assert.ok(fs.readFileSync(wrapper).equals(fs.readFileSync(path.join(repoRoot, 'dist', 'cli-complete.js'))));
    assert.equal(fs.readFileSync(settings + '.transcript-lag.bak', 'utf8'), SETTINGS);
    const wrapped = fs.readFileSync(settings, 'utf8');
    assert.ok(commandsOf(wrapped).some((c) => c.includes(JSON.stringify(wrapper).slice(1, -1)) || c.includes(wrapper)));
    const io2 = capturingIo(home, { ...process.env, CLAUDE_CONFIG_DIR: claudeDir });
    assert.equal(await main(['unwrap-hooks', '--project', project, '--claude-dir', claudeDir], io2.io), 0, io2.err());
    assert.equal(fs.readFileSync(settings, 'utf8'), SETTINGS);
  });

  it('refuses a settings file that is not valid JSON, leaving it untouched', async () => {
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-wrap-bad-')));
    const claudeDir = path.join(home, '.claude');
    fs.mkdirSync(claudeDir);
    fs.writeFileSync(path.join(claudeDir, 'settings.json'), '{ "hooks": ');
    const io = capturingIo(home, process.env);
    assert.equal(await main(['wrap-hooks', '--claude-dir', claudeDir], io.io), 1);
    assert.equal(fs.readFileSync(path.join(claudeDir, 'settings.json'), 'utf8'), '{ "hooks": ');
  });
});
