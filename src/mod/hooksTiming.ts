/**
 * The call's settings PreToolUse hooks, timed by the mod (issue 33 §4): `classic.PreToolUse` fires inside
 * `tool.call`, beneath every plugin's `tool.call` hook, and its `next` runs exactly the settings hooks
 * (those of managed settings run above the mods: not in this time). What they took is their share of
 * the call's hold; it goes out as a `hooks` event as soon as they settle, and on the call's `post`.
 */
import type { ModApi, PreToolUseResult, ToolCallEnvelope } from './api';
import { watchHeld } from './looks';
import { modEvent, report } from './channelOut';
import type { HooksDecision } from '../rules/channelConstants';
import { hooksFields, type HooksTimed } from '../rules/hookEvidence';
import { now, type ModState } from './state';

/** The decision a PreToolUse result makes, if any; a result holding more than one counts as its most cautious. */
export function hooksDecisionOf(result: unknown): HooksDecision | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as PreToolUseResult;
  if (typeof r.deny === 'string') return 'deny';
  if (typeof r.ask === 'string') return 'ask';
  if (r.allow === true) return 'allow';
  return undefined;
}

/**
 * The settings hooks of the call `e` settled (`result`: what `next` resolved to; undefined when it
 * threw): kept on the call for its `post`, and reported as `hooks` at once. A call the mod does not
 * report (past MAX_CALLS, or no place at its tool.call) is reported as the session's if its place is
 * known, unlisted and without `agent_id` (the envelope names no loop); else not at all.
 */
export function hooksSettled($: ModApi, s: ModState, e: ToolCallEnvelope, started: number, result: unknown): void {
  const ended = now();
  if (typeof e?.tool_use_id !== 'string') return;
  const hooks: HooksTimed = { ms: Math.max(0, Math.round(ended - started)) };
  const decision = hooksDecisionOf(result);
  if (decision !== undefined) hooks.decision = decision;
  const call = s.calling.get(e.tool_use_id);
  if (call !== undefined) {
    call.hooks = hooks;
    // Its record may land any moment now: looked for more often.
    if (s.held.has(call.id)) watchHeld($, s);
  }
  const p = call?.place ?? s.place;
  if (p === undefined) return;
  const fields = { tool_use_id: e.tool_use_id, tool_name: call?.tool ?? e.tool, transport: 'mod', ...hooksFields(hooks) };
  report($, s, p, modEvent(p, 'hooks', ended, call?.agentId, fields), call?.listed ?? false);
}
