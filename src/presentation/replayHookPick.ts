/**
 * The hook picker of Replay Hook on Session… (src/vscode/replayCommand.ts): type a command, one of the
 * PreToolUse command hooks of the session's settings (src/platform/replaySession.ts settingsHooksOf,
 * what `replay --settings` runs), or all of them.
 */
import { hookLabel } from '../core/replay/hookLabel';
import type { ReplayHook } from '../core/replay/settingsHooks';
import { oneLine } from './replayTable';

export type HookPickItem =
  | { kind: 'type'; label: string; detail: string }
  | { kind: 'one'; index: number; label: string; description: string }
  | { kind: 'all'; label: string; description: string; detail?: string };

const SOURCE_TEXT: Record<ReplayHook['source'], string> = { user: 'user settings', project: 'project settings', local: 'local settings' };

/** A hook's settings in a few words: where it is set, which tools its matcher takes, its own timeout. */
export function hookDescription(hook: ReplayHook): string {
  const matcher = hook.matcher === undefined || hook.matcher === '' || hook.matcher === '*' ? 'every tool' : `matcher ${oneLine(hook.matcher, 80)}`;
  return [SOURCE_TEXT[hook.source], matcher, ...(hook.timeoutSec !== undefined ? [`timeout ${hook.timeoutSec}s`] : [])].join(' · ');
}

/** "Type a command…", each configured hook, then "All configured hooks" when there is any. */
export function hookPickItems(configured: { hooks: readonly ReplayHook[]; disabled: boolean }): HookPickItem[] {
  const items: HookPickItem[] = [{ kind: 'type', label: 'Type a command…', detail: 'A command line, run with sh -c, the PreToolUse JSON on stdin' }];
  configured.hooks.forEach((hook, index) => items.push({ kind: 'one', index, label: oneLine(hookLabel(hook), 200), description: hookDescription(hook) }));
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
