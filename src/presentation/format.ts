/**
 * Short human texts for durations and counts, shared by the status bar, the
 * tree, the tooltip, the decoration and the report so they always agree.
 */
import type { CallShape } from '../core/callShape';
import type { CallSnapshot } from '../core/snapshot';
import { boundsText, formatDuration } from '../rules/durationText';
import type { HooksTimed } from '../rules/hookEvidence';

/** A lag that may be unknown (no hook event joined the call). */
export function formatLag(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? 'no hook' : formatDuration(ms);
}

/** "lag 2.9s", or "no hook" when no hook event joined the call (there is no lag to speak of). */
export function lagPhrase(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? 'no hook' : `lag ${formatDuration(ms)}`;
}

/** A statistic that may not be measured yet (no hook event joined any call). */
export function formatStat(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : formatDuration(ms);
}

/** A round bound for axis labels: `50 ms`, `1s`, `30s`, `1m`. */
export function formatBound(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)}m`;
  return `${+(ms / 3_600_000).toFixed(1)}h`;
}

export type WriteShape = 'with_result' | 'before_result';

/**
 * A written call's shape as evidence proves it: CallSnapshot.shape only.
 * `with_result` alone proves nothing (false may mean "not known"), so an
 * absent or `unknown` shape reads "shape unknown".
 */
export function callShapeText(shape: CallShape | undefined): string {
  if (shape === 'with_result') return 'with result';
  if (shape === 'before_result') return 'before result';
  return 'shape unknown';
}

/**
 * A written call's lag as evidence proves it: `lag 2.9s` when measured; when
 * a hook event joined the call (fired_at) but the lag was not measured, the
 * hook's bounds on the hold (`held ≤ 2.3s`, `held 0.4–2.3s`, `held ≥ 0.4s`)
 * or `lag unknown`; `no hook` only when no hook event joined it.
 */
export function callLagText(call: Pick<CallSnapshot, 'lag_ms' | 'fired_at' | 'lag_bounds'>): string {
  if (call.lag_ms !== null && call.lag_ms !== undefined) return `lag ${formatDuration(call.lag_ms)}`;
  if (call.lag_bounds) return `held ${boundsText(call.lag_bounds)}`;
  return call.fired_at === undefined ? 'no hook' : 'lag unknown';
}

/**
 * The settings PreToolUse hooks' share of a call's hold, as the mod timed them (`hooks 2.0s`), and
 * what they decided when it was not to let the call run as asked: `denied by a hook`, `a hook asked`.
 * Undefined without the mod's figures: nothing else times the hooks, so nothing is said.
 */
export function hooksText(hooks: HooksTimed | undefined): string | undefined {
  if (hooks === undefined) return undefined;
  const took = `hooks ${formatDuration(hooks.ms)}`;
  if (hooks.decision === 'deny') return `denied by a hook · ${took}`;
  if (hooks.decision === 'ask') return `a hook asked · ${took}`;
  return took;
}

/** `1 call` / `3 calls`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A short id for logs and fallbacks: the first 8 characters after a `toolu_`-like prefix. */
export function shortId(id: string): string {
  const core = id.replace(/^[a-z]+_/, '');
  return core.length > 8 ? core.slice(0, 8) : core;
}

// Said once for every view, the mod's rows too: src/rules/durationText.ts.
export { boundsText, formatDuration };
