#!/usr/bin/env node
// In what order a mod's session events run in print mode, per version (issue 42): on 2.1.300 classic.SessionStart
// runs before session.start, so a mod that set its transcript from `$.session.info()` (absent before 2.1.326) at
// session.start lost what classic.SessionStart had named, and kept no held message in print mode
// (src/mod/register.ts). A one-file test mod logs each event and whether `$.session.messages()` holds the call:
//   node test/field/measure/hookOrder.mjs [--cli-version V[,V…]]
import fs from 'node:fs';
import path from 'node:path';
import { ensureClaude, DEFAULT_CLAUDE_VERSION } from '../claudeInstall.mjs';
import { startStandInApi } from '../standInApi.mjs';
import { makeSandbox, addFieldSettings, claudeEnv } from '../sandbox.mjs';
import { runPrint } from '../drivers.mjs';
import { writeModPlugin } from './modPlugin.mjs';

function orderMod(log) {
  // `$` only as `$.noun.event(...)` or handed to a top-level function (the loader's static check).
  return `const seen = [];
let writing = Promise.resolve();

// One write after another: calls in parallel must not land an older, shorter list last.
function keep($, row) {
  seen.push(row);
  writing = writing.then(() => write($));
  return writing;
}

function write($) {
  return $.fs.write(${JSON.stringify(log)}, JSON.stringify(seen));
}

async function holdsCall($, id) {
  try {
    const rows = await $.session.messages();
    return Array.isArray(rows) && rows.some((r) => JSON.stringify(r).includes(id));
  } catch (err) {
    return String(err && err.message ? err.message : err).slice(0, 200);
  }
}

export function register(on) {
  on('classic.SessionStart', async ($, e, next) => {
    await keep($, { event: 'classic.SessionStart', transcript_path: typeof e.transcript_path === 'string' });
    return next(e);
  });
  on('session.start', async ($, e, next) => {
    await keep($, { event: 'session.start', interactive: e.isInteractive });
    return next(e);
  });
  on('tool.call', async ($, e, next) => {
    await keep($, { event: 'tool.call', tool_use_id: e.tool_use_id, messages_hold_it: await holdsCall($, e.tool_use_id) });
    return next(e);
  });
}
`;
}

export async function hookOrder(version) {
  const claudeBin = ensureClaude(version);
  const sb = makeSandbox('hook-order');
  const log = path.join(sb.root, 'order.json');
  const plugin = path.join(sb.root, 'order-plugin');
  writeModPlugin(plugin, { name: 'hook-order-probe', description: "logs the order of a mod's events", file: 'order.js', source: orderMod(log) });
  addFieldSettings(sb, {});
  const call = (id, command) => ({ name: 'Bash', id, input: { command, description: 'order' } });
  const script = [
    Object.assign([call('toolu_order001', 'echo one')], { texts: ['Text one.'] }),
    Object.assign([call('toolu_order002', 'echo two'), call('toolu_order003', 'echo three')], { texts: ['Two calls.'] }),
  ];
  const api = await startStandInApi({ script, logFile: sb.apiLog });
  let run;
  try {
    run = await runPrint({ claudeBin, cwd: sb.work, env: claudeEnv(sb, api.url), prompt: 'go', extraArgs: ['--plugin-dir', plugin] });
  } finally {
    await api.close();
  }
  const events = fs.existsSync(log) ? JSON.parse(fs.readFileSync(log, 'utf8')) : null;
  fs.rmSync(sb.root, { recursive: true, force: true });
  return { version, mode: 'print', exit: run.code, events };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const argv = process.argv.slice(2);
  const versions = argv.includes('--cli-version') ? argv[argv.indexOf('--cli-version') + 1].split(',') : [DEFAULT_CLAUDE_VERSION];
  for (const v of versions) console.log(JSON.stringify(await hookOrder(v)));
}
