#!/usr/bin/env node
// The Claude Code plugin (plugin/) runs committed builds: a plugin installed from a git URL is a
// clone in which nothing is built. This keeps them byte for byte what their sources build to:
// plugin/bin/hook.js, what `npm run build` writes to dist/hook.js (scripts/lib/hookBuild.mjs),
// plugin/hooks/transcript-lag-mod.js, the mod Claude Code 2.1.286+ loads in process (as measured)
// (scripts/lib/modBuild.mjs, from src/mod/), and plugin/bin/transcript-lag-message.js, the message
// tool the plugin copies to <claude dir>/transcript-lag/bin/ on session start, what `npm run build`
// writes to dist/cli-message.js (scripts/lib/messageBuild.mjs, from src/cli/message.ts), and
// plugin/bin/hook-session-start.js, what hook.js requires at session start (the message tool's copy,
// the spool's fold: scripts/lib/sessionStartBuild.mjs, from src/hook/sessionStart.ts; plugin only), and
// plugin/bin/transcript-lag-complete.js, the completing wrapper the SessionStart copies beside the message
// tool, what `npm run build` writes to dist/cli-complete.js (scripts/lib/completeBuild.mjs, src/cli/complete.ts).
//
//   node scripts/plugin-hook.mjs           rewrite them from src/
//   node scripts/plugin-hook.mjs --check   exit 1 unless the committed copies are those builds
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { hookBuildOptions } from './lib/hookBuild.mjs';
import { messageBuildOptions } from './lib/messageBuild.mjs';
import { completeBuildOptions } from './lib/completeBuild.mjs';
import { modBuildOptions } from './lib/modBuild.mjs';
import { sessionStartBuildOptions } from './lib/sessionStartBuild.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PLUGIN_HOOK = path.join(repoRoot, 'plugin', 'bin', 'hook.js');
export const PLUGIN_MOD = path.join(repoRoot, 'plugin', 'hooks', 'transcript-lag-mod.js');
export const PLUGIN_MESSAGE = path.join(repoRoot, 'plugin', 'bin', 'transcript-lag-message.js');
export const PLUGIN_SESSION_START = path.join(repoRoot, 'plugin', 'bin', 'hook-session-start.js');
export const PLUGIN_COMPLETE = path.join(repoRoot, 'plugin', 'bin', 'transcript-lag-complete.js');

async function buildBytes(options, outfile) {
  const out = await esbuild.build({ ...options, absWorkingDir: repoRoot, outfile, write: false });
  return Buffer.from(out.outputFiles[0].contents);
}

export const buildHookBytes = () => buildBytes(hookBuildOptions, path.join(repoRoot, 'dist', 'hook.js'));
export const buildModBytes = () => buildBytes(modBuildOptions, PLUGIN_MOD);
export const buildMessageBytes = () => buildBytes(messageBuildOptions, path.join(repoRoot, 'dist', 'cli-message.js'));
export const buildSessionStartBytes = () => buildBytes(sessionStartBuildOptions, PLUGIN_SESSION_START);
export const buildCompleteBytes = () => buildBytes(completeBuildOptions, path.join(repoRoot, 'dist', 'cli-complete.js'));

async function main() {
  const check = process.argv.includes('--check');
  let failed = 0;
  for (const [file, build, source] of [
    [PLUGIN_HOOK, buildHookBytes, 'src/hook/'],
    [PLUGIN_MOD, buildModBytes, 'src/mod/'],
    [PLUGIN_MESSAGE, buildMessageBytes, 'src/cli/message.ts'],
    [PLUGIN_SESSION_START, buildSessionStartBytes, 'src/hook/sessionStart.ts'],
    [PLUGIN_COMPLETE, buildCompleteBytes, 'src/cli/complete.ts'],
  ]) {
    const built = await build();
    const committed = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
    if (check) {
      if (committed && committed.equals(built)) continue;
      console.error(`${path.relative(repoRoot, file)} is not the current build of ${source} (${committed ? `${committed.length} bytes, build ${built.length}` : 'missing'}): run \`node scripts/plugin-hook.mjs\` and commit it`);
      failed = 1;
      continue;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, built);
    console.log(`wrote ${path.relative(repoRoot, file)} (${built.length} bytes)`);
  }
  return failed;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => (process.exitCode = code));
}
