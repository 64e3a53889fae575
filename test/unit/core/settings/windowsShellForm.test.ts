import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Language, Parser, type Node as SyntaxNode } from 'web-tree-sitter';
import {
  buildHookExec,
  buildShellForm,
  cmdExeOf,
  launcherRefusal,
  hookLauncherText,
  launcherExec,
  POSIX_ENV_PROGRAM,
  windowsShellQuote,
  type HookCommandSpec,
} from '../../../../src/core/settings/hookCommand';
import { cmdTakesAsIs } from '../../../../src/rules/cmdArgument';
import { installHookEntries, isOurHookCommand, isOurHookExec, uninstallHookEntries } from '../../../../src/core/settings/hookEntries';
import { buildStatusLineCommand, isOurStatusLineCommand } from '../../../../src/core/settings/statusLineSettings';

// The Windows shell form (issue 26): one command line that Git Bash and PowerShell both run as
// "the runtime, with these arguments". No PowerShell runs on this machine (none is packaged for
// Debian or npm without a download), so PowerShell's side is judged by an independent parser of
// its grammar (tree-sitter-powershell, parsing as PowerShell does: a quoted first word is a string
// expression, not a command); bash's side by bash itself.

let powershell: Parser;

before(async () => {
  await Parser.init();
  const wasm = path.join(path.dirname(require.resolve('tree-sitter-powershell/package.json')), 'tree-sitter-powershell.wasm');
  powershell = new Parser();
  powershell.setLanguage(await Language.load(wasm));
});

/** What PowerShell runs for `line`: the command's name and its arguments' values; undefined when it is not one plain command. */
function powershellCommand(line: string): { name: string; args: string[] } | undefined {
  const tree = powershell.parse(line);
  if (!tree || tree.rootNode.hasError) return undefined;
  const commands = tree.rootNode.descendantsOfType('command');
  if (commands.length !== 1) return undefined;
  const command = commands[0]!;
  // `& 'x'` or a name that is itself an expression is not what we write.
  const name = command.childForFieldName('command_name');
  if (!name || name.type !== 'command_name') return undefined;
  const elements = command.childForFieldName('command_elements');
  const args = (elements?.namedChildren ?? []).filter((n): n is SyntaxNode => n !== null && n.type !== 'command_argument_sep').map((n) => argumentValue(n.text));
  return { name: name.text, args };
}

