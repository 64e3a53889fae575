// Small committed recordings of real field runs, for the demo's replay: every transcript and channel
// line with the time (ms from the scenario's start) it reached disk. Paths are replaced by
// placeholders and very long strings (prompt snapshots, request shapes) are cut, so a file stays small
// while keeping every line, its order, its record type and its ids — and so the line numbers.
import fs from 'node:fs';
import path from 'node:path';

export const RECORDING_FORMAT = 1;
const MAX_STRING = 160;
const MAX_ARRAY = 12;
const MAX_LINE = 2500;

export function shrinkRecord(value, depthLeft = Infinity) {
  if (depthLeft <= 0 && value && typeof value === 'object') return `[${Array.isArray(value) ? 'array' : 'object'} cut for the recording]`;
  if (typeof value === 'string') {
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… [${value.length - MAX_STRING} chars cut for the recording]` : value;
  }
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_ARRAY).map((v) => shrinkRecord(v, depthLeft - 1));
    if (value.length > MAX_ARRAY) kept.push(`[${value.length - MAX_ARRAY} items cut for the recording]`);
    return kept;
  }
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = shrinkRecord(v, depthLeft - 1);
    return out;
  }
  return value;
}

function placeholders(result) {
  const root = result.sandbox;
  // Longest first, so the Claude dir wins over the home that contains it.
  return [
    [path.join(root, 'home', '.claude'), '{{CLAUDE_DIR}}'],
    [path.join(root, 'work'), '{{WORKSPACE}}'],
    [path.join(root, 'home'), '{{HOME}}'],
    [slug(path.join(root, 'work')), '{{WORKSPACE_SLUG}}'],
    [root, '{{ROOT}}'],
  ];
}

/** Claude Code's project folder name: every character other than a letter or digit becomes '-'. */
export function slug(p) {
  return p.replace(/[^a-zA-Z0-9]/g, '-');
}

function rewrite(text, pairs) {
  let out = text;
  for (const [from, to] of pairs) out = out.split(from).join(to);
  const parsed = JSON.parse(out);
  const small = JSON.stringify(shrinkRecord(parsed));
  // Conversation records stay whole (about 1 KB); bulky snapshots lose their deep structure.
  return small.length <= MAX_LINE ? small : JSON.stringify(shrinkRecord(parsed, 3));
}

export function buildRecording(result) {
  const pairs = placeholders(result);
  const meta = {
    kind: 'meta',
    format: RECORDING_FORMAT,
    scenario: result.scenario,
    claude_code_version: result.version,
    mode: result.def.mode,
    hook: result.def.hook,
    slow_hook_ms: result.def.slowHookMs ?? 0,
    session_id: result.sessionId,
    transcript: `{{CLAUDE_DIR}}/projects/{{WORKSPACE_SLUG}}/${result.sessionId}.jsonl`,
    channel: `{{CLAUDE_DIR}}/transcript-lag/${result.sessionId}.jsonl`,
    recorded_at: new Date(result.t0).toISOString(),
    // Row times `t` count from here; channel `at` and record `timestamp` values are epoch times of the
    // run, so a replay shifts them by (replay start - t0_epoch_ms).
    t0_epoch_ms: result.t0,
    calls: result.calls.map((c) => ({
      tool_use_id: c.id,
      tool_name: c.tool,
      line: c.line,
      fired_ms: c.firedAt - result.t0,
      held_ms: c.heldMs,
      with_result: c.withResult,
      wait: c.wait?.outcome,
    })),
  };
  const rows = [
    ...result.recording.transcript.map((l) => ({ kind: 'transcript', t: l.t, line: l.line, text: rewrite(l.text, pairs) })),
    ...result.recording.channel.map((l) => ({ kind: 'channel', t: l.t, line: l.line, text: rewrite(l.text, pairs) })),
  ].sort((a, b) => a.t - b.t || (a.kind === b.kind ? a.line - b.line : a.kind === 'transcript' ? -1 : 1));
  return [meta, ...rows].map((r) => JSON.stringify(r)).join('\n') + '\n';
}

export function writeRecording(result, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${result.scenario}.jsonl`);
  fs.writeFileSync(file, buildRecording(result));
  return file;
}
