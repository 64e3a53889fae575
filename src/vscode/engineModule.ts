/**
 * The second extension bundle, dist/engine.js: the engine with zod and
 * chokidar, and the hook installer with jsonc-parser. dist/extension.js loads
 * it only once a Claude dir exists or a hook command runs, so a window without
 * Claude Code never parses it (most of the extension's bytes).
 */
export { TranscriptLagEngine } from '../core/engine';
export { chokidarChangeSource } from '../platform/chokidarChangeSource';
export { installHook, uninstallHook } from '../platform/hookInstaller';
