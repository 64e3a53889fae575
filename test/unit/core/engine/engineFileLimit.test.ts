import { strict as assert } from 'node:assert';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import type { EngineNotice } from '../../../../src/core/engineNotices';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import { FaultyFileAccess } from '../../helpers/faultyFileAccess';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

// Each followed session has a transcript and a channel file. A process at its
// descriptor limit (ulimit -n, shared with the rest of the extension host) must
// neither lose hook events nor lose them silently.
describe('TranscriptLagEngine at the limit on open files', () => {
  const SESSIONS = 700;
  const LIMIT = 100;
  let fx: ClaudeDirFixture;
  let engine: TranscriptLagEngine | undefined;

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
  });
  afterEach(async () => {
    await engine?.dispose();
    engine = undefined;
    await fx.remove();
  });

  const sessionId = (i: number) => `a1b2c3d4-0000-4000-8000-${String(i).padStart(12, '0')}`;

  it(`gets every hook event of ${SESSIONS} sessions with ${LIMIT} files open at most, and says it hit the limit`, async () => {
    const clock = new ManualClock(Date.now());
    for (let i = 0; i < SESSIONS; i++) await fx.append(fx.transcriptPath(sessionId(i)), [userPrompt(sessionId(i), fx.workspace)]);
    const files = new FaultyFileAccess();
    files.limitOpenHandles(LIMIT);
    // The engine's own bound is above what the process can have: only the system's refusals tell it.
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files, clock, maxOpenFiles: 1000 });
    const events: EngineEvent[] = [];
    const notices: EngineNotice[] = [];
    engine.onEvent((e) => events.push(e));
    engine.onNotice((n) => notices.push(n));
    await engine.start();
    await engine.indexed();

    const fired = clock.now();
    for (let i = 0; i < SESSIONS; i++) await fx.append(fx.channelPath(sessionId(i)), [preLine(sessionId(i), fx.transcriptPath(sessionId(i)), `toolu_${i}`, fired)]);
    clock.advance(40);
    await engine.tick();
    const held = new Set(events.filter((e) => e.event === 'held').map((e) => e.session_id));
    assert.equal(held.size, SESSIONS);

    for (let i = 0; i < SESSIONS; i++) await fx.append(fx.transcriptPath(sessionId(i)), [toolUseRecord(sessionId(i), fx.workspace, `toolu_${i}`)]);
    clock.advance(60);
    await engine.tick();
    const written = events.filter((e) => e.event === 'written' && e.lag_ms === 100);
    assert.equal(new Set(written.map((e) => e.session_id)).size, SESSIONS);
    assert.equal(engine.sessions().reduce((n, s) => n + s.stats.held_now, 0), 0);

    assert.ok(files.openPeak <= LIMIT);
    const said = notices.filter((n) => n.kind === 'file_limit');
    assert.equal(said.length, 1, JSON.stringify(notices));
    assert.ok(said[0].kind === 'file_limit' && said[0].recovered && said[0].code === 'EMFILE' && said[0].max_open < LIMIT);
  });

  it('says so when not even one file can be opened', async () => {
    const clock = new ManualClock(Date.now());
    const s = sessionId(1);
    await fx.append(fx.transcriptPath(s), [userPrompt(s, fx.workspace)]);
    const files = new FaultyFileAccess();
    files.limitOpenHandles(0, 'ENFILE');
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files, clock });
    const notices: EngineNotice[] = [];
    engine.onNotice((n) => notices.push(n));
    await engine.start();
    await engine.indexed();
    assert.ok(notices.some((n) => n.kind === 'file_limit' && !n.recovered && n.code === 'ENFILE'), JSON.stringify(notices));
  });
});
