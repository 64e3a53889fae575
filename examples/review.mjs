#!/usr/bin/env node
// review.mjs: a PreToolUse hook that reviews a call by the message that makes it, which the transcript
// does not hold yet while the hook runs. It asks transcript-lag's message tool (kept by the plugin at
// <claude dir>/transcript-lag/bin/) and blocks the call (exit 2: stderr goes back to Claude) when the
// message gives no reason for it, or when the message cannot be known. Needs only Node.
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

const claudeDir = process.env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude');
const tool = join(claudeDir, 'transcript-lag', 'bin', 'transcript-lag-message.js');
const INSTALL =
  'This call needs a review of its message, and the transcript-lag mod is not running in this session to hand it over: ' +
  'install the transcript-lag plugin (claude plugin install transcript-lag@transcript-lag; its mod hands a hook the message on Claude Code 2.1.286+) and start a new session.';

function block(reason) {
  process.stderr.write(`${reason}\n`);
  process.exit(2);
}

// The tool reads this hook's stdin (the PreToolUse JSON) itself; it answers at once, 5 s is plenty.
const run = spawnSync(process.execPath, [tool, '--json'], { stdio: ['inherit', 'pipe', 'pipe'], encoding: 'utf8', timeout: 5000 });
let msg;
try {
  msg = JSON.parse(run.stdout);
} catch {
  block(`This call needs a review, and transcript-lag's message tool gave no answer (${tool}: has a session with the transcript-lag plugin started?).`);
}
if (msg.source === null) block(msg.mod === true ? `This call needs a review, and its message is not known: ${msg.reason}.` : INSTALL);
if (msg.text_blocks.length === 0) block('Say what this call is for before you make it.');
