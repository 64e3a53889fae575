/**
 * What the mod shows in Claude Code's own rows: "held 2.1s" after the spinner's word while a call
 * waits for its record, and, once its record is on disk, how long the call was held under its tool
 * row (or a folded group's). The lags are the looks' (./looks.ts), as src/rules/hookEvidence.ts bounds them.
 */
import { boundsText, formatDuration } from '../rules/durationText';
import type { HeldBounds } from '../rules/hookEvidence';
import type { ModApi, Next, RenderEvent } from './api';
import { now, type ModState } from './state';

/** "held 2.1s" after the spinner's word while the oldest held call waits for its record. */
export async function spinnerHeld($: ModApi, s: ModState, e: RenderEvent, next: Next<RenderEvent, unknown>): Promise<unknown> {
  if (s.held.size === 0) return next(e);
  let oldest = Infinity;
  for (const call of s.held.values()) oldest = Math.min(oldest, call.at);
  const more = s.held.size > 1 ? ` (${s.held.size} calls)` : '';
  const room = Math.max(0, (e.viewport?.columns ?? 80) - String(e.props.word ?? '').length - 20);
  const suffix = ` · held ${formatDuration(now() - oldest)}${more}`.slice(0, room);
  return next({ ...e, props: { ...e.props, suffix: `${e.props.suffix ?? ''}${suffix}` } });
}

/** Once its record is on disk: how long the call was held, under its row. */
export async function toolRowLag($: ModApi, s: ModState, e: RenderEvent, next: Next<RenderEvent, unknown>): Promise<unknown> {
  const id = e.props.tool_use_id;
  const lag = typeof id === 'string' ? s.lags.get(id) : undefined;
  const theirs = await next(e);
  if (lag === undefined) return theirs;
  const { Box, Text } = $.ui.resolve(e);
  return Box({ flexDirection: 'column', children: [theirs, Text({ dimColor: true, wrap: 'truncate-end', children: [`  ⎿ transcript lag ${boundsText(lag)}`] })] });
}

/** A folded run of calls ("Ran 2 shell commands"): the longest lag among its calls that landed. */
export async function toolGroupLag($: ModApi, s: ModState, e: RenderEvent, next: Next<RenderEvent, unknown>): Promise<unknown> {
  const calls = Array.isArray(e.props.calls) ? (e.props.calls as Array<{ tool_use_id?: unknown }>) : [];
  const landed = calls.map((c) => (typeof c.tool_use_id === 'string' ? s.lags.get(c.tool_use_id) : undefined)).filter((l): l is HeldBounds => l !== undefined);
  const theirs = await next(e);
  if (e.props.isExpanded === true || landed.length === 0) return theirs;
  const { Box, Text } = $.ui.resolve(e);
  const which = landed.length === calls.length ? '' : ` (${landed.length} of ${calls.length} calls)`;
  return Box({ flexDirection: 'column', children: [theirs, Text({ dimColor: true, wrap: 'truncate-end', children: [`  ⎿ transcript lag ≤ ${formatDuration(Math.max(...landed.map((l) => l.max_ms ?? l.min_ms)))}${which}`] })] });
}
