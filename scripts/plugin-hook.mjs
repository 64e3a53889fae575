#!/usr/bin/env node
// The Claude Code plugin (plugin/) runs a committed copy of the hook bundle, plugin/bin/hook.js:
// a plugin installed from a git URL is a clone in which nothing is built. This keeps that copy
// byte for byte what `npm run build` writes to dist/hook.js (same esbuild options,
// scripts/lib/hookBuild.mjs).
//
//   node scripts/plugin-hook.mjs           rewrite plugin/bin/hook.js from src/hook/
//   node scripts/plugin-hook.mjs --check   exit 1 unless the committed copy is that build
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { hookBuildOptions } from './lib/hookBuild.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PLUGIN_HOOK = path.join(repoRoot, 'plugin', 'bin', 'hook.js');

export async function buildHookBytes() {
  const out = await esbuild.build({ ...hookBuildOptions, absWorkingDir: repoRoot, outfile: path.join(repoRoot, 'dist', 'hook.js'), write: false });
  return Buffer.from(out.outputFiles[0].contents);
}

async function main() {
  const check = process.argv.includes('--check');
  const built = await buildHookBytes();
  const committed = fs.existsSync(PLUGIN_HOOK) ? fs.readFileSync(PLUGIN_HOOK) : undefined;
  if (check) {
    if (committed && committed.equals(built)) return 0;
    console.error(`${path.relative(repoRoot, PLUGIN_HOOK)} is not the current build of src/hook/ (${committed ? `${committed.length} bytes, build ${built.length}` : 'missing'}): run \`node scripts/plugin-hook.mjs\` and commit it`);
    return 1;
  }
  fs.mkdirSync(path.dirname(PLUGIN_HOOK), { recursive: true });
  fs.writeFileSync(PLUGIN_HOOK, built);
  console.log(`wrote ${path.relative(repoRoot, PLUGIN_HOOK)} (${built.length} bytes)`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => (process.exitCode = code));
}
