import { strict as assert } from 'node:assert';
import { MAX_HOOK_LABEL_LENGTH } from '../../../src/rules/channelConstants';
import { hookLabel, hookRunDecision, type HookRun, MAX_HOOK_RUNS_PER_CALL, shellWords, withHookRun } from '../../../src/rules/hookRun';

// A wrapped hook's run (issue 39 §4): its label names the hook and never carries an argument's value;
// its decision is Claude Code's reading of its exit and stdout; a call keeps a bounded list of runs.
describe('hook runs (src/rules/hookRun.ts)', () => {
  describe('the label', () => {
    const cases: Array<[string, [string, string[]], string]> = [
      ['a script run directly: its file name', ['/home/me/.claude/hooks/guard.sh', ['--strict']], 'guard.sh'],
      ['a runner: the script it runs, not the runner', ['python3', ['/home/me/hooks/review.py', '--token', 'sk-secret']], 'review.py'],
      ["a runner's options before the script are skipped", ['node', ['--max-old-space-size=64', 'check.mjs']], 'check.mjs'],
      ['code given inline: the runner alone, never the code', ['node', ['-e', 'console.log(process.env.TOKEN)']], 'node'],
      ["python -m: the module", ['python3', ['-m', 'pkg.hook', '--x']], 'pkg.hook'],
      ['npx and its package', ['npx', ['some-guard', '--key=abc']], 'some-guard'],
      ["a word after an option may be the option's value: not taken unless it looks like a script", ['npx', ['-y', 'some-guard']], 'npx'],
      ['an option value that is a URL with credentials never makes the label', ['npx', ['--registry', 'https://user:pa55@host/x', 'pkg']], 'pkg'],
      ['a positional URL is no name either', ['node', ['https://user:pa55@host/x.js']], 'node'],
      ['a Windows program: its file name', ['C:\\Tools\\guard.exe', []], 'guard.exe'],
    ];
    for (const [what, [program, args], label] of cases) {
      it(`${what}: ${label}`, () => assert.equal(hookLabel(program, args), label));
    }

    it("wrap-hooks' sh -c '<command>': the command's label, not sh's", () => {
      assert.equal(hookLabel('sh', ['-c', '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --fast']), 'check.sh');
      assert.equal(hookLabel('sh', ['-c', 'python3 ~/.claude/hooks/review.py | tee /tmp/log']), 'review.py');
      assert.equal(hookLabel('sh', ['-c', "node -e 'require(1)'"]), 'node');
      assert.equal(hookLabel('sh', ['-c', 'exec ./guard']), 'guard');
      assert.equal(hookLabel('/bin/bash', ['-c', "jq -r '.tool_input.command' | grep -q rm && exit 2"]), 'jq');
    });

    it('assignments before the program (a token in the environment) never reach the label', () => {
      const label = hookLabel('sh', ['-c', 'API_KEY=sk-live-123 OTHER="a b" ./hooks/guard.sh --password hunter2']);
      assert.equal(label, 'guard.sh');
      assert.equal(hookLabel('env', ['TOKEN=xyz', 'node', 'h.js']), 'h.js');
      assert.equal(hookLabel('/usr/bin/env', ['-i', 'TOKEN=xyz', 'python3', 'review.py']), 'review.py');
      assert.equal(hookLabel('sh', ['-c', 'exec /usr/bin/env TOKEN=x ./guard.sh']), 'guard.sh');
    });

    it('control characters stripped, bounded, never empty', () => {
      assert.equal(hookLabel('./a\u001b[2Jb.sh', []), 'a[2Jb.sh');
      const long = hookLabel(`/x/${'h'.repeat(200)}.sh`, []);
      assert.equal(long.length, MAX_HOOK_LABEL_LENGTH);
      assert.ok(long.endsWith('…'));
      // A cut never splits a surrogate pair.
      const emoji = hookLabel(`${'h'.repeat(MAX_HOOK_LABEL_LENGTH - 2)}😀😀😀`, []);
      assert.ok(emoji.length <= MAX_HOOK_LABEL_LENGTH && !/[\ud800-\udbff]…$/.test(emoji), emoji);
      assert.equal(hookLabel('sh', ['-c', '']), 'sh');
      assert.equal(hookLabel('', []), 'hook');
    });

    it('shell words: quotes and escapes undone, stopped at an operator', () => {
      assert.deepEqual(shellWords(`a 'b c' "d \\"e\\"" f\\ g; h`), ['a', 'b c', 'd "e"', 'f g']);
      assert.deepEqual(shellWords('x > out'), ['x']);
    });
  });

  describe('the decision, as Claude Code reads it', () => {
    it('exit 2 blocks; exit 0 allows or says its JSON; another exit or a signal is an error', () => {
      assert.equal(hookRunDecision(2, null, '', false), 'block');
      assert.equal(hookRunDecision(0, null, '', false), 'allow');
      assert.equal(hookRunDecision(0, null, '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}\n', false), 'deny');
      assert.equal(hookRunDecision(0, null, '{"hookSpecificOutput":{"permissionDecision":"ask"}}', false), 'ask');
      assert.equal(hookRunDecision(0, null, '{"decision":"block","reason":"no"}', false), 'deny');
      assert.equal(hookRunDecision(1, null, '{"hookSpecificOutput":{"permissionDecision":"deny"}}', false), 'error', 'JSON is read on exit 0 only');
      assert.equal(hookRunDecision(null, 'SIGTERM', '', false), 'error');
      assert.equal(hookRunDecision(127, null, '', false), 'error');
    });

    it('exit 0 with more stdout than the head kept: not read (a JSON answer cut there says nothing)', () => {
      assert.equal(hookRunDecision(0, null, '{"hookSpecificOutput":{"permissionDecision":"de', true), undefined);
      assert.equal(hookRunDecision(2, null, 'x', true), 'block', 'exit 2 needs no stdout');
    });
  });

  describe("a call's runs", () => {
    const run = (hook: string, at: number, ms: number, over: Partial<HookRun> = {}): HookRun => ({ hook, at, ms, exit_code: 0, decision: 'allow', completed: true, ...over });

    it('by start, the same run read twice kept once, at most MAX_HOOK_RUNS_PER_CALL', () => {
      let runs: HookRun[] = [];
      runs = withHookRun(runs, run('late.sh', 5000, 100)) ?? runs;
      runs = withHookRun(runs, run('long.py', 5050, 3000)) ?? runs;
      assert.deepEqual(runs.map((r) => r.hook), ['long.py', 'late.sh'], 'long.py started at 2050, late.sh at 4900');
      assert.equal(withHookRun(runs, run('late.sh', 5000, 100)), undefined);
      assert.notEqual(withHookRun(runs, run('late.sh', 5000, 100, { exit_code: 2 })), undefined, 'another exit: another run');
      for (let i = 0; runs.length < MAX_HOOK_RUNS_PER_CALL; i++) runs = withHookRun(runs, run(`h${i}`, 6000 + i, 1)) ?? runs;
      assert.equal(withHookRun(runs, run('one-more', 9000, 1)), undefined);
    });
  });
});
