// The reviewing hooks of examples/ (sh, Python, Node), each run as its settings.json entry in
// examples/README.md says, through `sh -c` as Claude Code runs a hook command, against a real temp
// Claude dir: the message tool put there by the plugin's own SessionStart hook, the held message and
// the mod's liveness file written as the mod writes them.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HeldMessage } from '../../../src/rules/modContract';
import { tempHome } from '../helpers/hookProcess';
import { claudeCodeSince, HELD_MESSAGE_SINCE } from '../../../src/rules/claudeCodeSince';

const repoRoot = path.resolve(__dirname, '../../..');
const examples = path.join(repoRoot, 'examples');
const pluginRoot = path.join(repoRoot, 'plugin');
const SESSION = '4c1e0a9e-1111-4222-8333-0123456789ab';
const ID = 'toolu_01ReviewMe';

const SAY = 'Say what this call is for before you make it.\n';
// The examples say by hand what npm run compat measured (src/rules/claudeCodeSince.ts): held together here.
const INSTALL = new RegExp(
  `the transcript-lag mod is not running in this session to hand it over: install the transcript-lag plugin \\(claude plugin install transcript-lag@transcript-lag; its mod hands a hook the message on ${claudeCodeSince(HELD_MESSAGE_SINCE).replace(/[.+]/g, '\\$&')}\\) and start a new session\\.\n$`,
);
const NOT_KEPT = 'This call needs a review, and its message is not known: not on disk yet and no held message (the mod runs, but kept none for this call).\n';

type Entry = { hooks: { PreToolUse: { matcher: string; hooks: { type: string; command: string; timeout: number }[] }[] } };

/** The settings.json entries examples/README.md gives, by the file each runs. */
function entries(): Map<string, { command: string; entry: Entry }> {
  const text = fs.readFileSync(path.join(examples, 'README.md'), 'utf8');
  const out = new Map<string, { command: string; entry: Entry }>();
  for (const [, json] of text.matchAll(/```json\n([\s\S]*?)```/g)) {
    const entry = JSON.parse(json) as Entry;
    const command = entry.hooks.PreToolUse[0].hooks[0].command;
    out.set(/review\.\w+/.exec(command)![0], { command, entry });
  }
  return out;
}

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** A PATH with the tools the examples use but no `node`. */
function pathWithoutNode(dir: string): string {
  const bin = path.join(dir, 'bin-no-node');
  fs.mkdirSync(bin);
  for (const tool of ['sh', 'jq']) {
    if (has(tool)) fs.symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), path.join(bin, tool));
  }
  // The real interpreter, not a version manager's shim (which needs a PATH of its own).
  if (has('python3')) fs.symlinkSync(execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim(), path.join(bin, 'python3'));
  return bin;
}

interface Home {
  home: string;
  claudeDir: string;
  env: NodeJS.ProcessEnv;
  transcript: string;
  tool: string;
  hold(blocks: string[]): void;
  alive(): void;
  clear(): void;
}

