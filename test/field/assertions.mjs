// What the field test asserts about one scenario's measurements. Two kinds:
// - invariants, for every CLI version: the project's hook, `watch` and `analyze` must agree with the
//   ground truth recorded on disk (lines, wait outcomes, shapes);
// - the writer's behaviour as measured on the pinned CLI (see docs/COMPATIBILITY.md): in print mode a
//   call's record lands when its message ends; in interactive mode it stays held while the PreToolUse
//   hooks run. Other versions are classified, not failed, on these (field-compat reports them).

/** Slack for comparing times taken by different pollers (10 ms recorder, 100 ms probe, watch). */
const SLACK_MS = 400;
/** watch's default stat poll. */
const WATCH_POLL_MS = 1000;

export function classifyCall(call, def) {
  if (call.heldMs === undefined) return 'never-written';
  const hookBoundMs = expectedHooksMs(def);
  // Held at least as long as the hooks' bound (minus their start-up): the writer waited for the hooks.
  return call.heldMs >= hookBoundMs * 0.8 && hookBoundMs >= 500 ? 'held-while-hooks-run' : 'written-at-message-end';
}

/** How long the PreToolUse hooks of a scenario run at least: the probe's bound, the slow hook. */
export function expectedHooksMs(def) {
  const probeMs = def.hook === 'probe' ? def.polls * def.pollMs : 0;
  return Math.max(probeMs, def.slowHookMs ?? 0);
}

/** The behaviour expected of a version: 'holds' in interactive mode, or 'prompt' (2.1.280 and earlier). */
export function interactiveProfile(version) {
  const [maj, min, patch] = version.split('.').map(Number);
  return maj === 2 && min === 1 && patch <= 280 ? 'prompt' : 'holds';
}

export function checkScenario(result, { strictProfile }) {
  const failures = [];
  const fail = (msg) => failures.push(msg);
  const { def, calls } = result;
  if (!result.sessionId) fail('no hook event: the CLI never ran a tool (see api requests and screen)');

  const written = new Map();
  for (const e of result.watchEvents) if (e.event === 'written' && e.tool_use_id) written.set(e.tool_use_id, e);
  const analyzed = new Map((result.analysis?.calls ?? []).map((c) => [c.tool_use_id, c]));
  if (result.analyzeError) fail(`analyze failed: ${result.analyzeError}`);

  for (const c of calls) {
    const where = `${c.id} (${c.tool})`;
    if (c.firedAt === undefined) {
      fail(`${where}: PreToolUse never fired`);
      continue;
    }
    if (c.line === undefined) {
      fail(`${where}: its record never reached the transcript`);
      continue;
    }
    // watch: every call gets `written`, at the line the recorder saw.
    const w = written.get(c.id);
    if (!w) fail(`${where}: watch never reported written`);
    else {
      if (w.line !== c.line) fail(`${where}: watch says line ${w.line}, the transcript has it at ${c.line}`);
      if (c.resultAt !== undefined && Math.abs(c.resultAt - c.landedAt) > SLACK_MS && w.with_result !== c.withResult) {
        fail(`${where}: watch says with_result=${w.with_result}, on disk it was ${c.withResult}`);
      }
    }
    // The lag watch reports (on `written`, or on `joined` when the hook's report came after the
    // record) is the recorder's fired → on-disk time: never less, and at most watch's 1 s stat poll
    // more (its safety net when a change notification is late or missed).
    const lagEvent = result.watchEvents.find((e) => e.tool_use_id === c.id && typeof e.lag_ms === 'number');
    if (!lagEvent) fail(`${where}: watch never reported a lag`);
    else if (lagEvent.lag_ms < c.heldMs - SLACK_MS || lagEvent.lag_ms > c.heldMs + WATCH_POLL_MS + SLACK_MS) {
      fail(`${where}: watch says lag ${lagEvent.lag_ms} ms, on disk it was ${c.heldMs} ms`);
    }
    // A call held for a second or more must have been shown as held before it was written.
    if (c.heldMs >= 1000) {
      const held = result.watchEvents.find((e) => e.event === 'held' && e.tool_use_id === c.id);
      if (!held) fail(`${where}: held ${c.heldMs} ms but watch never reported it held`);
      else if (w && held.t > w.t) fail(`${where}: watch reported held after written`);
    }
    // analyze agrees with watch and the disk.
    const a = analyzed.get(c.id);
    if (!a) fail(`${where}: analyze does not list the call`);
    else {
      if (a.line !== c.line) fail(`${where}: analyze says line ${a.line}, the transcript has it at ${c.line}`);
      if (c.resultLine !== undefined && a.result_line !== c.resultLine) {
        fail(`${where}: analyze says result line ${a.result_line}, the transcript has it at ${c.resultLine}`);
      }
    }
    // The probe's own report must match what was on disk while it waited.
    if (def.hook === 'probe') checkWait(c, def, fail, where);
    // `racy` scenarios measure a race (hooks starting vs. the message ending): reported, not asserted.
    if (strictProfile && !def.racy) checkProfile(c, def, result.version, fail, where);
  }
  if (def.hook === 'probe') {
    const waits = result.watchEvents.filter((e) => e.event === 'wait');
    for (const c of calls) {
      const w = waits.find((e) => e.tool_use_id === c.id);
      if (!w) fail(`${c.id}: watch never reported the probe's wait`);
      else if (c.wait && w.outcome !== c.wait.outcome) fail(`${c.id}: watch says wait ${w.outcome}, channel says ${c.wait.outcome}`);
    }
  }
  return failures;
}

