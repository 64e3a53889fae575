/**
 * The field recordings (test/field/recordings) as files: a recording written out whole (no timing) into
 * a Claude dir of its own, paths filled in (scripts/lib/replay.mjs), for the tests that replay them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const repoRoot = path.resolve(__dirname, '../../..');
export const recordingsDir = path.join(repoRoot, 'test/field/recordings');

function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export interface Materialized {
  meta: { scenario: string; mode: string; session_id: string; calls: Array<{ tool_use_id: string; tool_name: string; wait: string }> };
  transcript: string;
  channel: string;
  workspace: string;
}

/** A field recording written out whole (no timing) into a Claude dir of its own, paths filled in (scripts/lib/replay.mjs). */
export async function materialize(file: string): Promise<Materialized> {
  const { loadRecording, replayText } = (await import(pathToFileURL(path.join(repoRoot, 'scripts/lib/replay.mjs')).href)) as {
    loadRecording: (f: string) => { meta: Materialized['meta']; rows: Array<{ kind: string; line: number; text: string }> };
    replayText: (row: unknown, o: { claudeDir: string; workspace: string; home: string; shiftMs: number }) => string;
  };
  const { slug } = (await import(pathToFileURL(path.join(repoRoot, 'scripts/lib/recordings.mjs')).href)) as { slug: (p: string) => string };
  const root = tempDir('tl-replay-rec-');
  const claudeDir = path.join(root, 'home', '.claude');
  const workspace = path.join(root, 'work');
  fs.mkdirSync(workspace, { recursive: true });
  const { meta, rows } = loadRecording(file);
  const transcript = path.join(claudeDir, 'projects', slug(workspace), `${meta.session_id}.jsonl`);
  const channel = path.join(claudeDir, 'transcript-lag', `${meta.session_id}.jsonl`);
  for (const [kind, target] of [['transcript', transcript], ['channel', channel]] as const) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const text = rows
      .filter((r) => r.kind === kind)
      .sort((x, y) => x.line - y.line)
      .map((r) => `${replayText(r, { claudeDir, workspace, home: path.join(root, 'home'), shiftMs: 0 })}\n`)
      .join('');
    fs.writeFileSync(target, text);
  }
  return { meta, transcript, channel, workspace };
}

