#!/usr/bin/env node
// How long Claude Code lets a command hook with no `timeout` run before it kills it: a print session
// against the stand-in API whose one PreToolUse hook sleeps 700 s and logs when it started and when a
// signal reached it (and which). Slow by nature (Claude Code's documented default is 600 s): run by
// hand, its figure goes to docs/COMPATIBILITY.md and is `replay --timeout`'s default.
//   node test/field/measure/hookTimeout.mjs [--cli-version V] [--sleep S]
import fs from 'node:fs';
import path from 'node:path';
import { ensureClaude, DEFAULT_CLAUDE_VERSION } from '../claudeInstall.mjs';
import { startStandInApi } from '../standInApi.mjs';
import { makeSandbox, addFieldSettings, claudeEnv } from '../sandbox.mjs';
import { runPrint } from '../drivers.mjs';

const argv = process.argv.slice(2);
const version = argv.includes('--cli-version') ? argv[argv.indexOf('--cli-version') + 1] : DEFAULT_CLAUDE_VERSION;
const sleepS = argv.includes('--sleep') ? Number(argv[argv.indexOf('--sleep') + 1]) : 700;
const claudeBin = ensureClaude(version);
const sb = makeSandbox('hook-timeout');
const log = path.join(sb.root, 'hook.log');
addFieldSettings(sb, {});
const settings = JSON.parse(fs.readFileSync(sb.settingsFile, 'utf8'));
const hook =
  `s=$(date +%s%3N); echo "start $s" >> '${log}'; ` +
  `for sig in TERM INT HUP; do trap "echo \\"$sig \\$(( \\$(date +%s%3N) - $s ))\\" >> '${log}'; exit 143" $sig; done; ` +
  `sleep ${sleepS} & wait $!; echo "end $(( $(date +%s%3N) - s ))" >> '${log}'`;
settings.hooks.PreToolUse.push({ matcher: '*', hooks: [{ type: 'command', command: hook }] });
fs.writeFileSync(sb.settingsFile, JSON.stringify(settings, null, 2));
const api = await startStandInApi({ script: [[{ name: 'Bash', id: 'toolu_timeout01', input: { command: 'echo hi', description: 'x' } }]], logFile: sb.apiLog });
const started = Date.now();
const run = await runPrint({ claudeBin, cwd: sb.work, env: claudeEnv(sb, api.url), prompt: 'go', timeoutMs: (sleepS + 120) * 1000 });
await api.close();
const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
console.log(JSON.stringify({ version, sleep_s: sleepS, hook_log: lines, session_s: (Date.now() - started) / 1000, exit: run.code, signal: run.signal }));
fs.rmSync(sb.root, { recursive: true, force: true });
