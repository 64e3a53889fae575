// The completing wrapper's esbuild options (`transcript-lag complete`, src/cli/complete.ts), one place for
// scripts/build.mjs (dist/cli-complete.js) and scripts/plugin-hook.mjs (plugin/bin/transcript-lag-complete.js,
// committed, which the plugin copies to <claude dir>/transcript-lag/bin/ on session start): the same
// bytes. It runs in front of a PreToolUse hook on every call: minified, no source map, `node:` modules only.
import { hookBuildOptions } from './hookBuild.mjs';

export const completeBuildOptions = { ...hookBuildOptions, entryPoints: ['src/cli/complete.ts'] };
