#!/usr/bin/env node
// What the production mod's held-message path asks of Claude Code, asked by a one-file test mod at
// `tool.call` (issue 42: with the mod of then, a held message reached a hook only from 2.1.326, the mod loading from 2.1.286):
// `$.session.messages({ last })` as src/mod/heldMessage.ts asks it, `$.session.messages()` bare,
// `$.session.info()` (src/mod/register.ts), `$.process.run` (the private folder), and `$.fs.read` with
// offset and length (src/mod/looks.ts). Each answer's shape or its error, per version:
//   node test/field/measure/heldMessageApi.mjs [--cli-version V[,V…]]
import fs from 'node:fs';
import path from 'node:path';
import { ensureClaude, DEFAULT_CLAUDE_VERSION } from '../claudeInstall.mjs';
import { startStandInApi } from '../standInApi.mjs';
import { makeSandbox, addFieldSettings, claudeEnv } from '../sandbox.mjs';
import { runPrint } from '../drivers.mjs';
import { writeModPlugin } from './modPlugin.mjs';

function probeMod(log) {
  const q = JSON.stringify;
  // `$` only as `$.noun.event(...)` or handed to a top-level function (the loader's static check).
  return `const seen = {};

export function register(on) {
  on('tool.call', async ($, e, next) => {
    if (seen.done === undefined) {
      seen.done = true;
      await probe($, e);
    }
    return next(e);
  });
}

function shape(v) {
  if (Array.isArray(v)) return { array: v.length, keys: v.length ? Object.keys(v[v.length - 1]).sort() : [], has_call: v.some((r) => Array.isArray(r.toolUses) && r.toolUses.some((t) => t.tool_use_id === seen.id)) };
  if (v !== null && typeof v === 'object') return { keys: Object.keys(v).sort() };
  return { value: typeof v };
}

async function ask(name, f) {
  try {
    seen[name] = { ok: shape(await f()) };
  } catch (err) {
    seen[name] = { error: String(err && err.message ? err.message : err).slice(0, 300) };
  }
}

async function probe($, e) {
  seen.call = { keys: Object.keys(e).sort() };
  seen.id = e.tool_use_id;
  await ask('messages_last', () => $.session.messages({ last: 64 }));
  await ask('messages_bare', () => $.session.messages());
  await ask('session_info', () => $.session.info());
  await ask('process_run', () => $.process.run(['true'], { timeoutMs: 2000 }));
  await ask('read_ranged', () => $.fs.read(${q(log)}.replace(/[^/]*$/, 'probe-input.txt'), { as: 'bytes', offset: 1, length: 1 }).then((r) => ({ bytes: atob(r.base64).length })));
  await $.fs.write(${q(log)}, JSON.stringify(seen));
}
`;
}

export async function probeHeldMessageApi(version) {
  const claudeBin = ensureClaude(version);
  const sb = makeSandbox('held-api');
  const log = path.join(sb.root, 'probe.json');
  fs.writeFileSync(path.join(sb.root, 'probe-input.txt'), 'abcdef');
  const plugin = path.join(sb.root, 'probe-plugin');
  writeModPlugin(plugin, { name: 'held-api-probe', description: 'asks what the mod asks', file: 'probe.js', source: probeMod(log) });
  addFieldSettings(sb, {});
  const script = [Object.assign([{ name: 'Bash', id: 'toolu_heldapi001', input: { command: 'echo hi', description: 'probe' } }], { texts: ['Text before the call.'] })];
  const api = await startStandInApi({ script, logFile: sb.apiLog });
  let run;
  try {
    run = await runPrint({ claudeBin, cwd: sb.work, env: claudeEnv(sb, api.url), prompt: 'go', extraArgs: ['--plugin-dir', plugin] });
  } finally {
    await api.close();
  }
  const seen = fs.existsSync(log) ? JSON.parse(fs.readFileSync(log, 'utf8')) : null;
  fs.rmSync(sb.root, { recursive: true, force: true });
  return { version, exit: run.code, seen };
}

const argv = process.argv.slice(2);
const versions = argv.includes('--cli-version') ? argv[argv.indexOf('--cli-version') + 1].split(',') : [DEFAULT_CLAUDE_VERSION];
for (const v of versions) console.log(JSON.stringify(await probeHeldMessageApi(v)));
