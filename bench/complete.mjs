#!/usr/bin/env node
// `transcript-lag complete`'s cost (issue 39 §6), standalone: `node bench/complete.mjs [rounds]` after
// `npm run build`. For transcripts of 1, 10 and 100 MB, wall time of one run of each, interleaved so a
// shared machine's drift hits all alike:
//   bare     `node -e 0`, the floor of any Node hook
//   cp       `cp` of the same transcript (the copy alone, by the coreutils everyone has)
//   pass     the wrapper with no held message: the input unchanged to CMD (`true`)
//   copy     the wrapper with the call held: the kernel's copy, the records appended, CMD (`true`), the copy removed
// Medians and p90 in ms; `copy − pass` is what a held call adds. It reports; it asserts nothing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wrapper = path.join(repoRoot, 'dist', 'cli-complete.js');
if (!fs.existsSync(wrapper)) throw new Error('npm run build first: dist/cli-complete.js');
const rounds = Number(process.argv[2] ?? 15);
const SESSION = '3e55a9e0-1111-4222-8333-0123456789ab';
const ID = 'toolu_01BenchHeld';
// As bench/ does: NODE_EXTRA_CA_CERTS would add its parse to every Node start (BENCHMARKS.md, the machine).
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;

function transcriptOf(bytes) {
  const line = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'x'.repeat(1900) }] } }) + '\n';
  return Buffer.from(line.repeat(Math.ceil(bytes / line.length)));
}

function timed(cmd, args, input) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { input, env, stdio: ['pipe', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status} ${r.stderr}`);
  return ms;
}

const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length / 2)], p90: s[Math.min(s.length - 1, Math.floor(s.length * 0.9))] };
};

const root = fs.mkdtempSync(path.join(os.homedir(), '.tl-bench-complete-'));
try {
  const out = [];
  for (const mb of [1, 10, 100]) {
    const claudeDir = path.join(root, `c${mb}`);
    const transcript = path.join(claudeDir, 'projects', '-bench', `${SESSION}.jsonl`);
    fs.mkdirSync(path.dirname(transcript), { recursive: true });
    fs.writeFileSync(transcript, transcriptOf(mb * 1024 * 1024));
    const heldDir = path.join(claudeDir, 'transcript-lag', 'held', SESSION);
    fs.mkdirSync(heldDir, { recursive: true, mode: 0o700 });
    const heldFile = path.join(heldDir, `${ID}.json`);
    const input = JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: '/bench', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: ID });
    const hold = () => fs.writeFileSync(heldFile, JSON.stringify({ v: 1, tool_use_id: ID, session_id: SESSION, at: Date.now(), text_blocks: ['Listing.'], tool_use: { id: ID, name: 'Bash', input: { command: 'ls' } } }), { mode: 0o600 });
    const dest = path.join(root, 'cp-dest.jsonl');
    const t = { bare: [], cp: [], pass: [], copy: [] };
    for (let i = 0; i < rounds + 2; i++) {
      const warm = i < 2;
      const bare = timed(process.execPath, ['-e', '0'], '');
      fs.rmSync(dest, { force: true });
      const cp = timed('cp', [transcript, dest], '');
      fs.rmSync(heldFile, { force: true });
      const pass = timed(process.execPath, [wrapper, '--', 'true'], input);
      hold();
      const copy = timed(process.execPath, [wrapper, '--', 'true'], input);
      if (!warm) [t.bare, t.cp, t.pass, t.copy].forEach((a, k) => a.push([bare, cp, pass, copy][k]));
    }
    if (fs.readdirSync(path.join(claudeDir, 'transcript-lag', 'complete')).length !== 0) throw new Error('a copy was left behind');
    const row = { mb, ...Object.fromEntries(Object.entries(t).map(([k, v]) => [k, stat(v)])) };
    out.push(row);
    console.log(`${String(mb).padStart(3)} MB  bare ${row.bare.p50.toFixed(1)} (p90 ${row.bare.p90.toFixed(1)})  cp ${row.cp.p50.toFixed(1)} (${row.cp.p90.toFixed(1)})  pass ${row.pass.p50.toFixed(1)} (${row.pass.p90.toFixed(1)})  copy ${row.copy.p50.toFixed(1)} (${row.copy.p90.toFixed(1)}) ms`);
    fs.rmSync(claudeDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ date: new Date().toISOString(), node: process.version, load: os.loadavg()[0].toFixed(2), fs: 'the home folder', rounds, rows: out }));
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
