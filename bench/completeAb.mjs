#!/usr/bin/env node
// Two builds of `transcript-lag complete` side by side (issue 39 §4: its stdout pass-through and hook_run
// write): each wraps the same hook, a shell script that reads its input and prints a JSON allow, as
// `wrap-hooks` runs it (`sh -c`), its stdout a pipe as Claude Code's is, on a 1 MB transcript with no
// held message. N pairs, alternating which goes first (the second of a pair ran measurably slower on a
// loaded machine); prints both medians and the paired differences (B - A). Reports; asserts nothing.
//
//   cp dist/cli-complete.js /tmp/complete-before.js   # before the change
//   npm run build                                     # after it
//   node bench/completeAb.mjs 40 /tmp/complete-before.js dist/cli-complete.js
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [pairsArg, a, b] = process.argv.slice(2);
const pairs = Number(pairsArg);
if (!a || !b || !(pairs >= 2)) {
  console.error('usage: node bench/completeAb.mjs PAIRS WRAPPER_A WRAPPER_B');
  process.exit(2);
}
const SESSION = '3e55a9e0-1111-4222-8333-0123456789ab';
// As bench/ does: NODE_EXTRA_CA_CERTS would add its parse to every Node start (BENCHMARKS.md, the machine).
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
const root = fs.mkdtempSync(path.join(os.homedir(), '.tl-bench-complete-ab-'));
try {
  const transcript = path.join(root, 'c', 'projects', '-bench', `${SESSION}.jsonl`);
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  fs.writeFileSync(transcript, (JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(1900) } }) + '\n').repeat(512));
  const hook = path.join(root, 'allow.sh');
  const answer = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}';
  fs.writeFileSync(hook, `#!/bin/sh\ncat >/dev/null\necho '${answer}'\n`, { mode: 0o755 });
  let n = 0;
  const timed = (wrapper) => {
    const input = JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: '/bench', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: `toolu_${n++}` });
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [path.resolve(wrapper), '--', 'sh', '-c', hook], { input, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0 || r.stdout.toString().trim() !== answer) throw new Error(`${wrapper}: exit ${r.status} ${r.stderr}`);
    return ms;
  };
  const ta = [];
  const tb = [];
  for (let i = 0; i < pairs + 2; i++) {
    const [x, y] = i % 2 ? [timed(a), timed(b)] : [timed(b), timed(a)].reverse();
    if (i >= 2) {
      ta.push(x);
      tb.push(y);
    }
  }
  const median = (xs) => [...xs].sort((p, q) => p - q)[xs.length >> 1];
  const diffs = ta.map((x, i) => tb[i] - x);
  console.log(`A ${median(ta).toFixed(1)} ms  B ${median(tb).toFixed(1)} ms  B-A median ${median(diffs).toFixed(1)} ms, mean ${(diffs.reduce((s, d) => s + d, 0) / diffs.length).toFixed(1)} ms  (${pairs} pairs, load ${os.loadavg()[0].toFixed(2)})`);
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
