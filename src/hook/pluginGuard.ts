// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { join, resolve } from 'node:path';
import { HOOK_FILE_NAME, HOOK_LAUNCHER_FILE_NAME } from '../rules/channelConstants';
import { HTTP_SECRET_HEADER, isOurHttpHook } from '../rules/ourHttpHook';
import { readBounded } from '../rules/boundedRead';

/** A settings.json larger than this is not read: the plugin's hook then reports as usual. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The user's settings.json: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`, as Claude Code reads it. */
export function userSettingsPath(env: NodeJS.ProcessEnv): string {
  if (env.CLAUDE_CONFIG_DIR) return resolve(env.CLAUDE_CONFIG_DIR, 'settings.json');
  const os = require('node:os') as typeof import('node:os');
  return join(os.homedir(), '.claude', 'settings.json');
}

function readSettingsText(path: string): string | undefined {
  return readBounded(path, MAX_SETTINGS_BYTES, 'whole')?.bytes.toString('utf8');
}

/**
 * Whether settings.json holds install-hook's entry for `event`: a command running our hook file,
 * or exactly our http entry (install-hook --http: a POST to our receiver on loopback with our
 * secret header). Then that entry reports this call, and the plugin's hook stands aside so no
 * call is reported twice. Parsed, not searched: a comment or another key naming the file, or
 * another http hook on the same port, is not an entry. A file that is not plain JSON (comments)
 * is judged by whether it names our hook file or our secret header at all: standing aside
 * wrongly loses calls, reporting twice would show each call twice.
 */
/**
 * A command line, or an exec form's argument (install-hook's exec form names the hook in `args`), that
 * runs our hook file, or the Windows launcher that runs it (HOOK_LAUNCHER_FILE_NAME).
 */
const namesOurHook = (word: unknown): boolean => typeof word === 'string' && (word.includes(HOOK_FILE_NAME) || word.includes(HOOK_LAUNCHER_FILE_NAME));

export function settingsRunOurHook(settingsText: string | undefined, event: string): boolean {
  if (settingsText === undefined || !(settingsText.includes(HOOK_FILE_NAME) || settingsText.includes(HOOK_LAUNCHER_FILE_NAME) || settingsText.includes(HTTP_SECRET_HEADER))) return false;
  let settings: unknown;
  try {
    settings = JSON.parse(settingsText);
  } catch {
    return true;
  }
  const groups = (settings as { hooks?: Record<string, unknown> } | null)?.hooks?.[event];
  if (!Array.isArray(groups)) return false;
  return groups.some(
    (g) =>
      Array.isArray(g?.hooks) &&
      g.hooks.some(
        (h: { type?: unknown; command?: unknown; args?: unknown }) =>
          ((h?.type === undefined || h.type === 'command') && (namesOurHook(h?.command) || (Array.isArray(h?.args) && h.args.some(namesOurHook)))) || isOurHttpHook(h),
      ),
  );
}

/** The plugin's hook: is install-hook's entry for this event in the user's settings.json? */
export function installedHookReports(env: NodeJS.ProcessEnv, event: string): boolean {
  // install-hook registers PostToolUse only; a PostToolUseFailure is reported by the plugin either way.
  return settingsRunOurHook(readSettingsText(userSettingsPath(env)), event);
}
