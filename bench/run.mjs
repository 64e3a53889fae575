// `npm run bench [-- --json --quick --size 200M --only cold,hook --no-build]`
// Builds dist/ (the contenders), bundles the bench with esbuild into
// bench/results/tmp/, and runs it. Always exits 0: benchmarks report, they do not gate.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'bench/results/tmp');
const args = process.argv.slice(2);

if (!args.includes('--no-build')) {
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) process.stderr.write('bench: npm run build failed; sections needing dist/ will say so\n');
}

// Each entry on its own: a section whose component is still being written fails
// to bundle alone, and main reports it as not run (bundle-errors.json says why).
const entries = ['main', 'writer', 'latency', 'burst', 'extension', 'extensionChild', 'ready', 'receiverChild', 'bareHookChild'];
// The CLI again, unminified with its names kept, for `--profile` (dist/cli.js is minified).
const profiledCli = { name: 'cliProfiled', entry: 'src/cli/main.ts' };
const errors = {};
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
for (const { name, entry } of [...entries.map((name) => ({ name, entry: `bench/${name}.ts` })), profiledCli]) {
  try {
    await esbuild.build({
      entryPoints: [entry],
      keepNames: true,
      absWorkingDir: root,
      outfile: path.join(outdir, `${name}.cjs`),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'inline',
      logLevel: 'silent',
      // As scripts/build.mjs: jsonc-parser's UMD `main` has require()s esbuild cannot follow.
      mainFields: ['module', 'main'],
      // The extension child gives dist/extension.js its own vscode shim.
      external: ['vscode'],
    });
  } catch (err) {
    errors[name] = err.errors?.map((e) => `${e.location?.file ?? ''}: ${e.text}`).join('; ') ?? err.message;
    process.stderr.write(`bench: ${name} not bundled: ${errors[name]}\n`);
  }
}
writeFileSync(path.join(outdir, 'bundle-errors.json'), JSON.stringify(errors, null, 2));
if (errors.main) process.exit(0);

const run = spawnSync(process.execPath, [path.join(outdir, 'main.cjs'), ...args], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) process.stderr.write(`bench: exited ${run.status ?? run.signal}\n`);
process.exit(0);
