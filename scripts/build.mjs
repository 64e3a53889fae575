// Bundles the entry points. CommonJS, platform node, target node18: the
// extension host of VS Code 1.90 runs Node 18, and Claude Code may run the hook
// with whatever `node` the user has.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { hookBuildOptions } from './lib/hookBuild.mjs';
import { messageBuildOptions } from './lib/messageBuild.mjs';
import { completeBuildOptions } from './lib/completeBuild.mjs';
import { compactLandingsModule } from './lib/compactLandings.mjs';

const watch = process.argv.includes('--watch');
// `transcript-lag --version` prints the package's version (src/cli/main.ts).
const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8'));
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
  define: { __VERSION__: JSON.stringify(version) },
};

// The CLI's parts it loads only when needed, each its own bundle beside dist/cli.js:
// a `require('…')` of one of these sources (src/cli/main.ts per subcommand,
// src/core/analyze/channelJoin.ts for --channel) becomes a require of its bundle,
// so `analyze` parses ~100 KB instead of ~1 MB (zod alone is ~750 KB). Static
// imports of the same sources are bundled as usual.
const cliLazyModules = {
  'src/cli/analyze.ts': 'dist/cli-analyze.js',
  'src/cli/watch.ts': 'dist/cli-watch.js',
  'src/cli/installHook.ts': 'dist/cli-install-hook.js',
  'src/platform/metricsModule.ts': 'dist/metrics.js',
  // Also run on its own, every second, by Claude Code's status line (install-statusline copies it): node: modules only.
  'src/cli/statusline.ts': 'dist/cli-statusline.js',
  'src/cli/installStatusline.ts': 'dist/cli-install-statusline.js',
  // Also run on its own by reviewing hooks, on every call (`node dist/cli-message.js --json`): node: modules only.
  'src/cli/message.ts': 'dist/cli-message.js',
  'src/cli/replay.ts': 'dist/cli-replay.js',
  // Also run on its own in front of PreToolUse hooks (`node dist/cli-complete.js -- CMD`): node: modules only.
  'src/cli/complete.ts': 'dist/cli-complete.js',
  'src/cli/wrapHooks.ts': 'dist/cli-wrap-hooks.js',
};
const lazyBundleOf = new Map(Object.entries(cliLazyModules).map(([entry, outfile]) => [path.resolve(entry), outfile]));
// The CLI's heavy parts (zod, chokidar, jsonc-parser) are the extension's engine bundle,
// dist/engine.js, which exports each of these modules' names the CLI uses
// (src/vscode/engineModule.ts): any import or require of one from a CLI bundle becomes a
// require of dist/engine.js, so the CLI ships in the VSIX beside the extension for a few
// KiB of its own.
const cliFromEngineBundle = new Set(
  ['src/core/engine/index.ts', 'src/platform/chokidarChangeSource.ts', 'src/platform/hookInstaller.ts', 'src/platform/statusLineInstaller.ts', 'src/core/channel/reader.ts', 'src/platform/replaySession.ts'].map((entry) => path.resolve(entry)),
);
// The build checks what the CLI relies on: engineModule.ts exports each of them whole.
const engineModuleSource = fs.readFileSync('src/vscode/engineModule.ts', 'utf8');
for (const file of cliFromEngineBundle) {
  const specifier = path.relative('src/vscode', file).replace(/\\/g, '/').replace(/\.ts$/, '').replace(/\/index$/, '');
  if (!engineModuleSource.includes(`export * from '${specifier}';`)) {
    throw new Error(`src/vscode/engineModule.ts must \`export * from '${specifier}'\`: the CLI's bundles take it from dist/engine.js`);
  }
}
const cliLazyBundles = {
  name: 'cli-lazy-bundles',
  setup(build) {
    build.onResolve({ filter: /^\./ }, async (args) => {
      if (args.pluginData?.cliLazyBundles) return undefined;
      if (args.kind !== 'require-call' && args.kind !== 'import-statement') return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { cliLazyBundles: true } });
      // Every bundle of the CLI lies in dist/, so the sibling is found beside the requiring one.
      if (cliFromEngineBundle.has(resolved.path)) return { path: './engine.js', external: true };
      const outfile = args.kind === 'require-call' ? lazyBundleOf.get(resolved.path) : undefined;
      return outfile ? { path: `./${path.basename(outfile)}`, external: true } : undefined;
    });
  },
};

