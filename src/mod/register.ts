/**
 * The transcript-lag mod: run inside Claude Code 2.1.286+ as measured (docs/COMPATIBILITY.md; plugin/hooks/hooks.json
 * `"modules"`), bundled to plugin/hooks/transcript-lag-mod.js by scripts/plugin-hook.mjs.
 *
 * - At `tool.call`, before `next` (so before every settings PreToolUse hook), it
 *   stores the assistant message that carries the call where a reviewing hook can
 *   read it (src/rules/modContract.ts) and reports `pre` with the real fire time.
 * - `post` when `next` settles, a `record` event per row at `session.append` (its birth).
 * - At `classic.PreToolUse` (inside `tool.call`'s `next`) it times the call's settings
 *   PreToolUse hooks and reports `hooks`; `post` carries the same figures.
 * - While a call's record is not on disk it shows "held" on the spinner, then
 *   the call's lag on its tool row.
 *
 * Before `next`, a call waits only for what its settings hooks rely on: the list of
 * calls the mod reports (so the command hooks stand aside) and the held message
 * (the conversation's newest rows, one write). Reports go out unawaited, to the
 * receiver when one runs, else to the spool.
 *
 * This file holds the handlers; what they do is in the files beside it: the state
 * (state.ts), how an event goes out (channelOut.ts), the held message (heldMessage.ts),
 * the call list (callList.ts), the liveness file (liveness.ts), the looks at a
 * held call's file (looks.ts), the timing of its settings hooks (hooksTiming.ts) and what the spinner
 * and the tool rows show (rows.ts).
 *
 * Claude Code's loader checks the bundle statically (`claude plugin validate`):
 * `$` is only ever spelled `$.noun.event(...)` and handed to top-level functions,
 * which every file here declares and the bundle (one file, scripts/lib/modBuild.mjs)
 * keeps as written. The API is the one Claude Code writes to
 * `types/claude-code/index.d.ts` in a plugin's `.claude-plugin/` folder (checked against 2.1.332).
 */
import { recordFileOf } from '../rules/modContract';
import type { AppendEvent, ModApi, On, PreToolUseResult, RenderEvent, ToolCallEnvelope, ToolCallEvent } from './api';
import { listCall } from './callList';
import { dropHeldMessageNow, privateFolder, storeHeldMessage } from './heldMessage';
import { keepAlive, removeAlive, writeAlive } from './liveness';
import { cursorAt, watchHeld } from './looks';
import { findReceiver, modEvent, report, spoolFull } from './channelOut';
import { hooksFields } from '../rules/hookEvidence';
import { hooksSettled } from './hooksTiming';
import { spinnerHeld, toolGroupLag, toolRowLag } from './rows';
import { MAX_CALLS, newState, now, placeOf, type HeldCall } from './state';

/** The session's transcript as `$.session.info()` gives it; undefined on a build without the call (2.1.325 and before). */
async function transcriptPathOf($: ModApi): Promise<string | undefined> {
  try {
    return (await $.session.info()).transcriptPath;
  } catch {
    return undefined;
  }
}

