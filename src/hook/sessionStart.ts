/**
 * The plugin's SessionStart (`hook.js --plugin --install-message-tool`), bundled on its own as
 * plugin/bin/hook-session-start.js (scripts/lib/sessionStartBuild.mjs), which hook.js requires only in
 * that mode: the copy's and the fold's code (the fold is the engine's, src/rules/spoolFold.ts) is never
 * parsed by a tool call's hook, which runs on every call. Each part runs whatever the other did.
 */
import { COMPLETE_TOOL_FILE_NAME } from '../rules/channelConstants';
import { installMessageTool } from './messageTool';
import { foldFinishedSessions } from './spoolAtStart';

/**
 * Keeps the message tool beside the channel (`sourceDir`: where the plugin's copy is) and folds the spool
 * files of finished sessions into their channel files. Never throws.
 */
export async function sessionStart(sourceDir: string, channelDir: string, startingSession: string | undefined, elapsedMs: () => number): Promise<void> {
  await installMessageTool(sourceDir, channelDir).catch(() => undefined);
  // The completing wrapper, the same way: a settings hook put behind it needs the plugin alone, no build.
  await installMessageTool(sourceDir, channelDir, COMPLETE_TOOL_FILE_NAME).catch(() => undefined);
  await foldFinishedSessions(channelDir, { startingSession, elapsedMs });
}
