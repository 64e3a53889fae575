/**
 * `transcript-lag complete`'s cost (issue 39 §6): what a PreToolUse hook pays for the wrapper in front
 * of it. For transcripts of 1, 10 and 100 MB, wall time of one run of each, interleaved so a shared
 * machine's drift hits all alike:
 *   bare   `node -e 0`, the floor of any Node hook
 *   cp     `cp` of the same transcript (the copy alone, by the coreutils everyone has)
 *   pass   the wrapper with no held message: the input unchanged to CMD (`true`)
 *   copy   the wrapper with the call held: the kernel's copy, the records appended, CMD (`true`), the copy removed
 * In the home folder (where ~/.claude is), not the temp folder, which may be a tmpfs. `copy − pass`
 * is what a held call adds.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BenchContext } from './lib/context';
import { benchEnv, timedRun } from './lib/proc';
import { row, type Row, type SectionResult } from './lib/report';
import { median, percentile } from './lib/stats';

const SECTION = 'complete';
const SESSION = '3e55a9e0-1111-4222-8333-0123456789ab';
const ID = 'toolu_01BenchHeld';

function transcriptOf(bytes: number): Buffer {
  const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'x'.repeat(1900) }] } })}\n`;
  return Buffer.from(line.repeat(Math.ceil(bytes / line.length)));
}

export async function completeCost(ctx: BenchContext): Promise<SectionResult> {
  const wrapper = path.join(ctx.repoRoot, 'dist', 'cli-complete.js');
  if (!fs.existsSync(wrapper)) return { section: SECTION, rows: [], error: 'dist/cli-complete.js not built' };
  const rounds = ctx.quick ? 5 : 12;
  const env = benchEnv();
  const root = fs.mkdtempSync(path.join(os.homedir(), '.tl-bench-complete-'));
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  try {
    for (const mb of ctx.quick ? [1, 10] : [1, 10, 100]) {
      const claudeDir = path.join(root, `c${mb}`);
      const transcript = path.join(claudeDir, 'projects', '-bench', `${SESSION}.jsonl`);
      fs.mkdirSync(path.dirname(transcript), { recursive: true });
      fs.writeFileSync(transcript, transcriptOf(mb * 1024 * 1024));
      const heldDir = path.join(claudeDir, 'transcript-lag', 'held', SESSION);
      fs.mkdirSync(heldDir, { recursive: true, mode: 0o700 });
      const heldFile = path.join(heldDir, `${ID}.json`);
      const input = JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: '/bench', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: ID });
      const hold = () =>
        fs.writeFileSync(heldFile, JSON.stringify({ v: 1, tool_use_id: ID, session_id: SESSION, at: Date.now(), text_blocks: ['Listing.'], tool_use: { id: ID, name: 'Bash', input: { command: 'ls' } } }), { mode: 0o600 });
      const dest = path.join(root, 'cp-dest.jsonl');
      const t = { bare: [] as number[], cp: [] as number[], pass: [] as number[], copy: [] as number[] };
      const ok = (r: { status: number | null; stderr: string; wallMs: number }, what: string) => {
        if (r.status !== 0) throw new Error(`${what}: exit ${r.status} ${r.stderr.slice(0, 200)}`);
        return r.wallMs;
      };
      for (let i = 0; i < rounds + 2; i++) {
        const bare = ok(timedRun(process.execPath, ['-e', '0'], { input: '', env }), 'node -e 0');
        fs.rmSync(dest, { force: true });
        const cp = ok(timedRun('cp', [transcript, dest], { env }), 'cp');
        fs.rmSync(heldFile, { force: true });
        const pass = ok(timedRun(process.execPath, [wrapper, '--', 'true'], { input, env }), 'wrapper, nothing held');
        hold();
        const copy = ok(timedRun(process.execPath, [wrapper, '--', 'true'], { input, env }), 'wrapper, held');
        if (i >= 2) [t.bare, t.cp, t.pass, t.copy].forEach((a, k) => a.push([bare, cp, pass, copy][k]));
      }
      const left = fs.readdirSync(path.join(claudeDir, 'transcript-lag', 'complete')).length;
      const p = (xs: number[]) => `p50 ${median(xs).toFixed(0)}, p90 ${percentile(xs, 90).toFixed(0)} ms`;
      rows.push(
        row(SECTION, `${mb} MB: wrapper, nothing held / node -e 0`, median(t.pass) / median(t.bare), 'x', undefined, `${p(t.pass)} vs ${p(t.bare)}; ${rounds} interleaved rounds`),
        row(SECTION, `${mb} MB: wrapper, held (copy) / node -e 0`, median(t.copy) / median(t.bare), 'x', undefined, `${p(t.copy)}`),
        row(SECTION, `${mb} MB: what a held call adds (copy − pass)`, median(t.copy) - median(t.pass), 'ms', undefined, `cp of the same file ${p(t.cp)}`),
        row(SECTION, `${mb} MB: copies left behind`, left, '', { op: '<=', limit: 0 }),
      );
      details[`${mb}MB`] = t;
      fs.rmSync(claudeDir, { recursive: true, force: true });
    }
    return { section: SECTION, rows, details };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
