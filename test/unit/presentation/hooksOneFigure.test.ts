import { strict as assert } from 'node:assert';
import { jsonLine } from '../../../src/cli/watch';
import { TranscriptLagEngine } from '../../../src/core/engine';
import type { EngineEvent } from '../../../src/core/engineEvents';
import { LagMetrics } from '../../../src/platform/lagMetrics';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { samplesToJson } from '../../../src/presentation/exportRows';
import { LagSampleStore } from '../../../src/presentation/lagSamples';
import { buildReport } from '../../../src/presentation/reportModel';
import { treeModel } from '../../../src/presentation/treeModel';
import { ClaudeDirFixture, toolResultRecord, toolUseRecord, userPrompt } from '../helpers/engineFixture';

// One call, one figure (issue 40 §5): the mod reports a call's settings hooks twice, a `hooks` line and
// the same figures on its `post`. Should the two disagree, whatever order they come in and wherever the
// call's record is read among them, watch --json's `hooks` event, its `written`, the snapshot and the
// tree, the report and export, and /metrics all say the one figure the call keeps (canonicalHooks: the
// shorter), on the real engine over real files.
const SID = 'sess-hooks-one-figure';
const ID = 'toolu_hooks_one_figure';
const MOD = { transport: 'mod', source: 'transcript-lag-mod' } as const;

type Step = 'hooks' | 'post' | 'record';

describe('one call, one hooks figure in every view (issue 40 §5)', () => {
  // The orders the reports and the record may come in: each report before or after the other, the record anywhere among them.
  const orders: Step[][] = [
    ['hooks', 'post', 'record'],
    ['post', 'hooks', 'record'],
    ['hooks', 'record', 'post'],
    ['post', 'record', 'hooks'],
    ['record', 'hooks', 'post'],
    ['record', 'post', 'hooks'],
  ];
  // The `hooks` line's figure against the post's: longer, then shorter.
  const figures: Array<{ hooksMs: number; postMs: number }> = [
    { hooksMs: 2000, postMs: 1500 },
    { hooksMs: 1500, postMs: 2000 },
  ];

  for (const { hooksMs, postMs } of figures) {
    for (const order of orders) {
      it(`hooks line ${hooksMs} ms, post ${postMs} ms, read as ${order.join(' → ')}: 1.5s everywhere`, async () => {
        const fx = await ClaudeDirFixture.create();
        let now = 1_760_000_000_000;
        const engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock: { now: () => now } });
        const watchJson: Array<Record<string, unknown>> = [];
        const samples = new LagSampleStore();
        const metrics = new LagMetrics({ sessions: () => engine.sessions() });
        engine.onEvent((e: EngineEvent) => {
          watchJson.push(JSON.parse(jsonLine(e)));
          samples.add(e);
          metrics.observe(e);
        });
        try {
          await engine.start();
          const transcript = fx.transcriptPath(SID);
          const channel = fx.channelPath(SID);
          const head = { v: 1, session_id: SID, transcript_path: transcript, tool_use_id: ID, tool_name: 'Bash' };
          await fx.append(transcript, [userPrompt(SID, fx.workspace)]);
          await fx.append(channel, [{ ...head, event: 'pre', at: now, ...MOD }]);
          const fired = now;
          now += 100;
          await engine.tick();
          const lines: Record<Step, () => Promise<void>> = {
            hooks: () => fx.append(channel, [{ ...head, event: 'hooks', at: fired + hooksMs, hooks_ms: hooksMs, hooks_decision: 'allow', ...MOD }]),
            post: () => fx.append(channel, [{ ...head, event: 'post', at: fired + 3000, hooks_ms: postMs, hooks_decision: 'allow', ...MOD }]),
            record: () => fx.append(transcript, [toolUseRecord(SID, fx.workspace, ID), toolResultRecord(SID, fx.workspace, ID)]),
          };
          // One read each: the engine learns them one at a time, in this order.
          for (const step of order) {
            await lines[step]();
            now += 1000;
            await engine.tick();
          }

          const kept = Math.min(hooksMs, postMs);
          const said = watchJson.filter((e) => e.event === 'hooks');
          assert.deepEqual(said.map((e) => [e.tool_use_id, e.hooks_ms, e.hooks_decision]), [[ID, kept, 'allow']], "watch --json's hooks event: once, the call's figure");
          const [written] = watchJson.filter((e) => e.event === 'written');
          assert.ok(written, 'written');
          // Said on written only when final by then: never a figure another event takes back.
          if ('hooks_ms' in written) assert.equal(written.hooks_ms, kept, "written's figure");
          if (order.indexOf('record') === 2) assert.equal(written.hooks_ms, kept, 'both reports in before the record: written carries the figure');

          const call = engine.session(SID)?.recent.find((c) => c.tool_use_id === ID);
          assert.deepEqual(call?.hooks, { ms: kept, decision: 'allow' }, "the snapshot's figure");
          const row = treeModel(engine.sessions(), now)[0].children.find((c) => c.tool_use_id === ID);
          assert.match(row?.description ?? '', new RegExp(`· hooks ${kept / 1000}s ·`), "the tree row's figure");

          const [sample] = samples.samples(SID);
          assert.equal(sample.hooks_ms, kept, "the report's and export's figure");
          assert.match(buildReport(engine.session(SID)!, samples.samples(SID), now).rows[0].hooks, new RegExp(`^${kept / 1000}s`));
          assert.equal(JSON.parse(samplesToJson(samples.samples(SID), now)).samples[0].hooks_ms, kept);

          const text = await metrics.text();
          const value = (series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1]);
          assert.equal(value('transcript_lag_hooks_seconds_count{tool="Bash",decision="allow"}'), 1, '/metrics: one observation');
          assert.equal(value('transcript_lag_hooks_seconds_sum{tool="Bash",decision="allow"}'), kept / 1000, "/metrics: the call's figure");
        } finally {
          await engine.dispose();
          await fx.remove();
        }
      });
    }
  }
});
