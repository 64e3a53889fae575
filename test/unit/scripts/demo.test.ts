import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeTranscript } from '../../../src/core/analyze';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { ManualClock } from '../helpers/manualClock';

const repo = path.resolve(__dirname, '../../..');
const recordingsDir = path.join(repo, 'test/field/recordings');

interface RecordingMeta {
  scenario: string;
  session_id: string;
  calls: Array<{ tool_use_id: string; line: number; wait?: string }>;
}

function metaOf(file: string): RecordingMeta {
  return JSON.parse(fs.readFileSync(file, 'utf8').split('\n', 1)[0]!) as RecordingMeta;
}

/** The first user prompt (a plain string content) of a transcript. */
function firstPrompt(file: string): string | undefined {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const rec = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
    if (rec.type === 'user' && typeof rec.message?.content === 'string') return rec.message.content;
  }
  return undefined;
}

describe('npm run demo (replay only)', function () {
  this.timeout(60_000);
  let root: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-test-'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('replays every field recording into a Claude dir of the workspace, calls at their recorded lines with their wait outcomes, each session with a prompt of its own', async () => {
    const run = spawnSync(
      process.execPath,
      ['scripts/demo.mjs', '--no-open', '--skip-build', '--rounds', '1', '--speed', '50', '--exit-after-replay', '--dir', root],
      { cwd: repo, encoding: 'utf8', timeout: 50_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const projectDir = path.join(root, 'home/.claude/projects', path.join(root, 'work').replace(/[^A-Za-z0-9]/g, '-'));
    const transcripts = fs.readdirSync(projectDir).filter((f) => f.endsWith('.jsonl'));
    const recordings = fs.readdirSync(recordingsDir).filter((f) => f.endsWith('.jsonl'));
    const played = ['interactive-parallel-probe-slow.jsonl', 'print-single-probe.jsonl', 'interactive-single-probe.jsonl'];
    assert.ok(played.every((f) => recordings.includes(f)), 'the demo plays recordings that exist');
    // The live set, and before it a finished session for the window to find as history.
    assert.equal(transcripts.length, played.length + 1);

    const analyses = await Promise.all(
      transcripts.map((t) =>
        analyzeTranscript({
          path: path.join(projectDir, t),
          channelPath: path.join(root, 'home/.claude/transcript-lag', t),
          files: nodeFileAccess,
          clock: new ManualClock(),
        }),
      ),
    );
    for (const file of played) {
      const meta = metaOf(path.join(recordingsDir, file));
      const wanted = meta.calls.map((c) => `${c.tool_use_id}@${c.line}:${c.wait ?? '-'}`).sort();
      const match = analyses.find((a) => {
        const got = a.calls.map((c) => `${c.tool_use_id}@${c.line}:${c.waits?.[0]?.outcome ?? '-'}`).sort();
        return JSON.stringify(got) === JSON.stringify(wanted);
      });
      assert.ok(match, `${meta.scenario}: no replayed transcript has calls ${wanted.join(', ')}; got ${analyses.map((a) => a.calls.map((c) => `${c.tool_use_id}@${c.line}:${c.waits?.[0]?.outcome}`).join(' ')).join(' | ')}`);
      assert.equal(match.malformed, 0);
    }
    // Every recording's prompt is "go": the demo's sessions must be told apart in the view.
    const prompts = transcripts.map((t) => firstPrompt(path.join(projectDir, t)));
    assert.ok(prompts.every((p) => p !== undefined && p !== 'go'), `prompts: ${prompts.join(' | ')}`);
    assert.equal(new Set(prompts).size, transcripts.length, `prompts: ${prompts.join(' | ')}`);
    assert.ok(analyses.some((a) => a.calls.some((c) => c.waits?.[0]?.outcome === 'behind')), 'a wait that ended behind');
  });
});
