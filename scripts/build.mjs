// Bundles the three entry points. CommonJS, platform node, target node18: the
// extension host of VS Code 1.90 runs Node 18, and Claude Code may run the hook
// with whatever `node` the user has.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
  // Prefer ESM entry points: jsonc-parser's `main` is a UMD build whose inner
  // require()s esbuild cannot follow ("Cannot find module './impl/format'" at run time).
  mainFields: ['module', 'main'],
};

const builds = [
  { entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  // The engine (zod, chokidar) for the extension, required only once a Claude dir exists: see src/vscode/engineModule.ts.
  { entryPoints: ['src/vscode/engineModule.ts'], outfile: 'dist/engine.js' },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // analyze's second thread (src/platform/rangeScanWorker.ts): the scanner alone, so it starts fast.
  { entryPoints: ['src/platform/rangeScanWorker.ts'], outfile: 'dist/rangeScanWorker.js' },
  // The hook runs on every tool call: no source map, minified, no dependencies.
  { entryPoints: ['src/hook/main.ts'], outfile: 'dist/hook.js', sourcemap: false, minify: true },
];

if (watch) {
  for (const b of builds) (await esbuild.context({ ...common, ...b })).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build({ ...common, ...b })));
}
