// Replays a field recording (test/field/recordings/*.jsonl, written by ./recordings.mjs) into a Claude dir with its timing: the
// transcript and channel lines are appended in the batches and at the moments the real CLI and hook
// wrote them, with paths and times moved to the replay. The demo uses this; so can anyone who wants
// a live-looking session without running Claude Code.
import fs from 'node:fs';
import path from 'node:path';
import { slug } from './recordings.mjs';

export function loadRecording(file) {
  const rows = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const meta = rows.find((r) => r.kind === 'meta');
  if (!meta || meta.format !== 1) throw new Error(`${file}: not a format-1 field recording`);
  return { meta, rows: rows.filter((r) => r.kind === 'transcript' || r.kind === 'channel') };
}

/** The text of a row as it should be written in the replay: placeholders filled, epoch times shifted. */
export function replayText(row, { claudeDir, workspace, home, shiftMs }) {
  // The placeholders stand inside JSON strings: a value goes in as JSON spells it (a Windows path's `\\`).
  const inJson = (v) => JSON.stringify(v).slice(1, -1);
  const filled = row.text
    .split('{{CLAUDE_DIR}}').join(inJson(claudeDir))
    .split('{{WORKSPACE_SLUG}}').join(inJson(slug(workspace)))
    .split('{{WORKSPACE}}').join(inJson(workspace))
    .split('{{HOME}}').join(inJson(home))
    .split('{{ROOT}}').join(inJson(path.dirname(workspace)));
  const obj = JSON.parse(filled);
  if (row.kind === 'channel' && typeof obj.at === 'number') obj.at = Math.round(obj.at + shiftMs);
  if (typeof obj.timestamp === 'string' && !Number.isNaN(Date.parse(obj.timestamp))) {
    obj.timestamp = new Date(Math.round(Date.parse(obj.timestamp) + shiftMs)).toISOString();
  }
  return JSON.stringify(obj);
}

/**
 * Appends the recording's rows at their recorded times (divided by `speed`), one write per file per
 * recorded moment, as the writer batched them. Resolves when the last row is written.
 */
export async function replayRecording(recording, { claudeDir, workspace, home = path.dirname(claudeDir), speed = 1, signal } = {}) {
  const { meta, rows } = recording;
  const transcript = path.join(claudeDir, 'projects', slug(workspace), `${meta.session_id}.jsonl`);
  const channel = path.join(claudeDir, 'transcript-lag', `${meta.session_id}.jsonl`);
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  fs.mkdirSync(path.dirname(channel), { recursive: true });
  const start = Date.now();
  const shiftMs = start - meta.t0_epoch_ms;
  const moments = new Map();
  for (const row of rows) {
    const key = row.t;
    if (!moments.has(key)) moments.set(key, []);
    moments.get(key).push(row);
  }
  for (const [t, batch] of [...moments.entries()].sort((a, b) => a[0] - b[0])) {
    if (signal?.aborted) return;
    const due = start + t / speed - Date.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
    for (const [kind, file] of [['transcript', transcript], ['channel', channel]]) {
      const text = batch
        .filter((r) => r.kind === kind)
        .map((r) => replayText(r, { claudeDir, workspace, home, shiftMs: shiftMs + t / speed - t }) + '\n')
        .join('');
      if (text) fs.appendFileSync(file, text);
    }
  }
  return { transcript, channel };
}
