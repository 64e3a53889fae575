#!/usr/bin/env node
// Ground-truth hook for the field test: appends when Claude Code fired PreToolUse / PostToolUse
// for which call, independent of the project's own hook. Usage in settings.json:
//   node eventLogHook.mjs <log file>
// Always exits 0 and writes nothing to stdout, so it never changes what the CLI does.
import fs from 'node:fs';

const at = Date.now();
const logFile = process.argv[2];
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  try {
    const p = JSON.parse(input);
    fs.appendFileSync(
      logFile,
      JSON.stringify({
        ev: p.hook_event_name,
        id: p.tool_use_id,
        tool: p.tool_name,
        session: p.session_id,
        transcript: p.transcript_path,
        at,
      }) + '\n',
    );
  } catch (err) {
    try {
      fs.appendFileSync(logFile, JSON.stringify({ ev: 'error', error: String(err), at }) + '\n');
    } catch {}
  }
  process.exit(0);
});