/** A HOME whose ~/.claude has a session, the examples in ~/.claude/hooks/ and the message tool where the plugin keeps it. */
function homeWithTool(): Home {
  const { home, claudeDir, env } = tempHome();
  const transcript = path.join(claudeDir, 'projects', '-work', `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, `${JSON.stringify({ type: 'user', uuid: 'u0', message: { role: 'user', content: 'go' } })}\n`);
  // The plugin's SessionStart entry, as Claude Code runs it.
  const start = JSON.parse(fs.readFileSync(path.join(pluginRoot, 'hooks', 'hooks.json'), 'utf8')).hooks.SessionStart[0].hooks[0].command as string;
  const r = spawnSync('sh', ['-c', start.replaceAll('${CLAUDE_PLUGIN_ROOT}', pluginRoot)], { input: JSON.stringify({ session_id: SESSION, transcript_path: transcript, hook_event_name: 'SessionStart' }), env });
  assert.equal(r.status, 0);
  const tool = path.join(claudeDir, 'transcript-lag', 'bin', 'transcript-lag-message.js');
  assert.ok(fs.existsSync(tool), 'the plugin put the tool in place');
  fs.mkdirSync(path.join(claudeDir, 'hooks'));
  for (const f of ['review.sh', 'review.py', 'review.mjs']) fs.copyFileSync(path.join(examples, f), path.join(claudeDir, 'hooks', f));
  const heldDir = path.join(claudeDir, 'transcript-lag', 'held', SESSION);
  const modDir = path.join(claudeDir, 'transcript-lag', 'mod');
  return {
    home,
    claudeDir,
    env,
    transcript,
    tool,
    hold(blocks) {
      fs.mkdirSync(heldDir, { recursive: true, mode: 0o700 });
      const m: HeldMessage = { v: 1, tool_use_id: ID, session_id: SESSION, at: Date.now(), text_blocks: blocks, tool_use: { id: ID, name: 'Bash', input: { command: 'ls' } } };
      fs.writeFileSync(path.join(heldDir, `${ID}.json`), JSON.stringify(m), { mode: 0o600 });
    },
    alive() {
      fs.mkdirSync(modDir, { recursive: true });
      fs.writeFileSync(path.join(modDir, `${SESSION}.live.json`), JSON.stringify({ v: 1, session_id: SESSION, at: Date.now(), every_ms: 5000, keep_held_messages: true }));
    },
    clear() {
      fs.rmSync(heldDir, { recursive: true, force: true });
      fs.rmSync(modDir, { recursive: true, force: true });
    },
  };
}

const payload = (h: Home) => JSON.stringify({ session_id: SESSION, transcript_path: h.transcript, cwd: '/work', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: ID });

function runEntry(command: string, h: Home, env: NodeJS.ProcessEnv = h.env): { status: number | null; stderr: string; ms: number } {
  const started = Date.now();
  const r = spawnSync('sh', ['-c', command], { input: payload(h), env, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.stdout, '', 'a reviewing hook that only blocks prints nothing on stdout');
  return { status: r.status, stderr: r.stderr, ms: Date.now() - started };
}

const needs: Record<string, string[]> = { 'review.sh': ['jq'], 'review.py': ['python3'], 'review.mjs': [] };

describe('examples/: the reviewing hooks, run as their settings.json entries say', function () {
  this.timeout(60_000);

  it('examples/README.md gives one PreToolUse entry per example, each naming the copy in ~/.claude/hooks/', function () {
    const found = entries();
    assert.deepEqual([...found.keys()].sort(), ['review.mjs', 'review.py', 'review.sh']);
    for (const [file, { command, entry }] of found) {
      assert.deepEqual(Object.keys(entry.hooks), ['PreToolUse']);
      assert.equal(entry.hooks.PreToolUse[0].matcher, 'Bash');
      assert.equal(entry.hooks.PreToolUse[0].hooks[0].type, 'command');
      assert.ok(entry.hooks.PreToolUse[0].hooks[0].timeout >= 10, 'room for the tool\'s own bound');
      assert.match(command, new RegExp(`^(sh|python3|node) ~/\\.claude/hooks/${file.replace('.', '\\.')}$`));
    }
  });

  it('the README shows examples/review.sh as it is', function () {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## A reviewing hook that sees the message'));
    const shown = /```sh\n(#!\/bin\/sh\n[\s\S]*?)```/.exec(section)?.[1];
    assert.equal(shown, fs.readFileSync(path.join(examples, 'review.sh'), 'utf8'));
  });

  for (const [file, tools] of Object.entries(needs)) {
    describe(file, function () {
      let h: Home;
      let command: string;
      before(function () {
        if (!tools.every(has)) this.skip(); // DEVELOPERS.md lists jq and python3 among the system packages
        h = homeWithTool();
        command = entries().get(file)!.command;
      });
      beforeEach(() => h?.clear());

      it('a held message with text: the call runs', function () {
        h.hold(['Listing the folder to find the config.']);
        const r = runEntry(command, h);
        assert.deepEqual([r.status, r.stderr], [0, '']);
      });

      it('a held message with no text: sent back, "say what this call is for"', function () {
        h.hold([]);
        const r = runEntry(command, h);
        assert.deepEqual([r.status, r.stderr], [2, SAY]);
      });

      it('the message from the transcript (the record on disk, no mod): reviewed the same way', function () {
        const record = (uuid: string, block: object) => `${JSON.stringify({ type: 'assistant', uuid, message: { id: 'msg_1', role: 'assistant', content: [block] } })}\n`;
        const before = fs.readFileSync(h.transcript);
        fs.appendFileSync(h.transcript, record('a1', { type: 'text', text: 'Plan.' }) + record('a2', { type: 'tool_use', id: ID, name: 'Bash', input: {} }));
        assert.equal(runEntry(command, h).status, 0);
        fs.writeFileSync(h.transcript, before);
        fs.appendFileSync(h.transcript, record('a2', { type: 'tool_use', id: ID, name: 'Bash', input: {} }));
        assert.deepEqual([runEntry(command, h).status, runEntry(command, h).stderr], [2, SAY]);
        fs.writeFileSync(h.transcript, before);
      });

      it('nothing known and the mod not running: blocked, and the reason says what to install', function () {
        const r = runEntry(command, h);
        assert.equal(r.status, 2);
        assert.match(r.stderr, INSTALL);
      });

      it('nothing known while the mod runs: blocked with the tool\'s reason', function () {
        h.alive();
        const r = runEntry(command, h);
        assert.deepEqual([r.status, r.stderr], [2, NOT_KEPT]);
      });

      it('no message tool (no session started with the plugin yet), nothing held: blocked, saying the tool gave no answer', function () {
        const moved = `${h.tool}.away`;
        fs.renameSync(h.tool, moved);
        try {
          // What a hook gets then, as README and docs/HELD-MESSAGE.md say: exit 1, nothing on stdout, Node's error on stderr.
          const bare = spawnSync('node', [h.tool, '--json'], { input: JSON.stringify({ session_id: SESSION, tool_use_id: ID }), env: h.env, encoding: 'utf8' });
          assert.deepEqual([bare.status, bare.stdout], [1, '']);
          assert.match(bare.stderr, /Cannot find module/);
          const r = runEntry(command, h);
          assert.equal(r.status, 2);
          assert.match(r.stderr, /message tool gave no answer|nor given by transcript-lag's message tool/);
        } finally {
          fs.renameSync(moved, h.tool);
        }
      });
    });
  }

  describe('review.py without node, and with a tool that never answers', function () {
    let h: Home;
    let command: string;
    before(function () {
      if (!has('python3')) this.skip();
      h = homeWithTool();
      command = entries().get('review.py')!.command;
    });
    beforeEach(() => h?.clear());

    it('no node on PATH: a held message is still read by its contract (with text: runs; without: sent back); nothing held: blocked', function () {
      const env = { ...h.env, PATH: pathWithoutNode(fs.mkdtempSync(path.join(h.home, 'p-'))) };
      h.hold(['Plan.']);
      assert.deepEqual([runEntry(command, h, env).status, runEntry(command, h, env).stderr], [0, '']);
      h.hold([]);
      assert.deepEqual([runEntry(command, h, env).status, runEntry(command, h, env).stderr], [2, SAY]);
      h.clear();
      const r = runEntry(command, h, env);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /neither held nor given by transcript-lag's message tool \(is node on PATH\?/);
    });

    it('a message tool that hangs: blocked once its 5 s are up, not when Claude Code\'s timeout ends the hook', function () {
      const real = fs.readFileSync(h.tool);
      fs.writeFileSync(h.tool, 'setTimeout(() => {}, 60_000);\n');
      try {
        const r = runEntry(command, h);
        assert.equal(r.status, 2);
        assert.match(r.stderr, /neither held nor given/);
        assert.ok(r.ms < 15_000, `gave up after ${r.ms} ms, within the entry's timeout of 15 s`);
      } finally {
        fs.writeFileSync(h.tool, real);
      }
    });
  });

  describe('review.mjs with a tool that never answers', function () {
    it('blocked once its 5 s are up', function () {
      const h = homeWithTool();
      fs.writeFileSync(h.tool, 'setTimeout(() => {}, 60_000);\n');
      const r = runEntry(entries().get('review.mjs')!.command, h);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /message tool gave no answer/);
      assert.ok(r.ms < 15_000, `gave up after ${r.ms} ms`);
    });
  });

  describe('review.sh without node', function () {
    it('blocked, saying the tool gave no answer (is node on PATH?)', function () {
      if (!has('jq')) this.skip();
      const h = homeWithTool();
      h.hold(['Plan.']);
      const r = runEntry(entries().get('review.sh')!.command, h, { ...h.env, PATH: pathWithoutNode(fs.mkdtempSync(path.join(h.home, 'p-'))) });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /message tool gave no answer \(.*is node on PATH\?/);
    });
  });
});
