/**
 * The hook picker of Replay Hook on Session… (src/vscode/replayCommand.ts): type a command, one of the
 * PreToolUse command hooks of the session's settings (src/platform/replaySession.ts settingsHooksOf,
 * what `replay --settings` runs), or all of them.
 */
import { hookLabel } from '../core/replay/hookLabel';
import type { ReplayHook } from '../core/replay/replayHooks';
import { oneLine } from './replayTable';

export type HookPickItem =
  | { kind: 'typed'; command: string; label: string; detail: string }
  | { kind: 'type'; label: string; detail: string }
  | { kind: 'one'; index: number; label: string; description: string }
  | { kind: 'all'; label: string; description: string; detail?: string };

const SOURCE_TEXT: Record<ReplayHook['source'], string> = { user: 'user settings', project: 'project settings', local: 'local settings' };

/** A hook's settings in a few words: where it is set, which tools its matcher takes, its own timeout. */
export function hookDescription(hook: ReplayHook): string {
  const matcher = hook.matcher === undefined || hook.matcher === '' || hook.matcher === '*' ? 'every tool' : `matcher ${oneLine(hook.matcher, 80)}`;
  return [SOURCE_TEXT[hook.source], matcher, ...(hook.timeoutSec !== undefined ? [`timeout ${hook.timeoutSec}s`] : [])].join(' · ');
}

/** What the picker says above its items: with no hook configured, that what is typed there runs. */
export function hookPickPlaceholder(configuredHooks: number): string {
  return configuredHooks === 0
    ? 'No PreToolUse command hook in the settings: type the command your hook runs, then Enter'
    : 'Type a command to run it, or pick a hook of the settings';
}

/**
 * "Type a command…", each configured hook, then "All configured hooks" when there is any. With `typed`
 * (what the picker's box holds), an item that runs it: the picker filters its items by what is typed, so
 * without it a command typed there matched none of them and Enter did nothing. It comes first, so Enter
 * runs it, unless the text is part of a configured hook's command (typed to find that hook): then after them.
 */
export function hookPickItems(configured: { hooks: readonly ReplayHook[]; disabled: boolean }, typed = ''): HookPickItem[] {
  const items: HookPickItem[] = [{ kind: 'type', label: 'Type a command…', detail: 'A command line, run with sh -c, the PreToolUse JSON on stdin' }];
  configured.hooks.forEach((hook, index) => items.push({ kind: 'one', index, label: oneLine(hookLabel(hook), 200), description: hookDescription(hook) }));
  if (typed.trim() !== '') {
    const run: HookPickItem = { kind: 'typed', command: typed, label: `Run: ${oneLine(typed, 200)}`, detail: 'with sh -c, the PreToolUse JSON on stdin, as Claude Code runs a command hook' };
    const findsAHook = configured.hooks.some((h) => hookLabel(h).toLowerCase().includes(typed.trim().toLowerCase()));
    if (findsAHook) items.push(run);
    else items.unshift(run);
  }
  if (configured.hooks.length > 0) {
    items.push({
      kind: 'all',
      label: 'All configured hooks',
      description: `${configured.hooks.length} PreToolUse command hook${configured.hooks.length === 1 ? '' : 's'}, each on the calls its matcher takes`,
      ...(configured.disabled ? { detail: 'disableAllHooks is set: Claude Code runs none of them' } : {}),
    });
  }
  return items;
}