// zod exports every locale of its error messages (`z.locales`), 60 of them, 265 KB of the engine
// bundle; we read its errors in English only, which zod itself loads (`config(en())`). Its locales'
// index is handed just that one. And one part of zod we never call is left out (below).
const zodPartsWeUse = {
  name: 'zod-parts-we-use',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return { path: path.join(path.dirname(args.importer), args.path), namespace: 'zod-locales' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};\n`,
      resolveDir: path.dirname(args.path),
    }));
    // `z.fromJSONSchema` (12 KB, 5 KB of the packed VSIX) builds zod schemas from JSON Schema: we
    // never do (src/core/channel/jsonSchema.ts goes the other way, in tests and `npm run schema`).
    build.onResolve({ filter: /\/from-json-schema\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return { path: args.path, namespace: 'zod-from-json-schema' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-from-json-schema' }, () => ({
      contents: "export function fromJSONSchema() { throw new Error('z.fromJSONSchema is left out of this bundle (scripts/build.mjs)'); }\n",
    }));
  },
};

// prom-client's index requires all of it: default process metrics (and through them
// @opentelemetry/api), Summary (tdigest, bintrees), the push gateway, the cluster aggregator: 67 KB
// of dist/metrics.js's 73 KB. We use four of its classes, taken from their own files (14 KB); a name
// imported from 'prom-client' that is not below fails the build.
const PROM_CLIENT_PARTS = { Counter: 'counter', Gauge: 'gauge', Histogram: 'histogram', Registry: 'registry' };
for (const file of ['src/platform/lagMetrics.ts', 'src/platform/metricsServer.ts']) {
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'prom-client'/g)) {
    const names = m[1].split(',').map((n) => n.replace(/^\s*type\s+/, '').trim().split(/\s+as\s+/)[0]).filter(Boolean);
    const missing = names.filter((n) => !(n in PROM_CLIENT_PARTS));
    if (missing.length) throw new Error(`${file} imports ${missing.join(', ')} from prom-client: add it to PROM_CLIENT_PARTS in scripts/build.mjs`);
  }
}
const promClientParts = {
  name: 'prom-client-parts',
  setup(build) {
    build.onResolve({ filter: /^prom-client$/ }, (args) => ({ path: args.path, namespace: 'prom-client-parts', pluginData: { resolveDir: args.resolveDir } }));
    build.onLoad({ filter: /.*/, namespace: 'prom-client-parts' }, (args) => ({
      contents: Object.entries(PROM_CLIENT_PARTS).map(([name, file]) => `exports.${name} = require('prom-client/lib/${file}');`).join('\n'),
      resolveDir: args.pluginData.resolveDir,
      loader: 'js',
    }));
  },
};

// Replay's landing table with its rows as arrays (scripts/lib/compactLandings.mjs): the same object once loaded.
const compactLandings = {
  name: 'compact-landings',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]core[\\/]replay[\\/]landings\.json$/ }, (args) => ({
      contents: compactLandingsModule(JSON.parse(fs.readFileSync(args.path, 'utf8'))),
      loader: 'js',
    }));
  },
};

const builds = [
  { entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  // The engine (zod, chokidar) for the extension, required only once a Claude dir exists: see src/vscode/engineModule.ts.
  { entryPoints: ['src/vscode/engineModule.ts'], outfile: 'dist/engine.js' },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, plugins: [cliLazyBundles] },
  ...Object.entries(cliLazyModules)
    .filter(([entry]) => entry !== messageBuildOptions.entryPoints[0] && entry !== completeBuildOptions.entryPoints[0])
    .map(([entry, outfile]) => ({ entryPoints: [entry], outfile, plugins: [cliLazyBundles] })),
  // `npm run demo` in the terminal (scripts/demo.mjs): the CLI's engine bundle, drawn as the view would.
  { entryPoints: ['src/cli/terminalDemo.ts'], outfile: 'dist/terminalDemo.js', plugins: [cliLazyBundles] },
  // The http hooks' receiver on its own thread (src/platform/hookReceiverThread.ts starts it).
  { entryPoints: ['src/platform/hookReceiverWorker.ts'], outfile: 'dist/hookReceiverWorker.js' },
  // The hook runs on every tool call: no source map, minified, no dependencies. The plugin's
  // committed copy (plugin/bin/hook.js) is these same bytes: scripts/plugin-hook.mjs.
  { ...hookBuildOptions, outfile: 'dist/hook.js' },
  // The message tool, the same way: the plugin's committed copy (plugin/bin/transcript-lag-message.js) is these bytes.
  { ...messageBuildOptions, outfile: 'dist/cli-message.js' },
  // The completing wrapper, the same way (plugin/bin/transcript-lag-complete.js).
  { ...completeBuildOptions, outfile: 'dist/cli-complete.js' },
];

if (watch) {
  for (const b of builds) (await esbuild.context({ ...common, ...b, plugins: [...(b.plugins ?? []), zodPartsWeUse, promClientParts, compactLandings] })).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build({ ...common, ...b, plugins: [...(b.plugins ?? []), zodPartsWeUse, promClientParts, compactLandings] })));
}
