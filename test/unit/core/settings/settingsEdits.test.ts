import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { findNodeAtLocation, parse, parseTree, visit } from 'jsonc-parser';
import { buildHookCommand } from '../../../../src/core/settings/hookCommand';
import { installHookEntries, installedHookCommands, isOurHookCommand, uninstallHookEntries } from '../../../../src/core/settings/hookEntries';

// install-hook then uninstall-hook must give back the user's file byte for byte,
// whatever comments and layout it has: a comment near our entry is the user's.

const ours = {
  command: `'/usr/bin/node' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/.claude/transcript-lag'`,
  timeoutSec: 5,
};

/** What may sit between two tokens: white space, line ends and comments of both kinds. */
const TRIVIA = ['', '', ' ', '\n', '\n  ', '\n    ', '\t', ' /* c */ ', '/*x*/', ' // note\n', '\n  // SECURITY: blocks rm -rf\n  ', '// why\n'];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** `value` as JSONC with trivia from `pick` between every two tokens. */
function serialize(value: Json, pick: () => string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `[${pick()}]`;
    return `[${value.map((v) => `${pick()}${serialize(v, pick)}${pick()}`).join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return `{${pick()}}`;
    return `{${keys.map((k) => `${pick()}${JSON.stringify(k)}${pick()}:${pick()}${serialize(value[k], pick)}${pick()}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const userGroup = fc.record({
  matcher: fc.constantFrom('Bash', 'Edit|Write', '*'),
  hooks: fc.array(fc.record({ type: fc.constant('command'), command: fc.constantFrom('review.sh', 'guard --no-rm', 'notify-send x') }), { minLength: 1, maxLength: 2 }),
});

const settings = fc.record(
  {
    model: fc.constantFrom('opus', 'sonnet'),
    permissions: fc.record({ allow: fc.array(fc.constantFrom('Bash(git log:*)', 'Read'), { maxLength: 2 }) }),
    hooks: fc.record(
      {
        PreToolUse: fc.array(userGroup, { maxLength: 3 }),
        PostToolUse: fc.array(userGroup, { maxLength: 3 }),
        Stop: fc.array(userGroup, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Json>;

const document = fc
  .tuple(settings, fc.array(fc.nat({ max: TRIVIA.length - 1 }), { minLength: 1, maxLength: 200 }), fc.boolean())
  .map(([value, picks, crlf]) => {
    let i = 0;
    const pick = () => TRIVIA[picks[i++ % picks.length]];
    const text = `${pick()}${serialize(value, pick)}${pick()}\n`;
    return crlf ? text.replace(/\n/g, '\r\n') : text;
  });

/** [start, end) of every hook group holding our command. */
function ourGroupRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  const root = parseTree(text);
  for (const event of ['PreToolUse', 'PostToolUse']) {
    for (const group of findNodeAtLocation(root!, ['hooks', event])?.children ?? []) {
      const command = findNodeAtLocation(group, ['hooks', 0, 'command'])?.value;
      if (command === ours.command) out.push([group.offset, group.offset + group.length]);
    }
  }
  return out;
}

function withoutEmptyHooks(value: unknown): unknown {
  const settings = { ...(value as Record<string, unknown>) };
  const hooks = { ...((settings.hooks as Record<string, unknown[]> | undefined) ?? {}) };
  for (const event of ['PreToolUse', 'PostToolUse']) if (hooks[event]?.length === 0) delete hooks[event];
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  else settings.hooks = hooks;
  return settings;
}

const comments = (text: string) => text.match(/\/\*[^]*?\*\/|\/\/[^\r\n]*/g) ?? [];

describe('settings.json: install then uninstall keeps every byte', () => {
  it('on a JSONC document with comments anywhere, uninstall after install gives back the original bytes (property)', () => {
    fc.assert(
      fc.property(document, (text) => {
        const installed = installHookEntries(text, ours);
        assert.deepEqual(comments(installed), comments(text), 'install keeps every comment, in order');
        assert.equal(installedHookCommands(installed).PreToolUse.length, 1);
        assert.equal(uninstallHookEntries(installed), text);
        // Re-installed with other options first (our entry replaced in place): still the original bytes.
        const probe = installHookEntries(installed, { command: `${ours.command} --probe --polls 50 --poll-ms 100 --timeout-ms 10000`, timeoutSec: 10 });
        assert.equal(installHookEntries(probe, { command: `${ours.command} --probe --polls 50 --poll-ms 100 --timeout-ms 10000`, timeoutSec: 10 }), probe);
        assert.equal(uninstallHookEntries(probe), text);
      }),
      { numRuns: 500 },
    );
  });

  it('comments the user adds anywhere after install all survive uninstall, and only ours goes (property)', () => {
    fc.assert(
      fc.property(document, fc.array(fc.tuple(fc.nat(), fc.constantFrom('/* user */', ' // user note\n', '\n  // SECURITY: blocks rm -rf\n')), { minLength: 1, maxLength: 4 }), (text, notes) => {
        let edited = installHookEntries(text, ours);
        for (const [at, note] of notes) {
          // Between two tokens: right after a bracket, a colon or a comma.
          const gaps: number[] = [];
          visit(edited, {
            onObjectBegin: (offset) => void gaps.push(offset + 1),
            onArrayBegin: (offset) => void gaps.push(offset + 1),
            onSeparator: (_c, offset) => void gaps.push(offset + 1),
          });
          // Not inside one of our groups: what is inside goes with it.
          const oursAt = ourGroupRanges(edited);
          const outside = gaps.filter((g) => !oursAt.some(([from, to]) => g > from && g < to));
          const gap = outside[at % outside.length];
          edited = edited.slice(0, gap) + note + edited.slice(gap);
        }
        const removed = uninstallHookEntries(edited);
        assert.deepEqual(comments(removed), comments(edited), 'every comment kept, in order');
        assert.deepEqual(installedHookCommands(removed), { PreToolUse: [], PostToolUse: [] });
        // The same but for containers the user's comments now keep: an emptied event list or hooks object.
        assert.deepEqual(withoutEmptyHooks(parse(removed)), withoutEmptyHooks(parse(text)));
      }),
      { numRuns: 300 },
    );
  });

  it("uninstall keeps a user's comment on the group after ours and on the group before", () => {
    const before = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Edit", "hooks": [{ "type": "command", "command": "fmt" }] } // formats edits
    ]
  }
}
`;
    const installed = installHookEntries(before, ours);
    // The user adds a group after ours, with a comment on it.
    const endOfPre = installed.indexOf('\n    ],\n    "PostToolUse"');
    assert.ok(endOfPre > installed.indexOf('transcript-lag-hook.js'), installed);
    const withAfter = `${installed.slice(0, endOfPre)},\n      // SECURITY: blocks rm -rf\n      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "guard" }] }${installed.slice(endOfPre)}`;
    const removed = uninstallHookEntries(withAfter);
    assert.ok(removed.includes('// SECURITY: blocks rm -rf'), removed);
    assert.ok(removed.includes('// formats edits'), removed);
    assert.deepEqual(installedHookCommands(removed), { PreToolUse: [], PostToolUse: [] });
    assert.equal((parse(removed) as { hooks: { PreToolUse: unknown[] } }).hooks.PreToolUse.length, 2);
  });
});

