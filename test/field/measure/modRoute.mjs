#!/usr/bin/env node
// Whether a mod can hand the settings PreToolUse hooks another `transcript_path` (issue 39 §2): a print
// session against the stand-in API, loading a one-file test plugin whose mod, at `classic.PreToolUse`,
// notes whether its `e` is frozen and which keys it holds, then calls `next({ ...e, transcript_path: X })`;
// at `classic.PostToolUse` it tries the same. A settings hook on both events logs the input it was given.
// Its answer goes to docs/COMPATIBILITY.md ("A mod cannot change a hook's transcript_path"); run it for a
// new build to see whether that still holds:
//   node test/field/measure/modRoute.mjs [--cli-version V]
import fs from 'node:fs';
import path from 'node:path';
import { ensureClaude, DEFAULT_CLAUDE_VERSION } from '../claudeInstall.mjs';
import { startStandInApi } from '../standInApi.mjs';
import { makeSandbox, addFieldSettings, claudeEnv } from '../sandbox.mjs';
import { runPrint } from '../drivers.mjs';
import { writeModPlugin } from './modPlugin.mjs';

const argv = process.argv.slice(2);
const version = argv.includes('--cli-version') ? argv[argv.indexOf('--cli-version') + 1] : DEFAULT_CLAUDE_VERSION;
const claudeBin = ensureClaude(version);
const sb = makeSandbox('mod-route');
const FAKE = path.join(sb.claudeDir, 'projects', 'not-the-transcript.jsonl');
const preLog = path.join(sb.claudeDir, 'route-pre.json');
const postLog = path.join(sb.claudeDir, 'route-post.json');
const hookLog = path.join(sb.root, 'hook-inputs.log');

const plugin = path.join(sb.root, 'route-plugin');
const q = JSON.stringify;
writeModPlugin(plugin, {
  name: 'mod-route',
  description: 'measures one thing',
  file: 'route.js',
  source: `export function register(on) {
  on('classic.PreToolUse', async ($, e, next) => {
    const seen = { frozen: Object.isFrozen(e), keys: Object.keys(e) };
    let result;
    try {
      result = await next({ ...e, transcript_path: ${q(FAKE)} });
      seen.next = 'ran';
    } catch (err) {
      seen.next = 'threw: ' + String(err && err.message ? err.message : err);
      result = await next(e);
    }
    await $.fs.write(${q(preLog)}, JSON.stringify(seen));
    return result;
  });
  on('classic.PostToolUse', async ($, e, next) => {
    const seen = { frozen: Object.isFrozen(e), keys: Object.keys(e) };
    let result;
    try {
      result = await next({ ...e, transcript_path: ${q(FAKE)} });
      seen.next = 'ran';
    } catch (err) {
      seen.next = 'threw: ' + String(err && err.message ? err.message : err);
      result = await next(e);
    }
    await $.fs.write(${q(postLog)}, JSON.stringify(seen));
    return result;
  });
}
`,
});

addFieldSettings(sb, {});
const settings = JSON.parse(fs.readFileSync(sb.settingsFile, 'utf8'));
const logInput = { type: 'command', command: `cat >> ${q(hookLog)}; echo >> ${q(hookLog)}` };
settings.hooks.PreToolUse.push({ matcher: '*', hooks: [logInput] });
(settings.hooks.PostToolUse ??= []).push({ matcher: '*', hooks: [logInput] });
fs.writeFileSync(sb.settingsFile, JSON.stringify(settings, null, 2));
const api = await startStandInApi({ script: [[{ name: 'Bash', id: 'toolu_route01', input: { command: 'echo hi', description: 'x' } }]], logFile: sb.apiLog });
const run = await runPrint({ claudeBin, cwd: sb.work, env: claudeEnv(sb, api.url), prompt: 'go', extraArgs: ['--plugin-dir', plugin] });
await api.close();
const read = (f) => (fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null);
const inputs = fs.existsSync(hookLog) ? fs.readFileSync(hookLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
const of = (event) => inputs.find((i) => i.hook_event_name === event && i.tool_use_id === 'toolu_route01');
const summary = (event) => {
  const i = of(event);
  return i === undefined ? null : { transcript_path_changed: i.transcript_path === FAKE, in_tool_input: i.tool_input?.transcript_path === FAKE };
};
console.log(JSON.stringify({ version, measured_at: new Date().toISOString(), pre: { mod: read(preLog), hooks_saw: summary('PreToolUse') }, post: { mod: read(postLog), hooks_saw: summary('PostToolUse') }, exit: run.code }));
fs.rmSync(sb.root, { recursive: true, force: true });
