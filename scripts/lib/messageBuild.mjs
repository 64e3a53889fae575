// The message tool's esbuild options, one place for scripts/build.mjs (dist/cli-message.js) and
// scripts/plugin-hook.mjs (plugin/bin/transcript-lag-message.js, committed, which the plugin copies
// to <claude dir>/transcript-lag/bin/ on session start): the two must be the same bytes. A reviewing
// hook runs it on every call: minified, no source map, `node:` modules only.
import { hookBuildOptions } from './hookBuild.mjs';

export const messageBuildOptions = { ...hookBuildOptions, entryPoints: ['src/cli/message.ts'] };