describe('settings.json: which entries are ours', () => {
  const theirs = [
    'node ~/scripts/wrap-transcript-lag-hook.js',
    "'/usr/bin/node' '/h/tools/my-transcript-lag-hook.js' --channel-dir '/h/c'",
    'tail -f /tmp/transcript-lag-hook.js.log',
    "'/usr/bin/node' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/.claude/transcript-lag' ; rm -rf /tmp/x",
    "'/usr/bin/node' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/.claude/transcript-lag' | tee log",
    "'/usr/bin/node' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js'",
    "guard.sh && '/usr/bin/node' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/c'",
    "'/usr/bin/node' 'transcript-lag-hook.js' --channel-dir '/h/c'",
  ];

  it('recognises exactly the commands install-hook writes, env prefix, probe options and quoted quotes included', () => {
    const written = [
      ours.command,
      buildHookCommand({ nodePath: "/opt/it's/node", nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, hookPath: '/h/a b/transcript-lag/bin/transcript-lag-hook.js', channelDir: '/h/a b/transcript-lag', probe: true, polls: 20, pollMs: 250 }),
      buildHookCommand({ nodePath: 'C:\\Program Files\\nodejs\\node.exe', hookPath: 'C:\\Users\\u\\.claude\\transcript-lag\\bin\\transcript-lag-hook.js', channelDir: 'C:\\Users\\u\\.claude\\transcript-lag', probe: false }),
    ];
    for (const c of written) assert.equal(isOurHookCommand(c), true, c);
    for (const c of theirs) assert.equal(isOurHookCommand(c), false, c);
  });

  it("install and uninstall leave a command that merely mentions our hook file alone", () => {
    const text = JSON.stringify({ hooks: { PreToolUse: theirs.map((command) => ({ matcher: '*', hooks: [{ type: 'command', command }] })) } }, null, 2);
    const installed = installHookEntries(text, ours);
    const pre = (parse(installed) as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } }).hooks.PreToolUse;
    assert.deepEqual(pre.slice(0, theirs.length).map((g) => g.hooks[0].command), theirs);
    assert.equal(pre.length, theirs.length + 1);
    assert.equal(uninstallHookEntries(installed), text);
  });
});