function checkWait(c, def, fail, where) {
  const w = c.wait;
  if (!w) return fail(`${where}: the probe reported no wait`);
  const waitEnd = c.channelPreAt + w.waited_ms;
  if (w.outcome === 'seen') {
    if (w.line !== c.line) fail(`${where}: probe saw line ${w.line}, the record is at ${c.line}`);
    if (c.landedAt > waitEnd + SLACK_MS) fail(`${where}: probe says seen but the record landed ${c.landedAt - waitEnd} ms after its wait`);
  } else if (w.outcome === 'behind') {
    if (w.polls !== def.polls) fail(`${where}: behind after ${w.polls} polls, bound is ${def.polls}`);
    if (c.landedAt < waitEnd - SLACK_MS) fail(`${where}: probe says behind but the record landed ${waitEnd - c.landedAt} ms before its wait ended`);
  } else fail(`${where}: probe wait ended ${w.outcome}`);
}

/** The pinned version's measured behaviour (and 2.1.280's, per the field report). */
function checkProfile(c, def, version, fail, where) {
  const interactiveHolds = def.mode === 'interactive' && interactiveProfile(version) === 'holds';
  // Measured on 2.1.332: the first message of an interactive session is held in about half the runs
  // and written at its end in the others (something else flushes the writer then). Reported only.
  const racy = interactiveHolds && c.message === 0;
  // The hold needs the message still open when the hooks start (measured: with message_delta sent
  // the instant the last block closes, 2.1.332 mostly writes promptly in interactive mode too).
  const holds = interactiveHolds && (def.finishDelayMs ?? 0) > 0;
  const hooksMs = expectedHooksMs(def);
  if (racy) {
    // no profile claim
  } else if (holds) {
    // Held about as long as the hooks run: not before they end, not long after.
    if (hooksMs >= 500 && c.heldMs < hooksMs * 0.8) fail(`${where}: held ${c.heldMs} ms, expected about the hooks' ${hooksMs} ms`);
    if (c.heldMs > hooksMs + 2000) fail(`${where}: held ${c.heldMs} ms, far beyond the hooks' ${hooksMs} ms`);
    if (def.hook === 'probe' && c.wait?.outcome !== 'behind') fail(`${where}: interactive probe expected behind, got ${c.wait?.outcome}`);
  } else {
    // Written when the message ends: the stand-in's finish delay plus the writer's batching.
    const bound = (def.finishDelayMs ?? 0) + 1000;
    if (c.heldMs > bound) fail(`${where}: held ${c.heldMs} ms, expected within ${bound} ms`);
    if (def.hook === 'probe') {
      if (c.wait?.outcome !== 'seen') fail(`${where}: probe expected to see its call, got ${c.wait?.outcome}`);
      else if (c.wait.polls > 8) fail(`${where}: probe needed ${c.wait.polls} polls, expected a few`);
    }
  }
  // A tool that runs 1 s: its record is on disk well before its result, in every mode seen so far.
  if (!racy && c.slowTool && c.withResult !== false) {
    fail(`${where}: expected its record before its result (with_result false), got ${c.withResult}`);
  }
}
