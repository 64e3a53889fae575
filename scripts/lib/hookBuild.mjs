// The hook bundle's esbuild options, one place for scripts/build.mjs (dist/hook.js) and
// scripts/plugin-hook.mjs (plugin/bin/hook.js, committed): the two must be the same bytes.
// Minified, no source map, no dependencies: it runs on every tool call.
export const hookBuildOptions = {
  entryPoints: ['src/hook/main.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  sourcemap: false,
  minify: true,
  logLevel: 'warning',
  legalComments: 'none',
  mainFields: ['module', 'main'],
};
