/**
 * The plugin's SessionStart (`hook.js --plugin --install-message-tool`), bundled on its own as
 * plugin/bin/hook-session-start.js (scripts/lib/sessionStartBuild.mjs), which hook.js requires only in
 * that mode: the copy's code is never parsed by a tool call's hook, which runs on every call.
 */
import { installMessageTool } from './messageTool';

/** Keeps the message tool beside the channel (`sourceDir`: where the plugin's copy is). Never throws. */
export async function sessionStart(sourceDir: string, channelDir: string): Promise<void> {
  await installMessageTool(sourceDir, channelDir).catch(() => undefined);
}
