// The plugin's SessionStart work (src/hook/sessionStart.ts: the message tool's copy, the spool's fold),
// a bundle of its own beside the hook, plugin/bin/hook-session-start.js, which hook.js requires only
// with --install-message-tool: a tool call's hook, run on every call, never parses it. Committed, and
// written and checked by scripts/plugin-hook.mjs; only the plugin runs it, so it has no dist/ twin.
import { hookBuildOptions } from './hookBuild.mjs';

export const sessionStartBuildOptions = { ...hookBuildOptions, entryPoints: ['src/hook/sessionStart.ts'] };
