import { strict as assert } from 'node:assert';
import { promises as fsp, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { fixturesDir } from '../../helpers/fixtures';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture } from '../../helpers/engineFixture';

/**
 * Real transcripts written by Claude Code, replayed into a temp Claude dir the
 * way they reached disk according to the independent probe (probe.log): the
 * lines before the calls' records, the hook firing, the records landing
 * `held_ms` later, then the rest. The engine must report what the probe saw.
 */
interface ProbeLine {
  ev: string;
  id: string;
  at?: number;
  line?: number;
  held_ms?: number;
  with_result?: boolean;
  session?: string;
  tool?: string;
}

const realDir = path.join(fixturesDir, 'real');
const cases = readdirSync(realDir).filter((d) => readdirSync(path.join(realDir, d)).includes('probe.log'));

/** Line (1-based) of the first record holding a tool_result for `id`, by a plain JSON.parse of each line. */
function resultLineOf(lines: string[], id: string): number | undefined {
  const i = lines.findIndex((l) => {
    const content = (JSON.parse(l) as { message?: { content?: unknown } }).message?.content;
    return Array.isArray(content) && content.some((b: { type?: string; tool_use_id?: string }) => b?.type === 'tool_result' && b.tool_use_id === id);
  });
  return i < 0 ? undefined : i + 1;
}

describe('engine over real transcripts (probe.log ground truth)', () => {
  for (const name of cases) {
    it(name, async () => {
      const dir = path.join(realDir, name);
      const probe = readFileSync(path.join(dir, 'probe.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ProbeLine);
      const pres = probe.filter((p) => p.ev === 'PreToolUse');
      const seen = probe.filter((p) => p.ev === 'seen');
      const sessionId = pres[0].session as string;
      const lines = readFileSync(path.join(dir, `${sessionId}.jsonl`), 'utf8').split('\n').filter(Boolean);
      const cwd = (lines.map((l) => JSON.parse(l) as { cwd?: string }).find((r) => r.cwd) as { cwd: string }).cwd;

      const fx = await ClaudeDirFixture.create();
      // Record timestamps are from the recording; the manual clock replays the probe's own times.
      const clock = new ManualClock(Date.now());
      const shift = clock.now() - Math.min(...pres.map((p) => p.at as number));
      const t = fx.transcriptPath(sessionId, cwd);
      const firstRecord = Math.min(...seen.map((s) => s.line as number));
      const lastRecord = Math.max(...seen.map((s) => s.line as number));
      await fx.appendRaw(t, lines.slice(0, firstRecord - 1).map((l) => `${l}\n`).join(''));
      const engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [cwd], scope: 'workspace', files: nodeFileAccess, clock });
      const events: EngineEvent[] = [];
      engine.onEvent((e) => events.push(e));
      try {
        await engine.start();
        for (const p of pres) {
          await fx.append(fx.channelPath(sessionId), [{ v: 1, event: 'pre', at: (p.at as number) + shift, session_id: sessionId, transcript_path: t, tool_use_id: p.id, tool_name: p.tool }]);
        }
        clock.advance(5);
        await engine.tick();
        // The records of one message land in one write: at the latest moment the probe saw one of them.
        const landed = Math.max(...seen.map((s) => (pres.find((p) => p.id === s.id)?.at as number) + (s.held_ms as number))) + shift;
        // The clock first: the engine's watcher may read the write before the tick, and must read it at `landed`.
        clock.advance(landed - clock.now());
        await fx.appendRaw(t, lines.slice(firstRecord - 1, lastRecord).map((l) => `${l}\n`).join(''));
        await engine.tick();
        await fx.appendRaw(t, lines.slice(lastRecord).map((l) => `${l}\n`).join(''));
        clock.advance(1000);
        await engine.tick();

        for (const s of seen) {
          const mine = events.filter((e) => 'tool_use_id' in e && e.tool_use_id === s.id);
          assert.deepEqual(mine.map((e) => e.event).slice(0, 2), ['held', 'written'], s.id);
          const w = mine.find((e) => e.event === 'written');
          assert.ok(w && w.event === 'written');
          assert.equal(w.line, s.line, `${s.id} line`);
          assert.equal(w.with_result, s.with_result, `${s.id} with_result`);
          // The probe polled every 10 ms: our lag is the probe's held_ms within that resolution.
          assert.ok(Math.abs((w.lag_ms as number) - (s.held_ms as number)) <= 20, `${s.id} lag ${w.lag_ms} vs held_ms ${s.held_ms}`);
          const r = mine.find((e) => e.event === 'result');
          assert.ok(r && r.event === 'result');
          assert.equal(r.line, resultLineOf(lines, s.id), `${s.id} result line`);
        }
        const snap = engine.session(sessionId);
        assert.equal(snap?.stats.calls_written, seen.length);
        assert.equal(snap?.stats.shape_before_result, seen.filter((s) => !s.with_result).length);
        assert.equal(snap?.stats.malformed_lines, 0);
        assert.equal(snap?.last_line, lines.length);
        assert.equal(snap?.cwd, cwd);
      } finally {
        await engine.dispose();
        await fx.remove();
      }
    });
  }
});
