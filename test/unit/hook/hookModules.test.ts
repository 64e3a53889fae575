// The hook runs on every tool call, and each built-in module it loads beyond
// what `node` loads anyway costs compile time at every start (BENCHMARKS.md,
// hook section). This pins the set, so a later import cannot bring the cost back unnoticed.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildHook, hookInput, readJsonLines, runHook, tempHome } from '../helpers/hookProcess';

/**
 * Loaded by the hook and not by bare node, on purpose. Each entry says why.
 * Internal bindings are C++ and compile no JavaScript; a `NativeModule` here
 * would need a measured reason.
 */
const ALLOWED_EXTRA = new Set([
  // stdin as a pipe or socket is read through libuv's stream handle (src/rules/stdin.ts), instead of net + streams.
  'Internal Binding pipe_wrap',
  'Internal Binding stream_wrap',
]);

/** Preloaded with -r: writes the process's module list to $TL_MODULE_LIST when it exits, however it exits. */
const PRELOAD = `process.on('exit', () => require('fs').writeFileSync(process.env.TL_MODULE_LIST, process.moduleLoadList.join('\\n')));\n`;

let work: string;

type StdinKind = 'socket' | 'file';

/** Runs node with `args` and the payload on stdin as Claude Code gives it (a socket) or from a file; returns its module list. */
async function moduleList(args: string[], payload: string, stdinKind: StdinKind, env: NodeJS.ProcessEnv): Promise<Set<string>> {
  const listFile = path.join(work, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const payloadFile = path.join(work, 'payload.json');
  fs.writeFileSync(payloadFile, payload);
  const stdinFd = stdinKind === 'file' ? fs.openSync(payloadFile, 'r') : undefined;
  try {
    const child = spawn(process.execPath, ['-r', path.join(work, 'preload.js'), ...args], {
      env: { ...env, TL_MODULE_LIST: listFile },
      stdio: [stdinFd ?? 'pipe', 'ignore', 'ignore'],
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(payload);
    }
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
  } finally {
    if (stdinFd !== undefined) fs.closeSync(stdinFd);
  }
  return new Set(fs.readFileSync(listFile, 'utf8').split('\n'));
}

describe('hook process: start-up cost', function () {
  before(async function () {
    this.timeout(60_000);
    await buildHook();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-hook-modules-'));
    fs.writeFileSync(path.join(work, 'preload.js'), PRELOAD);
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  for (const stdinKind of ['socket', 'file'] as const) {
    it(`announce mode, payload on a ${stdinKind}: loads nothing bare node does not, beyond the commented allow-list`, async () => {
      const channelDir = path.join(work, `channel-${stdinKind}`);
      const payload = hookInput({ session_id: `modules-${stdinKind}` });
      // Without HOME or CLAUDE_CONFIG_DIR: install-hook always writes --channel-dir.
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
      const bare = await moduleList(['-e', ''], payload, stdinKind, env);
      const hook = await moduleList([await buildHook(), '--channel-dir', channelDir], payload, stdinKind, env);

      // The run did the hook's whole job, so the list covers the announce path.
      const [pre] = readJsonLines(path.join(channelDir, `modules-${stdinKind}.jsonl`)) as { event: string }[];
      assert.equal(pre.event, 'pre');
      const extra = [...hook].filter((m) => !bare.has(m) && !ALLOWED_EXTRA.has(m));
      assert.deepEqual(extra, []);
    });
  }
});

describe('hook process: stdin where the stream bindings are missing', function () {
  let preload: string;
  before(async function () {
    this.timeout(60_000);
    await buildHook();
    preload = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-hook-nobinding-')), 'no-binding.js');
    // A runtime without process.binding (a future Node, Bun): the hook falls back to process.stdin.
    fs.writeFileSync(preload, 'process.binding = undefined;\n');
  });
  after(() => fs.rmSync(path.dirname(preload), { recursive: true, force: true }));

  for (const keepStdinOpen of [false, true]) {
    it(`falls back to process.stdin and reports the call${keepStdinOpen ? ', also on a stdin that never closes' : ''}`, async () => {
      const { claudeDir, env } = tempHome();
      const run = await runHook({
        env: { ...env, CLAUDE_CONFIG_DIR: claudeDir, NODE_OPTIONS: `--require ${JSON.stringify(preload)}` },
        stdin: hookInput({ session_id: 'fallback' }),
        keepStdinOpen,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, '');
      // Generous: the contract is 1 s, a loaded machine adds its own start-up time.
      assert.ok(run.elapsedMs < 3000, `took ${run.elapsedMs} ms`);
      const [pre] = readJsonLines(path.join(claudeDir, 'transcript-lag', 'fallback.jsonl')) as { event: string; tool_use_id: string }[];
      assert.equal(pre.event, 'pre');
      assert.equal(pre.tool_use_id, 'toolu_01TEST');
    });
  }
});
