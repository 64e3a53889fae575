/**
 * The PreToolUse command hooks a session would have run, from the settings files Claude Code reads
 * them from (user, project, local; read as src/core/settings/ reads them, with jsonc-parser): every
 * `type: "command"` hook, in shell form (`command`) or exec form (`command` and `args`), with its
 * group's matcher and its own `timeout`. Left out, each with the reason: http hooks and hooks of
 * other types, the entries `transcript-lag install-hook` wrote (they report, they do not decide),
 * Claude Code runs a command that several matching entries name once (hooksFor).
 */
import { getNodeValue } from 'jsonc-parser';
import { matcherMatches } from './matcher';
import { isOurHookCommand, isOurHookExec, parseSettings, SettingsError } from '../settings/hookEntries';

/** Which settings file a hook came from, as Claude Code names them. */
export type SettingsSource = 'user' | 'project' | 'local';

export interface ReplayHook {
  /** Shell form: the command line (`sh -c`). Exec form: the program. */
  command: string;
  /** Exec form: the program's arguments, no shell. */
  args?: string[];
  matcher?: string;
  /** The hook's own `timeout`, in seconds. */
  timeoutSec?: number;
  source: SettingsSource;
}

export interface SettingsHooks {
  hooks: ReplayHook[];
  /** What was left out, and why (for stderr). */
  notes: string[];
  /** `disableAllHooks: true`: Claude Code runs no hook at all. */
  disabled: boolean;
}

/** One line naming a hook: its command, and its arguments when in exec form. */
export { hookLabel } from './hookLabel';

/** The hooks of one settings file's text, added to `into` in order. Throws SettingsError for a file that is not valid. */
export function addSettingsHooks(into: SettingsHooks, text: string, source: SettingsSource): void {
  const root = parseSettings(text.startsWith('\ufeff') ? text.slice(1) : text);
  const settings = getNodeValue(root) as Record<string, unknown>;
  if (settings.disableAllHooks === true) into.disabled = true;
  const groups = (settings.hooks as Record<string, unknown> | undefined)?.PreToolUse;
  if (!Array.isArray(groups)) return;
  for (const group of groups as unknown[]) {
    if (!group || typeof group !== 'object') continue;
    const { matcher, hooks } = group as { matcher?: unknown; hooks?: unknown };
    if (!Array.isArray(hooks)) continue;
    for (const hook of hooks as unknown[]) {
      if (!hook || typeof hook !== 'object') continue;
      const h = hook as { type?: unknown; command?: unknown; args?: unknown; timeout?: unknown; url?: unknown };
      if (h.type !== 'command') {
        into.notes.push(`${source} settings: a PreToolUse hook of type ${JSON.stringify(h.type ?? null)} is not replayed (command hooks only)`);
        continue;
      }
      if (typeof h.command !== 'string' || h.command === '') continue;
      const args = h.args === undefined ? undefined : Array.isArray(h.args) && h.args.every((a) => typeof a === 'string') ? (h.args as string[]) : null;
      if (args === null) {
        into.notes.push(`${source} settings: a PreToolUse hook whose args are not a list of strings is not replayed`);
        continue;
      }
      if (args === undefined ? isOurHookCommand(h.command) : isOurHookExec(h.command, args)) {
        into.notes.push(`${source} settings: transcript-lag's own reporting hook is not replayed`);
        continue;
      }
      const replayHook: ReplayHook = {
        command: h.command,
        ...(args !== undefined ? { args } : {}),
        ...(typeof matcher === 'string' ? { matcher } : {}),
        ...(typeof h.timeout === 'number' && h.timeout > 0 ? { timeoutSec: h.timeout } : {}),
        source,
      };
      into.hooks.push(replayHook);
    }
  }
}

/** The hooks that run for a tool, in settings order: each whose matcher takes it, an identical command once. */
export function hooksFor(hooks: readonly ReplayHook[], toolName: string): ReplayHook[] {
  const taken = new Set<string>();
  return hooks.filter((h) => {
    if (!matcherMatches(h.matcher, toolName)) return false;
    const key = JSON.stringify([h.command, h.args ?? null]);
    if (taken.has(key)) return false;
    taken.add(key);
    return true;
  });
}

export { SettingsError };
