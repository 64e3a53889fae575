/**
 * The second extension bundle, dist/engine.js: the engine with zod and
 * chokidar, and the hook installer with jsonc-parser. dist/extension.js loads
 * it only once a Claude dir exists or a hook command runs, so a window without
 * Claude Code never parses it (most of the extension's bytes). The CLI's
 * bundles require it in place of these modules (scripts/build.mjs), so
 * each is exported whole: whatever name a CLI bundle takes from one is here.
 */
export * from '../core/engine';
export * from '../platform/chokidarChangeSource';
export * from '../platform/hookInstaller';
export * from '../platform/statusLineInstaller';
export * from '../core/channel/reader';
export * from '../platform/hookReceiverService';
export * from '../rules/nodeSpoolFolding';
export * from '../platform/measuredKeeping';
// Replay Hook on Session… (src/vscode/replayCommand.ts): the CLI's replay, loaded with the engine.
export * from '../platform/replaySession';