export function register(on: On, options: Readonly<Record<string, unknown>>) {
  const s = newState(options);

  on('session.start', async ($, e, next) => {
    // Where the build has no `$.session.info()` (2.1.325 and before), classic.SessionStart names the transcript;
    // in print mode it runs first (test/field/measure/hookOrder.mjs), so what it named is kept.
    s.place = placeOf(await transcriptPathOf($)) ?? s.place;
    if (s.place !== undefined) {
      await findReceiver($, s, s.place);
      // Made now, so each call's check finds it there (one chmod).
      if (s.keepHeldMessages) await privateFolder($, s.place);
      // Before any hook of the session runs: a reviewing hook can tell the mod runs (message --json's `mod`).
      await writeAlive($, s, s.place);
    }
    keepAlive($, s);
    return next(e);
  });

  // Leaving: no held message may outlive the session (it has 1.5 s for every mod's session.end).
  on('session.end', async ($, e, next) => {
    const dropping = [...s.held.values()].map((call) => dropHeldMessageNow($, call));
    s.held.clear();
    // A call whose next never settled (the session ended under it) is not waited for.
    s.calling.clear();
    s.alive?.cancel();
    s.alive = undefined;
    if (s.place !== undefined) dropping.push(removeAlive($, s, s.place));
    await Promise.all(dropping);
    return next(e);
  });

  // /clear, /resume and a fork start another session (another transcript) in the same process.
  on('classic.SessionStart', async ($, e: { transcript_path?: string }, next) => {
    const before = s.place;
    s.place = placeOf(e.transcript_path) ?? s.place;
    if (s.place !== undefined && s.keepHeldMessages) await privateFolder($, s.place);
    // The session this process left is not the mod's any more; the one it runs now is.
    if (before !== undefined && before.sessionId !== s.place?.sessionId) void removeAlive($, s, before);
    if (s.place !== undefined) await writeAlive($, s, s.place);
    return next(e);
  });

  on('tool.call', async ($, e: ToolCallEvent, next) => {
    const at = now();
    // Known from session.start or the last SessionStart; asked for only when it is not.
    const p = s.place ?? placeOf(await transcriptPathOf($));
    if (p === undefined || s.held.size >= MAX_CALLS) return next(e);
    s.place = p;
    const recordPath = recordFileOf(p.transcriptPath, p.sessionId, e.agentId);
    if (recordPath === undefined) return next(e);
    // Listed only while the spool has room: at its bound the call's events could be dropped, and a call in
    // the list is one the command hooks leave to the mod. Unlisted, they report it too (it counts once).
    const listed = !spoolFull($, s, p);
    const call: HeldCall = { id: e.tool_use_id, tool: e.tool, at, agentId: e.agentId, place: p, recordPath, listed };
    // Reported first, so nothing below delays it; then what the call's settings hooks rely on, before they run.
    report($, s, p, modEvent(p, 'pre', at, e.agentId, { tool_use_id: call.id, tool_name: call.tool, transport: 'mod' }), listed);
    s.held.set(call.id, call);
    s.calling.set(call.id, call);
    await Promise.all([
      cursorAt($, s, recordPath),
      listed ? listCall($, s, call).catch(() => undefined) : undefined,
      // The held message is a convenience: the call goes on without it.
      storeHeldMessage($, s, call).catch(() => undefined),
    ]);
    watchHeld($, s);
    const post = () => {
      s.calling.delete(call.id);
      // What its settings hooks took, when classic.PreToolUse timed them (a denied call too: its post ends it).
      // And whether its hooks had its held message: replay's live runs give it as they had it.
      report($, s, p, modEvent(p, 'post', now(), e.agentId, { tool_use_id: call.id, tool_name: call.tool, transport: 'mod', ...hooksFields(call.hooks), held_message: call.heldKept === true }), listed);
      call.ran = true;
      if (s.held.has(call.id)) watchHeld($, s);
    };
    try {
      const ran = await next(e);
      post();
      return ran;
    } catch (err) {
      post();
      throw err;
    }
  });

  // Beneath tool.call: `next` runs the call's settings PreToolUse hooks, timed here (hooksTiming.ts).
  on('classic.PreToolUse', async ($, e: ToolCallEnvelope, next) => {
    const started = now();
    let result: PreToolUseResult | undefined;
    try {
      result = await next(e);
      return result;
    } finally {
      hooksSettled($, s, e, started, result);
    }
  });

  on('session.append', async ($, e: AppendEvent, next) => {
    const p = s.place;
    if (p !== undefined) {
      // Nothing awaited before next: a row is appended on the session's own path.
      const at = now();
      const ids: string[] = [];
      for (const b of e.message.content ?? []) {
        if (b?.type === 'tool_use' && typeof b.id === 'string') ids.push(b.id);
        else if (b?.type === 'tool_result' && typeof b.tool_use_id === 'string') ids.push(b.tool_use_id);
      }
      report($, s, p, modEvent(p, 'record', at, e.agentId, { uuid: e.uuid, record_type: e.message.type, ...(ids.length > 0 ? { tool_use_ids: ids } : {}) }));
    }
    return next(e);
  });

  on('ui.render', { component: 'Spinner' }, ($, e: RenderEvent, next) => spinnerHeld($, s, e, next));
  on('ui.render', { component: 'ToolUse' }, ($, e: RenderEvent, next) => toolRowLag($, s, e, next));
  on('ui.render', { component: 'ToolGroup' }, ($, e: RenderEvent, next) => toolGroupLag($, s, e, next));
}