describe('settings.json: files Claude Code reads that we used to misread', () => {
  it('a byte order mark is accepted and kept', () => {
    const text = '\ufeff{\n  "model": "opus"\n}\n';
    const installed = installHookEntries(text, ours);
    assert.ok(installed.startsWith('\ufeff{'), JSON.stringify(installed.slice(0, 5)));
    assert.equal(installedHookCommands(installed).PreToolUse.length, 1);
    assert.equal(installed.indexOf('\ufeff', 1), -1, 'one mark');
    assert.equal(uninstallHookEntries(installed), text);
    assert.equal(installHookEntries(installed, ours), installed);
  });

  it('with duplicate "hooks" keys, edits the last one: the one JSON.parse (and Claude Code) keeps', () => {
    const text = '{\n  "hooks": { "Stop": [] },\n  "model": "opus",\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "guard" }] }\n    ]\n  }\n}\n';
    const installed = installHookEntries(text, ours);
    const read = JSON.parse(installed) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    assert.deepEqual(Object.keys(read.hooks), ['PreToolUse', 'PostToolUse']);
    assert.deepEqual(read.hooks.PreToolUse.map((g) => g.hooks[0].command), ['guard', ours.command]);
    assert.equal(installedHookCommands(installed).PostToolUse.length, 1);
    assert.ok(installed.startsWith('{\n  "hooks": { "Stop": [] },\n'), 'the first one untouched');
    assert.equal(uninstallHookEntries(installed), text);
  });

  it('a file of 150,000 lines is edited, not a stack overflow', function () {
    // A correctness check on a big input, not a timing one: a few seconds alone, more on a busy machine.
    this.timeout(120_000);
    const allow = Array.from({ length: 150_000 }, (_, i) => `      "Bash(tool-${i}:*)"`).join(',\n');
    const text = `{\n  "permissions": {\n    "allow": [\n${allow}\n    ]\n  }\n}\n`;
    const installed = installHookEntries(text, ours);
    assert.equal(installedHookCommands(installed).PreToolUse.length, 1);
    assert.ok(installed.includes('\n  "hooks": {\n    "PreToolUse": [\n      {'), 'laid out in the file\'s two-space indent');
    assert.equal(uninstallHookEntries(installed), text);
  });

  it("uninstall keeps the user's own empty event list and empty hooks object", () => {
    for (const text of [
      '{\n  "hooks": {\n    "PreToolUse": [],\n    "Stop": []\n  }\n}\n',
      '{\n  "hooks": {}\n}\n',
      '{\n  "hooks": { "PreToolUse": [ ], "PostToolUse": [] }\n}\n',
      '{"hooks":{"PreToolUse":[]}}',
    ]) {
      const installed = installHookEntries(text, ours);
      assert.equal(installedHookCommands(installed).PreToolUse.length, 1, installed);
      assert.equal(uninstallHookEntries(installed), text);
    }
  });
});
