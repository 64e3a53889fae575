/**
 * One line naming a settings hook, import-free so the views may use it without the settings parser
 * (src/core/replay/replayHooks.ts, which re-exports it).
 */
export function hookLabel(hook: { command: string; args?: readonly string[] }): string {
  return hook.args === undefined ? hook.command : [hook.command, ...hook.args].map((w) => (/[\s'"]/.test(w) ? JSON.stringify(w) : w)).join(' ');
}