/** A single- or double-quoted PowerShell string's value (we write no `$`/backtick in double quotes), else the bare word. */
function argumentValue(text: string): string {
  if (text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  if (text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1);
  return text;
}

/** What bash runs for `line`, when the runtime word is a bare name bash can take as a function name. */
function bashArguments(line: string, runtimeWord: string): string[] {
  const out = execFileSync('bash', ['-c', `function ${runtimeWord} { printf '%s\\0' "$@"; }; ${line}`]);
  return out.toString('utf8').split('\0').slice(0, -1);
}

const base: HookCommandSpec = {
  nodePath: 'C:\\nodejs\\node.exe',
  hookPath: 'C:\\Users\\me\\.claude\\transcript-lag\\bin\\transcript-lag-hook.js',
  channelDir: 'C:\\Users\\me\\.claude\\transcript-lag',
  probe: true,
  polls: 20,
  pollMs: 250,
  shells: 'windows',
};
const slashed = (p: string) => p.replace(/\\/g, '/');
const hookWords = (spec: HookCommandSpec) => buildHookExec({ ...spec, shells: 'posix' })!.args.map(slashed);

const cases: { title: string; spec: HookCommandSpec; runtimeWord: string }[] = [
  { title: 'a runtime path with nothing to quote, written bare with forward slashes', spec: base, runtimeWord: 'C:/nodejs/node.exe' },
  {
    title: 'C:\\Program Files\\nodejs\\node.exe, which PATH finds as node: `node`',
    spec: { ...base, nodePath: 'C:\\Program Files\\nodejs\\node.exe', nodeOnPath: true },
    runtimeWord: 'node',
  },
  {
    title: 'a home folder with a space and an apostrophe (C:\\Users\\Ann O\'Brien)',
    spec: { ...base, hookPath: "C:\\Users\\Ann O'Brien\\.claude\\transcript-lag\\bin\\transcript-lag-hook.js", channelDir: "C:\\Users\\Ann O'Brien\\.claude\\transcript-lag" },
    runtimeWord: 'C:/nodejs/node.exe',
  },
  {
    title: 'a UNC claude dir and announce mode',
    spec: { ...base, probe: false, hookPath: '\\\\server\\share\\me\\.claude\\transcript-lag\\bin\\transcript-lag-hook.js', channelDir: '\\\\server\\share\\me\\.claude\\transcript-lag' },
    runtimeWord: 'C:/nodejs/node.exe',
  },
];

describe('Windows hook command: one form for Git Bash and PowerShell', () => {
  for (const { title, spec, runtimeWord } of cases) {
    it(`${title}: PowerShell runs the runtime with exactly our arguments`, () => {
      const form = buildShellForm(spec);
      assert.equal(form.gitBashOnly, false);
      assert.ok(!form.command.includes('\\'), form.command);
      assert.deepEqual(powershellCommand(form.command), { name: runtimeWord, args: hookWords(spec) }, form.command);
      assert.ok(isOurHookCommand(form.command), form.command);
    });
    it(`${title}: bash runs it with exactly our arguments`, () => {
      const form = buildShellForm(spec);
      assert.deepEqual(bashArguments(form.command, runtimeWord), hookWords(spec), form.command);
    });
  }

  it('a runtime path with a space and no node on PATH: quoted, which PowerShell does not run, and it says so', () => {
    const spec = { ...base, nodePath: 'C:\\Program Files\\nodejs\\node.exe' };
    const form = buildShellForm(spec);
    assert.equal(form.gitBashOnly, true);
    assert.ok(form.command.startsWith("'C:/Program Files/nodejs/node.exe' "), form.command);
    // What the flag claims: PowerShell takes the quoted first word for a string, not a command.
    assert.equal(powershellCommand(form.command), undefined);
    assert.ok(isOurHookCommand(form.command));
  });

  it('the POSIX form, quoted runtime and all, is not a command to PowerShell (what the Windows form exists for)', () => {
    const posix = buildShellForm({ ...base, shells: 'posix' }).command;
    assert.equal(powershellCommand(posix), undefined, posix);
    assert.deepEqual(powershellCommand(buildShellForm(base).command)?.name, 'C:/nodejs/node.exe');
  });

  it('takes no environment prefix (PowerShell would run `NAME=value` as a command); env(1) carries it in the POSIX exec form', () => {
    const electron = { ...base, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' } };
    assert.throws(() => buildShellForm(electron), RangeError);
    assert.equal(buildHookExec(electron), undefined);
    const posix = buildHookExec({ ...electron, shells: 'posix', nodePath: '/opt/code/code' })!;
    assert.equal(posix.command, POSIX_ENV_PROGRAM);
    assert.deepEqual(posix.args.slice(0, 3), ['ELECTRON_RUN_AS_NODE=1', '/opt/code/code', base.hookPath]);
    assert.ok(isOurHookExec(posix.command, posix.args));
    assert.ok(!isOurHookExec(POSIX_ENV_PROGRAM, ['ELECTRON_RUN_AS_NODE=1', 'code', base.hookPath, '--channel-dir', base.channelDir]), 'a relative runtime is not ours');
    assert.ok(!isOurHookExec(POSIX_ENV_PROGRAM, [base.hookPath, '--channel-dir', base.channelDir]), 'env without an assignment is not ours');
    // env(1) would take a runtime path with `=` for one more assignment: no exec form for it.
    assert.equal(buildHookExec({ ...electron, shells: 'posix', nodePath: '/opt/a=b/code' }), undefined);
  });

  it('quotes for both shells or refuses: a value with both an apostrophe and $, " or a backtick has no common spelling', () => {
    assert.equal(windowsShellQuote('C:\\a b\\x'), "'C:/a b/x'");
    assert.equal(windowsShellQuote("C:\\O'Brien\\x"), `"C:/O'Brien/x"`);
    for (const bad of ["C:\\O'Brien\\$x", "C:\\O'B`x"]) assert.throws(() => windowsShellQuote(bad), RangeError);
    assert.equal(windowsShellQuote('C:\\$Recycle.Bin\\x'), "'C:/$Recycle.Bin/x'");
    // PowerShell reads the curly quotes as quotes; bash does not.
    assert.equal(windowsShellQuote('C:\\Users\\Bob\u2019s PC\\x'), '"C:/Users/Bob\u2019s PC/x"');
    assert.deepEqual(powershellCommand(`node ${windowsShellQuote('C:\\Users\\Bob\u2019s PC\\x')}`), { name: 'node', args: ['C:/Users/Bob\u2019s PC/x'] });
    assert.throws(() => windowsShellQuote('C:\\Users\\Bob\u2019s \u201cPC\u201d'), RangeError);
    assert.deepEqual(powershellCommand(`node ${windowsShellQuote('C:\\$Recycle.Bin\\x')}`), { name: 'node', args: ['C:/$Recycle.Bin/x'] });
  });

  it('the status line follows the same rule, its base64url --wrap a bare word', () => {
    const spec = { nodePath: 'C:\\Program Files\\nodejs\\node.exe', nodeOnPath: true, scriptPath: 'C:\\Users\\me\\.claude\\transcript-lag\\bin\\transcript-lag-statusline.js', channelDir: 'C:\\Users\\me\\.claude\\transcript-lag', shells: 'windows' as const };
    const command = buildStatusLineCommand(spec, 'eyJjb21tYW5kIjoieCJ9');
    const words = [slashed(spec.scriptPath), '--channel-dir', slashed(spec.channelDir), '--wrap', 'eyJjb21tYW5kIjoieCJ9'];
    assert.deepEqual(powershellCommand(command), { name: 'node', args: words });
    assert.ok(isOurStatusLineCommand(command));
  });

  it('the status line: bash runs it with exactly our arguments', () => {
    const spec = { nodePath: 'C:\\nodejs\\node.exe', scriptPath: "C:\\Users\\O'Brien\\.claude\\transcript-lag\\bin\\transcript-lag-statusline.js", channelDir: "C:\\Users\\O'Brien\\.claude\\transcript-lag", shells: 'windows' as const };
    const words = [slashed(spec.scriptPath), '--channel-dir', slashed(spec.channelDir), '--wrap', 'eyJjb21tYW5kIjoieCJ9'];
    assert.deepEqual(bashArguments(buildStatusLineCommand(spec, 'eyJjb21tYW5kIjoieCJ9'), 'C:/nodejs/node.exe'), words);
  });

  it('uninstall recognises every form install-hook writes on Windows, and re-install replaces each', () => {
    const launcher = 'C:/Users/me/.claude/transcript-lag/bin/transcript-lag-hook.cmd';
    const forms = [
      buildShellForm(base).command,
      buildShellForm({ ...base, nodePath: 'C:\\Program Files\\nodejs\\node.exe', nodeOnPath: true }).command,
      buildShellForm({ ...base, nodePath: 'C:\\Program Files\\nodejs\\node.exe' }).command,
      buildShellForm({ ...base, channelDir: "C:\\O'Brien\\.claude\\transcript-lag" }).command,
      launcher,
      `'C:/Users/Ann Lee/.claude/transcript-lag/bin/transcript-lag-hook.cmd'`,
    ];
    for (const command of forms) {
      const installed = installHookEntries('{}', { command, timeoutSec: 5 });
      assert.equal(uninstallHookEntries(installed), '{}', command);
      const replaced = installHookEntries(installed, { command: buildShellForm(base).command, timeoutSec: 5 });
      assert.equal((JSON.parse(replaced) as { hooks: { PreToolUse: unknown[] } }).hooks.PreToolUse.length, 1, command);
    }
    // Someone else's command that merely runs our launcher among other things is theirs.
    // A bare runtime is ours only in the Windows form's shape: a user's bare POSIX wrapper is theirs.
    for (const theirs of [`${launcher} --verbose`, `cmd /c ${launcher}`, 'transcript-lag-hook.cmd', `node 'C:/x/transcript-lag-hook.js'`, "/home/me/bin/timed '/h/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/.claude/transcript-lag'"]) {
      assert.equal(isOurHookCommand(theirs), false, theirs);
    }
  });
});

describe('Windows launcher (a runtime that needs an environment)', () => {
  const electron: HookCommandSpec = {
    ...base,
    nodePath: 'C:\\Users\\José\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe',
    nodeEnv: { ELECTRON_RUN_AS_NODE: '1' },
    hookPath: 'C:\\Users\\José\\.claude\\transcript-lag\\bin\\transcript-lag-hook.js',
    channelDir: 'C:\\Users\\José\\.claude\\transcript-lag',
  };
  const env = { LOCALAPPDATA: 'C:\\Users\\José\\AppData\\Local', USERPROFILE: 'C:\\Users\\José' };

  it('one line: sets the environment, runs the whole command, exits 0; the hook and channel from its own place, a non-ASCII runtime through a folder variable', () => {
    const text = hookLauncherText(electron, env);
    assert.equal(text.split('\r\n').length, 2, 'one line, so a launcher rewritten while it runs is never read again');
    assert.equal(
      text,
      '@setlocal DisableDelayedExpansion & set "ELECTRON_RUN_AS_NODE=1" & "%LOCALAPPDATA%\\Programs\\Microsoft VS Code\\Code.exe" "%~dp0transcript-lag-hook.js" "--channel-dir" "%~dp0.." ' +
        '"--probe" "--polls" "20" "--poll-ms" "250" "--timeout-ms" "10000" & exit /b 0\r\n',
    );
    assert.ok(/^[\x20-\x7e\r\n]*$/.test(text), 'plain ASCII: cmd reads a batch file in the console code page');
  });

  it('doubles % and a trailing backslash, and refuses what a batch file cannot say', () => {
    const text = hookLauncherText({ ...electron, nodePath: 'C:\\tools\\100%\\node.exe', nodeEnv: { ELECTRON_RUN_AS_NODE: '1', X: 'a\\' } }, env);
    assert.ok(text.includes('"C:\\tools\\100%%\\node.exe"'), text);
    assert.ok(text.includes('set "X=a\\\\"'), text);
    assert.throws(() => hookLauncherText({ ...electron, nodePath: 'D:\\Ünïcode\\Code.exe' }, env), /not plain ASCII/);
    assert.throws(() => hookLauncherText({ ...electron, nodeEnv: { 'A B': '1' } }, env), RangeError);
    assert.throws(() => hookLauncherText({ ...electron, channelDir: 'C:\\elsewhere' }, env), /its own place/);
  });

  it('runs in exec form through cmd.exe where cmd keeps the quoted path as it is; not for a path with & ( ) % and the like', () => {
    const launcher = 'C:\\Users\\John Smith\\.claude\\transcript-lag\\bin\\transcript-lag-hook.cmd';
    const cmd = cmdExeOf({ ComSpec: 'C:\\WINDOWS\\system32\\cmd.exe' });
    assert.deepEqual(launcherExec(launcher, cmd), { command: 'C:\\WINDOWS\\system32\\cmd.exe', args: ['/d', '/c', launcher] });
    assert.ok(isOurHookExec(cmd, ['/d', '/c', launcher]));
    for (const bad of ['C:\\Users\\A&B', 'C:\\Users\\Ann (Work)', 'C:\\Users\\100%', 'C:\\Users\\a!b', 'C:\\Users\\a^b']) {
      assert.equal(cmdTakesAsIs(bad), false, bad);
      assert.throws(() => launcherExec(`${bad}\\.claude\\transcript-lag\\bin\\transcript-lag-hook.cmd`, cmd), /put Node on PATH/, bad);
    }
    assert.equal(cmdTakesAsIs("C:\\Users\\Ann O'Brien\\José"), true);
    // %ComSpec% only when it names cmd.exe; else under %SystemRoot%.
    assert.equal(cmdExeOf({ ComSpec: 'C:\\tools\\tcc.exe', SystemRoot: 'D:\\Win' }), 'D:\\Win\\System32\\cmd.exe');
    assert.equal(cmdExeOf({}), 'C:\\Windows\\System32\\cmd.exe');
    // Ours is exactly that: cmd.exe, /d /c, our launcher by an absolute path, nothing else.
    for (const [command, args] of [
      [cmd, ['/d', '/c', launcher, '--x']],
      [cmd, ['/c', launcher]],
      [cmd, ['/d', '/c', 'transcript-lag-hook.cmd']],
      [cmd, ['/d', '/c', 'C:\\x\\mine.cmd']],
      ['cmd.exe', ['/d', '/c', launcher]],
    ] as const) assert.equal(isOurHookExec(command, args), false, `${command} ${args.join(' ')}`);
  });

  it('cmdTakesAsIs is a whitelist: letters and digits of any script, the space and \\ : . _ - \' ~ # $ + [ ] { }; nothing cmd splits at, acts on or expands', () => {
    for (const ok of ['C:\\Users\\RUNNER~1\\AppData\\Local\\Temp', 'D:\\dev\\C++ {x} [y] #1 $z', 'C:\\Users\\Łukasz\\Документы\\日本語', 'C:\\Users\\Jose\u0301', '\\\\server\\share\\.claude']) {
      assert.equal(cmdTakesAsIs(ok), true, ok);
    }
    // `,` `;` `=` split an argument as a space does (del of `…\\.claude,work\\f` also deletes every file in `…\\.claude`); the
    // rest act or expand, `/` is a switch to del, `* ?` wildcards, U+00FF and NBSP the 0xFF cmd splits at; no control character.
    for (const bad of [',', ';', '=', '&', '|', '<', '>', '^', '%', '!', '(', ')', '"', '@', '/', '*', '?', '`', '\t', '\r', '\n', '\x0b', '\x0c', '\x00', '\x1b', '\u00a0', '\u00ff', '\u3000', '\uff02', '\u2028']) {
      assert.equal(cmdTakesAsIs(`C:\\Users\\bob\\.claude${bad}work`), false, JSON.stringify(bad));
    }
    const refusal = launcherRefusal('C:\\Users\\bob\\.claude,work\\transcript-lag\\bin\\transcript-lag-hook.cmd');
    assert.match(refusal ?? '', /splits one at , ; =.*put Node on PATH, and the hook needs no launcher$/);
    assert.equal(launcherRefusal('C:\\Users\\bob\\.claude\\transcript-lag\\bin\\transcript-lag-hook.cmd'), undefined);
    assert.throws(() => launcherExec('C:\\Users\\bob\\.claude,work\\transcript-lag\\bin\\transcript-lag-hook.cmd', 'C:\\Windows\\System32\\cmd.exe'), /put Node on PATH/);
  });
});
