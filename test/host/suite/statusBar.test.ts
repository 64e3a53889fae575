// The status bar item through its states: in sync with the last lag, held with a
// ticking age, warning colour past transcriptLag.warnAfterMs, error colour when a
// probing hook reported `behind`; the tooltip names the session.
import * as assert from 'node:assert/strict';
import { eventually, extensionApi, FakeSession, newClaudeDir, runHook, setSetting, useClaudeDir } from './support';

const WARNING = 'statusBarItem.warningBackground';
const ERROR = 'statusBarItem.errorBackground';

describe('status bar', () => {
  let claude: string;

  beforeEach(async () => {
    claude = newClaudeDir('status');
    await setSetting('warnAfterMs', 60_000);
    await useClaudeDir(await extensionApi(), claude);
  });

  after(async () => setSetting('warnAfterMs', undefined));

  it('appears for an active session and says held, then in sync once the record lands', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).title('Fix the flaky parser test').prompt('fix it');
    await eventually(api, 'the session to show', () => api.statusBarText());
    assert.match(api.statusBarText()!, /^\$\(check\) /);

    const hook = await runHook(claude, s.preToolUse('toolu_sb_1', 'Bash'));
    assert.equal(hook.code, 0);
    assert.equal(hook.stdout, '', 'the hook never writes stdout');
    const held = await eventually(api, 'held', () => /held/.test(api.statusBarText() ?? '') && api.statusBarText());
    assert.match(held, /^\$\(watch\) 1 held · \d/);
    assert.equal(api.statusBarBackground(), undefined, 'below warnAfterMs: default colour');
    assert.match(api.statusBarTooltip() ?? '', /Fix the flaky parser test/);

    s.toolUse('toolu_sb_1', 'Bash', { command: 'true' });
    const synced = await eventually(api, 'in sync', () => !/held/.test(api.statusBarText() ?? '') && api.statusBarText());
    // In sync shows the last call's lag (hook fired → record on disk).
    assert.match(synced, /^\$\(check\) \d/);
    assert.equal(api.statusBarBackground(), undefined);
  });

  it('ticks the held age while the call stays held', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('go');
    await runHook(claude, s.preToolUse('toolu_sb_tick', 'Read'));
    const first = await eventually(api, 'held', () => api.statusView()?.held === 1 && api.statusView()!);
    const later = await eventually(api, 'the age to grow', () => {
      const v = api.statusView();
      return v && v.text !== first.text && v;
    });
    assert.match(later.text, /1 held/);
    assert.ok(later.oldestHeldAgeMs! > first.oldestHeldAgeMs!, `${later.oldestHeldAgeMs} > ${first.oldestHeldAgeMs}`);
  });

  it('turns to the warning colour once a hold passes transcriptLag.warnAfterMs', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('go');
    await runHook(claude, s.preToolUse('toolu_sb_warn', 'Edit'));
    await eventually(api, 'held', () => /held/.test(api.statusBarText() ?? ''));
    assert.equal(api.statusBarBackground(), undefined);
    await setSetting('warnAfterMs', 0);
    await eventually(api, 'the warning colour', () => api.statusBarBackground() === WARNING);
    s.toolUse('toolu_sb_warn', 'Edit');
    await eventually(api, 'the colour to clear', () => !/held/.test(api.statusBarText() ?? '') && api.statusBarBackground() === undefined);
  });

  it('turns to the error colour when a probing hook gave up (behind)', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('go');
    // Probe mode with a tiny bound: the record never lands, so the hook reports `behind`.
    const hook = await runHook(claude, s.preToolUse('toolu_sb_behind', 'Bash'), ['--probe', '--polls', '2', '--poll-ms', '20']);
    assert.equal(hook.code, 0);
    await eventually(api, 'the error colour', () => api.statusBarBackground() === ERROR);
    assert.equal(api.statusView()?.reason, 'hook-behind');
    assert.match(api.statusBarTooltip() ?? '', /Waits seen \/ behind: \*\*0\*\* \/ \*\*1\*\*/);
  });

  it('is never red with a check mark after a behind wait, and clears once in sync', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('go');
    const hook = await runHook(claude, s.preToolUse('toolu_sb_behind_sync', 'Bash'), ['--probe', '--polls', '2', '--poll-ms', '20']);
    assert.equal(hook.code, 0);
    await eventually(api, 'the error colour while held', () => api.statusBarBackground() === ERROR);
    assert.match(api.statusBarText() ?? '', /^\$\(watch\) 1 held/);
    assert.match(api.statusBarAccessibilityLabel() ?? '', /^Transcript Lag: 1 held, .*behind/);
    s.toolUse('toolu_sb_behind_sync', 'Bash', { command: 'true' });
    const seen: string[] = [];
    const redWithCheck: string[] = [];
    // Red for at most 10 s after the wait ended (see BEHIND_RED_MS), then plain; never red with a check.
    await eventually(
      api,
      'the colour to clear once in sync',
      () => {
        const v = api.statusView();
        if (!v) return false;
        seen.push(`${v.background ?? 'default'} ${v.text}`);
        if (v.background === ERROR && v.text.includes('$(check)')) redWithCheck.push(v.text);
        return v.held === 0 && v.background === undefined && v.text.startsWith('$(check)');
      },
      20_000,
    );
    assert.deepEqual(redWithCheck, [], 'never red with a check mark');
    assert.ok(seen.some((x) => x.startsWith(`${ERROR} $(error) hook behind`)), seen.slice(0, 5).join(' | '));
  });

  it('turns to the error colour as a hold nears the hook timeout', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('go');
    await runHook(claude, s.preToolUse('toolu_sb_timeout', 'Bash'), ['--timeout-ms', '1']);
    await eventually(api, 'the error colour', () => api.statusBarBackground() === ERROR);
    assert.equal(api.statusView()?.reason, 'near-timeout');
  });
});
